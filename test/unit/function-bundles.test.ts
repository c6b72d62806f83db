import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFunctions, bundle, coldStart, type FunctionEntry } from '../../bench/functions.ts';
import { buildConsole } from '../../console/build.ts';

// Inside the repository, so that the external AWS SDK resolves from node_modules as it does from the Lambda runtime.
const root = path.resolve(import.meta.dirname, '..', '..');
mkdirSync(path.join(root, '.bench'), { recursive: true });
const directory = mkdtempSync(path.join(root, '.bench', 'test-bundles-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
// The console function ships the console's built script and stylesheet, as the stack builds them at synth.
beforeAll(() => void buildConsole());

/** The SDK clients a function may load when it starts: only those its declared access needs. */
function allowedClients(fn: FunctionEntry): string[] {
  const { access } = fn;
  return [
    ...(access.table || fn.authenticated ? ['client-dynamodb'] : []),
    ...(Object.keys(access.queues ?? {}).length > 0 ? ['client-sqs'] : []),
    ...(access.platformBucket || access.tenantStores ? ['client-s3'] : []),
    ...(access.tenantStores ? ['client-sts'] : []),
    ...(access.secretsKey || access.cursorKey ? ['client-secrets-manager'] : []),
  ];
}

describe('function bundles', () => {
  it('load apache-arrow and parquet-wasm in the batch writer and the job runner only, and keep API functions under 300 KB', async () => {
    const heavy: string[] = [];
    const oversized: string[] = [];
    for (const [index, fn] of allFunctions().entries()) {
      const built = await bundle(fn, path.join(directory, String(index)));
      if (built.inputs.some((input) => /node_modules\/(parquet-wasm|apache-arrow)\//.test(input))) heavy.push(fn.entry);
      // With the files it ships beside itself (the console function: the console's script and stylesheet).
      const bytes = built.bytes + fn.assets.reduce((sum, asset) => sum + statSync(path.join(root, asset)).size, 0);
      if (fn.kind === 'api' && bytes > 300 * 1024) oversized.push(`${fn.entry} ${bytes}`);
    }
    expect(heavy.sort()).toEqual(['functions/ingest/write-batch.ts', 'functions/jobs/run.ts']);
    expect(oversized).toEqual([]);
  }, 120_000);

  it('load at start only the AWS SDK clients their declared access needs', async () => {
    const excess: string[] = [];
    const loadedBy = new Map<string, string[]>();
    for (const [index, fn] of allFunctions().entries()) {
      const built = await bundle(fn, path.join(directory, `start-${index}`));
      const { clients } = coldStart(built.outfile);
      loadedBy.set(fn.name, clients);
      const extra = clients.filter((client) => !allowedClients(fn).includes(client));
      if (extra.length > 0) excess.push(`${fn.name}: ${extra.join(', ')}`);
    }
    expect(excess).toEqual([]);
    // The check sees what it claims to: a reader of the table does load the DynamoDB client,
    // and public routes load none.
    expect(loadedBy.get('GET /api/tenants')).toEqual(['client-dynamodb']);
    expect(loadedBy.get('POST /api/ingest/{source_id}')).toEqual(['client-dynamodb', 'client-sqs']);
    expect(loadedBy.get('GET /live')).toEqual([]);
    expect(loadedBy.get('GET /openapi.json')).toEqual([]);
  }, 240_000);

  it('ships parquet-wasm beside the bundles that load it, so they initialise as deployed', async () => {
    const writer = allFunctions().find((fn) => fn.entry === 'functions/ingest/write-batch.ts');
    if (!writer) throw new Error('no writer');
    const built = await bundle(writer, path.join(directory, 'writer'));
    const { execFileSync } = await import('node:child_process');
    const output = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(`file://${built.outfile}`)}); console.log(typeof m.handler);`,
      ],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        encoding: 'utf8',
      },
    );
    expect(output.trim()).toBe('function');
  }, 60_000);
});
