import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunctions, type FunctionBundle, type Initialisation, initialiseBundles } from '#lib/function-bundles.ts';
import { allFunctions, type FunctionEntry } from '#lib/functions.ts';
import { buildConsole } from '../../console/build.ts';

// Inside the repository, so that the external AWS SDK resolves from node_modules as it does from the Lambda runtime.
const root = path.resolve(import.meta.dirname, '..', '..');
mkdirSync(path.join(root, '.bench'), { recursive: true });
const directory = mkdtempSync(path.join(root, '.bench', 'test-bundles-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The SDK clients a function may load when it starts: only those its declared access needs. */
function allowedClients(fn: FunctionEntry): string[] {
  const { access } = fn;
  return [
    ...(access.table || fn.authenticated ? ['client-dynamodb'] : []),
    ...(Object.keys(access.queues ?? {}).length > 0 ? ['client-sqs'] : []),
    ...(access.platformBucket || access.tenantStores ? ['client-s3'] : []),
    ...(access.tenantStores ? ['client-sts'] : []),
    ...(access.secretsKey || access.bootstrapKey || access.cursorKey ? ['client-secrets-manager'] : []),
  ];
}

let bundles: FunctionBundle[];
let started: Map<string, Initialisation>;
beforeAll(async () => {
  // The console function ships the console's built script and stylesheet, as the stack builds them at synth.
  buildConsole();
  bundles = await bundleFunctions(allFunctions(), directory);
  const initialised = initialiseBundles(bundles.map((built) => built.outfile));
  started = new Map(bundles.map((built, index) => [built.fn.name, initialised[index] as Initialisation]));
}, 180_000);

describe('function bundles', () => {
  it('bundle every function of the stack', () => {
    expect(bundles.map((built) => built.fn.entry)).toContain('functions/platform/install-bootstrap-key.ts');
    expect(bundles.length).toBeGreaterThan(70);
  });

  it('load apache-arrow and parquet-wasm in the batch writer, the table committer, the table-commits schedule and the job runner only, and keep API functions under 300 KB', () => {
    const heavy = bundles
      .filter((built) => built.inputs.some((input) => /node_modules\/(parquet-wasm|apache-arrow)\//.test(input)))
      .map((built) => built.fn.entry);
    // With the files it ships beside itself (the console function: the console's script and stylesheet).
    const shipped = (built: FunctionBundle) =>
      built.bytes + built.fn.assets.reduce((sum, asset) => sum + statSync(path.join(root, asset)).size, 0);
    const oversized = bundles
      .filter((built) => built.fn.kind === 'api' && shipped(built) > 300 * 1024)
      .map((built) => `${built.fn.entry} ${shipped(built)}`);
    expect(heavy.sort()).toEqual([
      'functions/ingest/commit-staged.ts',
      'functions/ingest/commit-tables.ts',
      'functions/ingest/write-batch.ts',
      'functions/jobs/run.ts',
    ]);
    expect(oversized).toEqual([]);
  });

  it('go through an edge, every one: the handler each entry exports is made by one of the edge makers', () => {
    const edges = [
      'apiHandler',
      'httpEdge',
      'recordHandler',
      'batchHandler',
      'scheduledHandler',
      'customResourceHandler',
      'secretRotationHandler',
    ];
    const edgeless = bundles
      .map((built) => built.fn.entry)
      .filter((entry) => {
        const exported = /^export const handler = (\w+)\(/m.exec(readFileSync(path.join(root, entry), 'utf8'));
        return !exported || !edges.includes(exported[1] as string);
      });
    expect(edgeless).toEqual([]);
  });

  it('initialise as deployed, assets beside them (parquet-wasm for the writer and the runner)', () => {
    const failed = [...started].filter(([, start]) => start.error).map(([name, start]) => `${name}: ${start.error}`);
    expect(failed).toEqual([]);
  });

  it('load at start only the AWS SDK clients their declared access needs', () => {
    const excess = bundles.flatMap((built) => {
      const extra = (started.get(built.fn.name)?.clients ?? []).filter(
        (client) => !allowedClients(built.fn).includes(client),
      );
      return extra.length > 0 ? [`${built.fn.name}: ${extra.join(', ')}`] : [];
    });
    expect(excess).toEqual([]);
    // The check sees what it claims to: a reader of the table does load the DynamoDB client, the
    // ingest route that one only (its queue calls go through its own client), and public routes none.
    expect(started.get('GET /api/tenants')?.clients).toEqual(['client-dynamodb']);
    expect(started.get('POST /api/ingest/{source_id}')?.clients).toEqual(['client-dynamodb']);
    expect(started.get('POST /api/jobs')?.clients).toEqual(['client-dynamodb', 'client-sqs']);
    expect(started.get('bootstrap-key-installer')?.clients).toEqual(['client-dynamodb', 'client-secrets-manager']);
    expect(started.get('GET /live')?.clients).toEqual([]);
    expect(started.get('GET /openapi.json')?.clients).toEqual([]);
  });
});
