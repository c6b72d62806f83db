/**
 * The synthesised assembly as Lambda runs it: every function's asset folder copied alone to a
 * directory outside the repository, its handler loaded as the template names it, with the
 * template's environment (lib/deployed-functions.ts); every function built from its declaration;
 * and what esbuild said of each bundle it built for the assembly.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DeployedFunction, deployedFunctions, initialiseEachAlone } from '#lib/deployed-functions.ts';
import { clientsAtStart } from '#lib/function-bundles.ts';
import { allFunctions, type FunctionDeclaration } from '#lib/functions.ts';
import { type BundleFacts, synthesizedDefaultApp } from './app.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

let functions: DeployedFunction[];
/** Each declared function with what esbuild said of its bundle. */
let built: { fn: FunctionDeclaration; bundle: BundleFacts }[];
beforeAll(async () => {
  const app = await synthesizedDefaultApp();
  functions = deployedFunctions(app.assembly as string);
  const byEntry = new Map(app.bundles.map((bundle) => [bundle.source.entry, bundle]));
  built = allFunctions().map((fn) => ({ fn, bundle: byEntry.get(fn.entry) as BundleFacts }));
});

/** CDK's custom resource framework function (the bootstrap key installer's provider): CDK's code, which uses the runtime's SDK. */
const cdkFramework = (fn: DeployedFunction) => fn.declared === undefined && fn.handler === 'framework.onEvent';

describe('the synthesised assembly, loaded as Lambda loads it', () => {
  it('has Tributary’s functions and, beside them, only CDK’s custom resource framework', () => {
    expect(functions.filter((fn) => fn.declared === undefined).map((fn) => fn.handler)).toEqual(['framework.onEvent']);
    expect(functions.filter((fn) => fn.declared).length).toBe(allFunctions().length);
  });

  it('loads every function from its own asset folder alone, with the template’s handler and environment', async () => {
    const ours = functions.filter((fn) => !cdkFramework(fn));
    const results = await initialiseEachAlone(ours);
    const failed = ours.flatMap((fn, index) =>
      results[index]?.error ? [`${fn.declared?.name ?? fn.logicalId}: ${results[index]?.error}`] : [],
    );
    expect(failed).toEqual([]);
  }, 300_000);

  it('builds every function of every kind from its declaration: memory, timeout, reserved concurrency, and the files it reads beside it', () => {
    const deployed = new Map(
      functions.flatMap((fn) => (fn.declared ? [[`${fn.declared.kind} ${fn.declared.name}`, fn]] : [])),
    );
    for (const declaration of allFunctions()) {
      const fn = deployed.get(`${declaration.kind} ${declaration.name}`);
      const { settings } = declaration;
      expect({
        name: declaration.name,
        entry: fn?.declared?.entry,
        runtime: fn?.runtime,
        handler: fn?.handler,
        memoryMb: fn?.memoryMb,
        timeoutSeconds: fn?.timeoutSeconds,
        reservedConcurrency: fn?.reservedConcurrency,
        assets: (settings.assets ?? []).filter((asset) =>
          existsSync(path.join(fn?.assetDirectory ?? '', path.basename(asset))),
        ),
      }).toEqual({
        name: declaration.name,
        entry: declaration.entry,
        runtime: 'nodejs22.x',
        handler: 'index.handler',
        memoryMb: settings.memoryMb ?? 512,
        timeoutSeconds: settings.timeoutSeconds ?? 10,
        reservedConcurrency: settings.reservedConcurrency,
        assets: settings.assets ?? [],
      });
    }
  });
});

/** The SDK clients a function may load when it starts: only those its declared access needs. */
function allowedClients({ access }: FunctionDeclaration): string[] {
  return [
    ...(access.table || access.recordsKeyUse ? ['client-dynamodb'] : []),
    ...(Object.keys(access.queues ?? {}).length > 0 ? ['client-sqs'] : []),
    ...(access.platformBucket || access.tenantStores ? ['client-s3'] : []),
    ...(access.tenantStores ? ['client-sts'] : []),
    ...(access.secretsKey || access.bootstrapKey || access.cursorKey || access.dashboardTool
      ? ['client-secrets-manager']
      : []),
  ];
}

describe('the bundles', () => {
  it('are one per declared function', () => {
    expect(built.filter(({ bundle }) => !bundle).map(({ fn }) => fn.name)).toEqual([]);
    expect(built.map(({ fn }) => fn.entry)).toContain('functions/platform/install-bootstrap-key.ts');
  });

  it('carry the AWS SDK inside: none leaves a module for the runtime to provide, even one required only later', () => {
    const outside = built.flatMap(({ fn, bundle }) => bundle.external.map((module) => `${fn.name}: ${module}`));
    expect(outside).toEqual([]);
    // The check sees what it claims to: a reader of the table carries the DynamoDB client's code.
    const tenants = built.find(({ fn }) => fn.name === 'GET /api/tenants')?.bundle;
    expect(Object.keys(tenants?.inputs ?? {}).some((input) => input.includes('@aws-sdk/client-dynamodb/'))).toBe(true);
  });

  it('load apache-arrow and parquet-wasm in the batch writer, the table committer, the table-commits schedule and the job runner only, and keep API functions under 320 KB beside the SDK (the catalog’s table load 400 KB)', () => {
    const heavy = built
      .filter(({ bundle }) =>
        Object.keys(bundle.inputs).some((input) => /node_modules\/(parquet-wasm|apache-arrow)\//.test(input)),
      )
      .map(({ fn }) => fn.entry);
    // With the files it ships beside itself (the console function: the console's script and stylesheet).
    const shipped = ({ fn, bundle }: (typeof built)[number]) =>
      bundle.bytesBesideSdk +
      (fn.settings.assets ?? []).reduce((sum, asset) => sum + statSync(path.join(root, asset)).size, 0);
    // The Iceberg catalog's table load brings the table's Iceberg metadata up to date first (CONTRACT 5a):
    // it reads the Delta log and writes Avro, so it carries both libraries, within 400 KB.
    // Every other API function within 320 KB (300 before envelopes kept headers: zod's record schema in the shared code).
    const budget = (entry: string) => (entry === 'functions/iceberg/load-table.ts' ? 400 : 320) * 1024;
    const oversized = built
      .filter((one) => one.fn.kind === 'api' && shipped(one) > budget(one.fn.entry))
      .map((one) => `${one.fn.entry} ${shipped(one)}`);
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
    const edgeless = built
      .map(({ fn }) => fn.entry)
      .filter((entry) => {
        const exported = /^export const handler = (\w+)\(/m.exec(readFileSync(path.join(root, entry), 'utf8'));
        return !exported || !edges.includes(exported[1] as string);
      });
    expect(edgeless).toEqual([]);
  });

  it('load at start only the AWS SDK clients their declared access needs', () => {
    const excess = built.flatMap(({ fn, bundle }) => {
      const extra = clientsAtStart(bundle).filter((client) => !allowedClients(fn).includes(client));
      return extra.length > 0 ? [`${fn.name}: ${extra.join(', ')}`] : [];
    });
    expect(excess).toEqual([]);
    // The check sees what it claims to: a reader of the table does load the DynamoDB client, the
    // ingest route that one only (its queue calls go through its own client), and public routes none.
    const clients = (name: string) => clientsAtStart(built.find(({ fn }) => fn.name === name)?.bundle as BundleFacts);
    expect(clients('GET /api/tenants')).toEqual(['client-dynamodb']);
    expect(clients('POST /api/ingest/{source_id}')).toEqual(['client-dynamodb']);
    expect(clients('POST /api/jobs')).toEqual(['client-dynamodb', 'client-sqs']);
    expect(clients('bootstrap-key-installer')).toEqual(['client-dynamodb', 'client-secrets-manager']);
    expect(clients('GET /live')).toEqual([]);
    expect(clients('GET /openapi.json')).toEqual([]);
  });
});
