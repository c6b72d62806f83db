/**
 * `npm run bench cost`: what a million 1 KB webhook events cost on AWS, from the calls Tributary
 * really makes. It runs local mode in this process (the same runtime, front and pollers as `npm start`,
 * each function's handler loaded from its source so that the meter sees it), set up as the stack deploys it (memory, log levels, tracing and batching read from the
 * synthesised stack), sends a bounded stream of events, and counts what AWS would bill:
 *   - every AWS SDK request, through a middleware on every client (bench/cost-meter.ts): DynamoDB
 *     consumed capacity, SQS requests in 64 KB chunks, S3 requests by class;
 *   - every function invocation with its CPU time, scaled to the CPU its deployed memory buys, plus
 *     AWS's latency for each call it waits on (bench/aws-prices.ts states those latencies);
 *   - log bytes each invocation writes at the deployed log level, the platform's records when the
 *     system log level keeps them, and API Gateway's access log line;
 *   - X-Ray traces at the default sampling rule, where active tracing is on.
 * The deployment is read by bench/deployment.ts, the line items priced by bench/cost-pricing.ts at the
 * prices of bench/aws-prices.ts (dated). It prints the line items per million events for each
 * scenario, the fixed monthly cost, and last, one line per scenario in a fixed form for scripts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultTableConfig } from '#delta/kernel/table-config.ts';
import { receiptsHeldAtMostMs, writerLifetimeMs } from '#shared/domain/ingest/staging.ts';
import { consumers, schedules, stagedObjectDays } from '#shared/topology.ts';
import { freePorts } from '../local/free-port.ts';
import { prices } from './aws-prices.ts';
import { type CommitFigures, type CommitRule, simulateCommits } from './commit-model.ts';
import {
  type CommitUnits,
  callDollars,
  commitEntry,
  commitItems,
  commitLine,
  deliveryDollars,
  fixedMonthly,
  functionDollars,
  isRecordCall,
  isTriggerCall,
  ownCpuMs,
  passDollars,
  price,
  refusalDollars,
  type Scenario,
  type StagingUnits,
  scheduleEntries,
  stagingLines,
} from './cost-pricing.ts';
import { type Deployed, ingestEntry, ingestRoute, readDeployment } from './deployment.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '..');
register(new URL('./cost-hooks.mjs', import.meta.url), {
  data: {
    root: pathToFileURL(`${repositoryRoot}/`).href,
    meterUrl: new URL('./cost-meter.ts', import.meta.url).href,
  },
});
const meter = await import('./cost-meter.ts');
type Invocation = import('./cost-meter.ts').Invocation;
type Reading = import('./cost-meter.ts').Reading;

// --- Local mode, in this process, set up as deployed.

/**
 * Each function's code loaded from its source (functions/<entry>.ts) rather than from its bundle: a
 * bundle carries an AWS SDK of its own, which the meter's middleware (on this process's SDK) never
 * sees, and a handler the import hook never wraps, so nothing of it would be metered. The sources
 * share one SDK client per module across functions, so every function signs as local mode's own
 * identity rather than its role's (a client keeps the first credentials it reads): the bench
 * meters calls; IAM is the suite's to check.
 */
async function runFunctionsFromSources(): Promise<void> {
  const { LocalLambda } = await import('../local/lambda-function.ts');
  const { inScope } = await import('../local/lambda-sandbox.ts');
  const { localCredentials } = await import('../local/stand-ins.ts');
  type Handler = (event: unknown, context: unknown) => Promise<unknown>;
  type Environment = Promise<{ handler: Handler; env: Record<string, string> }>;
  const lambda = LocalLambda.prototype as unknown as {
    environment(this: unknown): Environment;
  };
  const fromBundle = lambda.environment;
  lambda.environment = function environment(this: {
    fn: { declared: { entry?: string } | null };
    env: Record<string, string>;
    instance: Environment | null;
  }) {
    const entry = this.fn.declared?.entry;
    if (!entry) return fromBundle.call(this);
    if (!this.instance) {
      const env = {
        ...this.env,
        AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      };
      const url = pathToFileURL(path.join(repositoryRoot, entry)).href;
      this.instance = inScope({ env }, () => import(url)).then((module: { handler: Handler }) => ({
        handler: module.handler,
        env,
      }));
    }
    return this.instance;
  };
}

/** Local mode in this process, set up as the cost bench measures it unless `options` say otherwise. */
export async function startLocal(
  deployment: ReturnType<typeof readDeployment>,
  options: { settings?: Record<string, unknown>; env?: Record<string, string> } = {},
) {
  const { startStandIns } = await import('../local/stand-ins.ts');
  const { ensureBuckets, ensureQueues, ensureTable, resolveAdminKey, resolveSecretsKey } = await import(
    '../local/provision.ts'
  );
  const { handlerEnvironment, startRuntime } = await import('../local/runtime.ts');
  const { readLocalSettings } = await import('../local/settings.ts');
  const { displayPrefix, hashToken } = await import('#shared/domain/tokens.ts');

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-cost-'));
  const ingest = deployment.functions.get(ingestEntry) as Deployed;
  const writer = consumers['ingest-writer'];
  const [port, dynamodbPort, s3Port, sqsPort] = (await freePorts(4)) as [number, number, number, number];
  const settings = {
    ...readLocalSettings({}),
    port,
    dataDir,
    dynamodbPort,
    s3Port,
    sqsPort,
    // Time to send a deployed window's requests one by one (runScenario); records stay invisible
    // to other receives for longer than that, as on AWS, where the queue hides them for minutes.
    batchWindowSeconds: Math.max(writer.maxBatchingWindowSeconds, 5),
    visibilityTimeoutSeconds: 120,
    scheduleSecondsOverride: 10,
    // One poller per queue, so that a window's envelopes make one batch (AWS may split them among pollers).
    pollersPerConsumer: 1,
    logLevel: ingest.logLevel,
    ...options.settings,
  };
  const standIns = await startStandIns({
    dataDir,
    dynamodbPort: settings.dynamodbPort,
    s3Port: settings.s3Port,
    sqsPort: settings.sqsPort,
  });
  await ensureTable(standIns.endpoints.dynamodb, settings.tableName);
  const queueUrls = await ensureQueues(standIns.endpoints.sqs, '', settings.visibilityTimeoutSeconds);
  await ensureBuckets(standIns.endpoints.s3, [settings.platformBucket, ...settings.buckets]);
  const env = {
    ...handlerEnvironment(settings, standIns.endpoints, queueUrls),
    SECRETS_KEY: resolveSecretsKey(dataDir, undefined),
    // As deployed: metrics are published (EMF lines are log bytes), logs at the deployed level.
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_LOG_LEVEL: ingest.logLevel,
    // No table comes due during the bench (the writer's triggers arrive after it): the bench commits
    // everything staged itself, metered apart (commitPass), and delivers triggers of its own to the
    // committer (deliverTriggers). 30 minutes outlasts the bench, and keeps the receipts for the
    // commit as the default target does (longer ones are raised at staging).
    TABLE_FRESHNESS_SECONDS: String(receiptsHeldAtMostMs / 1000),
    ...options.env,
  };
  Object.assign(process.env, env);
  const admin = resolveAdminKey(dataDir);
  const { installBootstrapKey } = await import('#shared/adapters/dynamo/api-keys.ts');
  await installBootstrapKey(hashToken(admin.key), displayPrefix(admin.key));
  // Every function on this thread, from its source, where the meter sees each invocation.
  await runFunctionsFromSources();
  const runtime = await startRuntime(settings, env, queueUrls, { functions: 'this-thread', bootstrapKey: admin.key });
  const { SQSClient, GetQueueAttributesCommand, SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const sqs = new SQSClient({});
  const depth = async (queueUrl: string) => {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
    );
  };
  return {
    url: runtime.url,
    /** Envelopes on the ingest queue, visible or being written. */
    ingestQueueDepth: () => depth(queueUrls.ingest),
    /**
     * A commit trigger for each table, arriving now, as the writer's arrive: the committer (the
     * runtime's own) takes them; resolves once it has.
     */
    async deliverTriggers(tableIds: string[]) {
      const at = Date.now();
      for (let i = 0; i < tableIds.length; i += 10)
        await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrls.commits,
            Entries: tableIds.slice(i, i + 10).map((tableId, index) => ({
              Id: String(index),
              MessageBody: JSON.stringify({ data_set_id: tableId, at }),
            })),
          }),
        );
      const deadline = Date.now() + 120_000;
      while ((await depth(queueUrls.commits)) > 0) {
        if (Date.now() > deadline) throw new Error('The committer did not take the triggers within 120 s');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    /**
     * One table-commits invocation that commits everything staged, as a graceful stop's does, given the
     * time a stop's run has (on a loaded machine a pass of 40 tables can take more than 10 s).
     */
    async commitPass(timeoutMs = (schedules['table-commits'].runsAtStop?.timeoutSeconds ?? 300) * 1000) {
      const { handler } = (await import(pathToFileURL(path.join(repositoryRoot, commitEntry)).href)) as {
        handler: (event: unknown, context: unknown) => Promise<unknown>;
      };
      await handler({ detail: { stopping: true } }, lambdaContextFor('table-commits', timeoutMs));
    },
    adminKey: admin.key,
    s3Endpoint: standIns.endpoints.s3,
    /** Of these staged objects (platform bucket keys), those no longer there. */
    async removedObjects(keys: string[]): Promise<Set<string>> {
      const { HeadObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
      const s3 = new S3Client({ endpoint: standIns.endpoints.s3, forcePathStyle: true });
      const removed = new Set<string>();
      try {
        for (const key of keys) {
          const found = await meter.unmetered(() =>
            s3.send(new HeadObjectCommand({ Bucket: settings.platformBucket, Key: key })).then(
              () => true,
              (error: Error) => {
                if (error.name === 'NotFound' || error.name === 'NoSuchKey') return false;
                throw error;
              },
            ),
          );
          if (!found) removed.add(key);
        }
      } finally {
        s3.destroy();
      }
      return removed;
    },
    /** The front, pollers and schedules; the stand-ins stay. */
    async stopRuntime() {
      sqs.destroy();
      await runtime.stop();
    },
    async stop() {
      await standIns.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Local = Awaited<ReturnType<typeof startLocal>>;

async function call(local: Local, method: string, route: string, body?: unknown) {
  const response = await fetch(`${local.url}${route}`, {
    method,
    headers: { 'x-api-key': local.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // A refusal stops the bench: a tenant left without its store would measure 422s, not ingest.
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, string>;
}

export async function createTenant(local: Local): Promise<string> {
  const tenant = await call(local, 'POST', '/api/tenants', { name: `cost ${Date.now()}` });
  await call(local, 'POST', `/api/tenants/${tenant.tenant_id}/register-object-store`, {
    name: 'cost',
    // A place of its own: tenants' stores never overlap (the deployment refuses a second store there).
    base_url: `s3://demo-bucket/cost-${tenant.tenant_id}`,
    options: { endpoint: local.s3Endpoint },
  });
  return tenant.tenant_id as string;
}

/** A webhook connection, of a tenant of its own unless one is given. */
export async function createWebhook(local: Local, tenantId?: string) {
  const tenant = tenantId ?? (await createTenant(local));
  const connection = await call(local, 'POST', `/api/tenants/${tenant}/connections`, {
    type: 'Webhook',
    name: 'cost',
  });
  return connection as { source_id: string; ingest_token: string; data_set_id: string };
}

async function rowsIn(local: Local, dataSetId: string): Promise<number> {
  const response = await fetch(`${local.url}/api/data-sets/${dataSetId}/files`, {
    headers: { 'x-api-key': local.adminKey },
  });
  const listing = (await response.json()) as { files?: { num_records: number }[] };
  return (listing.files ?? []).reduce((sum, file) => sum + file.num_records, 0);
}

/** A 1 KB JSON event; `count` of them in one body are a JSON array. */
function bodyOf(count: number): string {
  const event = (i: number) => {
    const head = JSON.stringify({ id: `evt_${i}`, type: 'order.updated', data: { n: i, note: '' } });
    return head.replace('"note":""', `"note":"${'x'.repeat(1024 - head.length)}"`);
  };
  return count === 1 ? event(0) : `[${Array.from({ length: count }, (_, i) => event(i)).join(',')}]`;
}

export async function idleCpuPerMs(): Promise<number> {
  const cpu = process.cpuUsage();
  const from = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / (performance.now() - from);
}

/**
 * Steady traffic, one writer batching window at a time: each window's requests (rate × the deployed
 * window) are sent one at a time, as each Lambda instance receives them (so no request shares a
 * queue send or the CPU with another), then the writer's batch is awaited before the next window
 * starts. The local batching window is long enough for that on a slow machine, so a batch holds what
 * one deployed window of that traffic holds on AWS; the report says the batches it got.
 */
async function runScenario(local: Local, scenario: Scenario, windowSeconds: number) {
  const hook = await createWebhook(local);
  const body = bodyOf(scenario.eventsPerRequest);
  const perWindow = Math.max(1, Math.round(scenario.ratePerSecond * windowSeconds));
  const backgroundCpuPerMs = await idleCpuPerMs();
  meter.take();
  let sent = 0;
  let refused = 0;
  while (sent < scenario.requests) {
    const target = Math.min(scenario.requests, sent + perWindow);
    const sender = async () => {
      while (sent < target) {
        sent++;
        const response = await fetch(`${local.url}/api/ingest/${hook.source_id}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${hook.ingest_token}`, 'content-type': 'application/json' },
          body,
        });
        await response.arrayBuffer();
        if (response.status !== 202) refused++;
      }
    };
    await sender();
    if (refused > 0) throw new Error(`${scenario.name}: ${refused} requests were not answered 202`);
    await untilStaged(local, scenario.name);
  }
  // Staged, not committed: the commit passes are measured apart (measureCommits).
  return { reading: meter.take(), backgroundCpuPerMs, hook, body };
}

/**
 * Until the writer has staged what was sent and its records are deleted (asking the queue, not the
 * API, so that no other function runs beside the writer).
 */
async function untilStaged(local: Local, what: string) {
  const deadline = Date.now() + 180_000;
  let depth = -1;
  while (depth !== 0) {
    if (Date.now() > deadline) throw new Error(`${what}: ${depth} envelopes still queued after 180 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    depth = await meter.unmetered(() => local.ingestQueueDepth());
  }
}

async function expectRows(local: Local, dataSetId: string, expected: number, what: string) {
  const rows = await meter.unmetered(() => rowsIn(local, dataSetId));
  if (rows !== expected) throw new Error(`${what}: ${rows} rows in the table for ${expected} requests`);
}

/** Tables of the sparse measurement: one writer batch holds one envelope of each. */
const sparseTables = 40;

/** One commit pass, metered apart: its reading (the bench prices its own pass with passDollars). */
async function meteredPass(local: Local): Promise<Reading> {
  meter.take();
  await local.commitPass();
  return meter.take();
}

/** The S3 calls a reading made on tables' Iceberg metadata (`<table>/metadata/`). */
const metadataCalls = (reading: Reading) =>
  reading.invocations
    .flatMap((inv) => inv.calls)
    .filter((call) => call.service === 'S3' && call.objectKey.includes('/metadata/'));
/** The DynamoDB calls a reading made on the Iceberg sync marks (pk ICEBERG). */
const icebergEntityCalls = (reading: Reading) =>
  reading.invocations.flatMap((inv) => inv.calls).filter((call) => call.entity === 'ICEBERG').length;

/** Sets the tables' last Iceberg sync one sync interval and a second back, as a quiet table's commit finds it. */
export async function ageIcebergSyncs(tableIds: string[]) {
  const { getDataSet, recordDataSetIceberg } = await import('#shared/adapters/dynamo/data-sets.ts');
  const { icebergSyncIntervalMs } = await import('#shared/domain/datasets/iceberg.ts');
  const long = new Date(Date.now() - icebergSyncIntervalMs - 1000).toISOString();
  for (const id of tableIds) {
    const iceberg = (await getDataSet(id))?.iceberg;
    if (!iceberg) throw new Error(`sparse: table ${id} has no Iceberg state after its first commits`);
    await recordDataSetIceberg(id, { ...iceberg, synced_at: long });
  }
}

/**
 * Runs `work` with the commit path's Iceberg step doing nothing in this process (local mode runs every
 * function here): no sync, no mark, and no due table found by the schedule's catch-up.
 */
async function icebergOff<T>(work: () => Promise<T>): Promise<T> {
  const { stagingDeps } = await import('#functions/ingest/wiring.ts');
  const { icebergCatchUpDeps } = await import('#shared/adapters/iceberg-tables.ts');
  const kept = {
    mirrorLatest: stagingDeps.mirrorLatest,
    recordIceberg: stagingDeps.recordIceberg,
    markIcebergDue: stagingDeps.markIcebergDue,
    dueIcebergSyncs: icebergCatchUpDeps.dueIcebergSyncs,
  };
  stagingDeps.mirrorLatest = () => Promise.reject(new Error('Iceberg is off in this measurement'));
  stagingDeps.recordIceberg = async () => {};
  stagingDeps.markIcebergDue = async () => {};
  icebergCatchUpDeps.dueIcebergSyncs = async () => [];
  try {
    return await work();
  } finally {
    Object.assign(stagingDeps, {
      mirrorLatest: kept.mirrorLatest,
      recordIceberg: kept.recordIceberg,
      markIcebergDue: kept.markIcebergDue,
    });
    icebergCatchUpDeps.dueIcebergSyncs = kept.dueIcebergSyncs;
  }
}

/**
 * What sparse traffic costs the writer and a quiet table's commit, from batches of one envelope for
 * each of `sparseTables` connections (a writer batch holds that many tables at sparse traffic):
 *  1. `triggered`: the first batch; each table is sent a commit trigger and listed as pending. A pass
 *     commits it (the tables exist from then on, as they do for a connection's every commit but its
 *     first).
 *  2. `relisted`: a batch whose tables this writer's triggers still cover (they arrive after the
 *     freshness target), committed meanwhile: each table's head read, and the table listed again.
 *  3. `ingest`: the next batch, its tables listed and their triggers on their way, as most of a
 *     sparse table's batches are: each head read, nothing listed. Its writer is the scenario's; what
 *     the writer spent over it in 2 is its time listing the tables, priced with each trigger.
 *  4. `pass`: a pass after one more batch, committing one envelope of each table.
 *  5. `delivered`: a trigger for each table, as it arrives at a committer with nothing left to commit:
 *     what a trigger's delivery costs (the queue's receive and delete, the committer's invocation and
 *     its reads).
 */
async function measureSparse(local: Local) {
  // The connections of one tenant, as `npm run bench zipf` sends; quiet connections of many tenants add a
  // tenant read per request whose tenant an ingest instance has not cached (0.5 RRU, $0.06 per million).
  const tenantId = await meter.unmetered(() => createTenant(local));
  const hooks: Awaited<ReturnType<typeof createWebhook>>[] = [];
  for (let i = 0; i < sparseTables; i++) hooks.push(await meter.unmetered(() => createWebhook(local, tenantId)));
  const body = bodyOf(1);
  const sendEach = async (to: typeof hooks) => {
    for (const hook of to) {
      const response = await fetch(`${local.url}/api/ingest/${hook.source_id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hook.ingest_token}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 202) throw new Error(`sparse: a request was answered ${response.status}`);
    }
    await untilStaged(local, 'sparse');
  };
  const sendOneEach = () => sendEach(hooks);
  const background = await idleCpuPerMs();
  meter.take();
  await sendOneEach();
  const triggered = meter.take();
  await meteredPass(local);
  meter.take();
  await sendOneEach();
  const relisted = meter.take();
  await sendOneEach();
  const ingest = meter.take();
  await meteredPass(local);
  await sendOneEach();
  // A quiet table's commit comes minutes after its last (at least the freshness target after it), so
  // it finds its Iceberg metadata last synced longer than the sync interval ago and syncs it itself:
  // the tables' last syncs are set that far back (the bench's passes are seconds apart).
  await meter.unmetered(() => ageIcebergSyncs(hooks.map((hook) => hook.data_set_id)));
  const pass = await meteredPass(local);
  for (const hook of hooks) await expectRows(local, hook.data_set_id, 4, 'sparse');
  meter.take();
  await local.deliverTriggers(hooks.map((hook) => hook.data_set_id));
  const delivered = meter.take();

  // The same commit without Iceberg: the tables' metadata is left as it is (their last sync is recent and
  // nothing is marked due), and the schedule's catch-up finds nothing due. `pass` less this is what the
  // Iceberg side costs a quiet table's commit.
  await sendOneEach();
  const withoutIceberg = await icebergOff(() => meteredPass(local));
  for (const hook of hooks) await expectRows(local, hook.data_set_id, 5, 'sparse');
  if (metadataCalls(withoutIceberg).length > 0 || icebergEntityCalls(withoutIceberg) > 0)
    throw new Error('sparse: the commit without Iceberg touched Iceberg metadata');
  if (metadataCalls(pass).filter((call) => call.s3Class === 'put').length < sparseTables)
    throw new Error('sparse: a quiet table committed without syncing its Iceberg metadata');

  // A commit writes a checkpoint every `delta.checkpointInterval` versions: one table committed until
  // one does (three Delta log PUTs instead of one), the commit before it its baseline.
  const one = hooks.slice(0, 1);
  const puts = (reading: Reading) =>
    reading.invocations
      .flatMap((inv) => inv.calls)
      .filter((call) => call.s3Class === 'put' && call.objectKey.includes('/_delta_log/')).length;
  let plain: Reading | null = null;
  let checkpointed: Reading | null = null;
  for (let round = 0; round <= defaultTableConfig.checkpointInterval && !checkpointed; round++) {
    await sendEach(one);
    const reading = await meteredPass(local);
    if (puts(reading) > 1) checkpointed = reading;
    else plain = reading;
  }
  if (!plain || !checkpointed) throw new Error('sparse: no commit wrote a checkpoint');
  return {
    background,
    triggered,
    relisted,
    ingest,
    pass,
    withoutIceberg,
    plain,
    checkpointed,
    delivered,
    hook: hooks[0] as (typeof hooks)[number],
    body,
  };
}

/**
 * The ingest handler's own CPU per request: the same handler invoked here one request at a time once
 * the runtime has stopped (no poller, timer or batch write shares the CPU), onto a queue of its own.
 */
async function replayIngest(hook: { source_id: string; ingest_token: string }, body: string, count: number) {
  const { handler } = (await import(pathToFileURL(path.join(repositoryRoot, ingestEntry)).href)) as {
    handler: (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
  };
  const { SQSClient, CreateQueueCommand } = await import('@aws-sdk/client-sqs');
  const sqs = new SQSClient({});
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `cost-replay-${Date.now()}` }))).QueueUrl;
  sqs.destroy();
  const consumedQueue = process.env.INGEST_QUEUE_URL;
  process.env.INGEST_QUEUE_URL = queueUrl;
  const event = () => ingestEvent(hook.source_id, hook.ingest_token, body);
  try {
    for (let i = 0; i < 20; i++) await handler(event(), lambdaContextFor('replay'));
    const cpu = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const result = await handler(event(), lambdaContextFor('replay'));
      if (result.statusCode !== 202) throw new Error(`The replayed request was answered ${result.statusCode}`);
    }
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000 / count;
  } finally {
    process.env.INGEST_QUEUE_URL = consumedQueue;
    meter.take();
  }
}

/** An ingest request as API Gateway hands it to the function. */
function ingestEvent(sourceId: string, token: string, body: string) {
  return {
    version: '2.0',
    routeKey: ingestRoute,
    rawPath: `/api/ingest/${sourceId}`,
    rawQueryString: '',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      host: '127.0.0.1',
    },
    pathParameters: { source_id: sourceId },
    requestContext: {
      // As API Gateway sends it: the host the request came to (the ingest URL a sender signs is built from it).
      domainName: '127.0.0.1',
      requestId: randomUUID(),
      http: {
        method: 'POST',
        path: `/api/ingest/${sourceId}`,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'cost',
      },
    },
    body,
    isBase64Encoded: false,
  };
}

/**
 * What refused webhooks cost, as a flood sends them: `count` requests for one unknown source, and
 * `count` with a wrong token for a known one, each kind replayed through the ingest handler (metered:
 * its CPU, its calls, its log lines) once the runtime has stopped.
 */
async function replayRefusals(
  deployment: ReturnType<typeof readDeployment>,
  hook: { source_id: string },
  count: number,
) {
  const { handler } = (await import(pathToFileURL(path.join(repositoryRoot, ingestEntry)).href)) as {
    handler: (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
  };
  const wrongToken = `trb_ing_${'A'.repeat(43)}`;
  const kinds = [
    { name: 'unknown source', status: 404, event: (id: string) => ingestEvent(id, wrongToken, '{"a":1}') },
    { name: 'wrong token', status: 401, event: () => ingestEvent(hook.source_id, wrongToken, '{"a":1}') },
  ];
  const unknownSource = randomUUID();
  const priced = [];
  for (const kind of kinds) {
    meter.take();
    for (let i = 0; i < count; i++) {
      const result = await handler(kind.event(unknownSource), lambdaContextFor('refusals'));
      if (result.statusCode !== kind.status)
        throw new Error(`A refused request (${kind.name}) was answered ${result.statusCode}`);
    }
    priced.push({ name: kind.name, ...refusalDollars(deployment, meter.take()) });
  }
  return priced;
}

function lambdaContextFor(name: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  return {
    functionName: name,
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => until - Date.now(),
    callbackWaitsForEmptyEventLoop: true,
    memoryLimitInMB: '512',
  };
}

// --- Report.

const money = (dollars: number) => (dollars >= 0.1 ? dollars.toFixed(2) : dollars.toFixed(3));

export async function benchCost(): Promise<string> {
  const out: string[] = [];
  const row = (...cells: (string | number)[]) => out.push(`| ${cells.join(' | ')} |`);
  const deployment = readDeployment();
  const requests = Number(process.env.BENCH_COST_REQUESTS ?? 1000);
  const sparseConnections = Number(process.env.BENCH_COST_CONNECTIONS ?? 1000);
  const scenarios: Scenario[] = [
    { name: '1 per request', eventsPerRequest: 1, requests, ratePerSecond: 20 },
    {
      name: '100 per request',
      eventsPerRequest: 100,
      requests: Math.max(10, Math.round(requests / 20)),
      ratePerSecond: 2,
    },
  ];
  const windowSeconds = consumers['ingest-writer'].maxBatchingWindowSeconds;
  const { defaultCounterFlushSeconds, defaultFreshnessSeconds } = await import('#shared/config.ts');
  const { stagedSizeTargetBytes } = await import('#shared/domain/ingest/staging.ts');
  const rule: CommitRule = {
    freshnessSeconds: Number(process.env.BENCH_COST_FRESHNESS_SECONDS ?? defaultFreshnessSeconds),
    sizeTargetBytes: stagedSizeTargetBytes,
    writerLifetimeSeconds: writerLifetimeMs / 1000,
    maxTriggerDelaySeconds: 900,
    windowSeconds,
    doorFlushSeconds: defaultCounterFlushSeconds,
  };
  const local = await startLocal(deployment);
  const results: {
    scenario: Scenario;
    priced: ReturnType<typeof price>;
    figures: CommitFigures;
    units: CommitUnits;
  }[] = [];
  const scheduleRuns: Invocation[] = [];
  const scheduleCpu = new Map<Invocation, number>();
  let single = 0;
  let singleWithoutIceberg = 0;
  let perArrival = 0;
  let stagingUnits: StagingUnits = { perRecord: 0, perTrigger: 0 };
  let quietCommit: { item: string; count: number; dollars: number }[] = [];
  let refusals: Awaited<ReturnType<typeof replayRefusals>> = [];
  const perRead = prices.s3.getPerThousand / 1000;
  const stagedReads = (reading: Reading) =>
    reading.invocations
      .filter((inv) => inv.entry === commitEntry)
      .flatMap((inv) => inv.calls)
      .filter((call) => call.s3Class === 'get' && call.entity === 'staging').length;
  /** The staged objects a reading's writer put. */
  const stagedKeysOf = (reading: Reading) =>
    [...reading.invocations.flatMap((inv) => inv.calls), ...reading.outside]
      .filter((call) => call.service === 'S3' && call.entity === 'staging' && call.storedBytes > 0)
      .map((call) => call.objectKey);
  try {
    const sparseRun = await measureSparse(local);
    // What the sparse tables' commits left of their staged objects (several tables' slices each).
    const sparseRemoved = await local.removedObjects(stagedKeysOf(sparseRun.ingest));
    // The writer's first batch of the sparse tables: a record and a trigger (with its listing) each.
    const writerCalls = sparseRun.triggered.invocations
      .filter((inv) => inv.entry === consumers['ingest-writer'].entry)
      .flatMap((inv) => inv.calls);
    const writerEntry = consumers['ingest-writer'].entry;
    const writerDollars = (reading: Reading) =>
      functionDollars(deployment, reading, writerEntry, ownCpuMs(reading.invocations, sparseRun.background, 0));
    const listing = Math.max(0, writerDollars(sparseRun.relisted) - writerDollars(sparseRun.ingest)) / sparseTables;
    stagingUnits = {
      perRecord: callDollars(writerCalls.filter(isRecordCall)) / sparseTables,
      perTrigger: callDollars(writerCalls.filter(isTriggerCall)) / sparseTables + listing,
    };
    perArrival = deliveryDollars(
      deployment,
      sparseRun.delivered,
      ownCpuMs(sparseRun.delivered.invocations, sparseRun.background, 0),
      sparseTables,
    );
    single =
      (passDollars(deployment, sparseRun.pass, ownCpuMs(sparseRun.pass.invocations, sparseRun.background, 0)) -
        stagedReads(sparseRun.pass) * perRead) /
      sparseTables;
    // A checkpoint's share of each commit: what the commit that wrote one paid over the one before it.
    const passOf = (reading: Reading) =>
      passDollars(deployment, reading, ownCpuMs(reading.invocations, sparseRun.background, 0));
    const checkpoint =
      Math.max(0, passOf(sparseRun.checkpointed) - passOf(sparseRun.plain)) / defaultTableConfig.checkpointInterval;
    single += checkpoint;
    singleWithoutIceberg =
      (passDollars(
        deployment,
        sparseRun.withoutIceberg,
        ownCpuMs(sparseRun.withoutIceberg.invocations, sparseRun.background, 0),
      ) -
        stagedReads(sparseRun.withoutIceberg) * perRead) /
        sparseTables +
      checkpoint;
    quietCommit = commitItems(
      deployment,
      sparseRun.pass,
      ownCpuMs(sparseRun.pass.invocations, sparseRun.background, 0),
      sparseTables,
    );
    quietCommit.push({
      item: `A checkpoint every ${defaultTableConfig.checkpointInterval} versions ($${money(checkpoint * defaultTableConfig.checkpointInterval * 1e6)} per million checkpoints)`,
      count: 1 / defaultTableConfig.checkpointInterval,
      dollars: checkpoint,
    });
    const runs = [];
    for (const scenario of scenarios) {
      const run = await runScenario(local, scenario, windowSeconds);
      // The scenario's table committed: everything it staged, many slices and rows in one commit.
      const pass = await meteredPass(local);
      await expectRows(local, run.hook.data_set_id, scenario.requests, scenario.name);
      const removed = await local.removedObjects(stagedKeysOf(run.reading));
      const dollars = passDollars(deployment, pass, ownCpuMs(pass.invocations, run.backgroundCpuPerMs, 0));
      const perRow = Math.max(0, (dollars - single - stagedReads(pass) * perRead) / (scenario.requests - 1));
      runs.push({ ...run, scenario, removed, units: { single, perRead, perRow, perArrival } });
    }
    await local.stopRuntime();

    const sparse: Scenario = {
      name: `sparse: ${sparseConnections.toLocaleString('en')} connections, Zipf 1.0`,
      eventsPerRequest: 1,
      requests: sparseTables,
      ratePerSecond: 20,
    };
    const all = [
      ...runs,
      {
        scenario: sparse,
        reading: sparseRun.ingest,
        backgroundCpuPerMs: sparseRun.background,
        hook: sparseRun.hook,
        body: sparseRun.body,
        removed: sparseRemoved,
        // Rows of 1 KB, as the first scenario's.
        units: (runs[0] as (typeof runs)[number]).units,
      },
    ];
    for (const { scenario, reading, backgroundCpuPerMs, hook, body, units, removed } of all) {
      const ingestCpuMs = await replayIngest(hook, body, scenario.eventsPerRequest === 1 ? 300 : 60);
      const own = ownCpuMs(reading.invocations, backgroundCpuPerMs, ingestCpuMs);
      for (const inv of reading.invocations.filter((inv) => scheduleEntries.has(inv.entry))) {
        scheduleRuns.push(inv);
        scheduleCpu.set(inv, own.get(inv) ?? 0);
      }
      const figures = simulateCommits(
        {
          connections: scenario === sparse ? sparseConnections : 1,
          eventsPerSecond: scenario.ratePerSecond,
          exponent: 1,
          eventBytes: 1024 * scenario.eventsPerRequest,
        },
        rule,
      );
      results.push({
        scenario,
        figures,
        units,
        priced: price(
          deployment,
          scenario,
          { reading, own },
          commitLine(units, figures, scenario.eventsPerRequest),
          stagingLines(stagingUnits, figures, scenario.eventsPerRequest),
          { keys: removed, afterSeconds: figures.maxWaitSeconds },
        ),
      });
    }
    refusals = await replayRefusals(deployment, sparseRun.hook, 300);
  } finally {
    await local.stop();
  }
  const ingest = deployment.functions.get(ingestEntry) as Deployed;
  out.push(
    `### Cost on AWS, measured through local mode (us-east-1 prices as of ${prices.asOf})`,
    '',
    `As deployed: ingest function ${ingest.memoryMb} MB, log level ${ingest.logLevel}, system log level ${ingest.systemLogLevel}, ` +
      `active tracing ${ingest.tracing ? 'on' : 'off'}; writer batching window ${windowSeconds} s; ` +
      `tables committed when their oldest staged envelope is ${rule.freshnessSeconds} s old, each by its own commit trigger.`,
    '',
    `Every line but the commits and the writer's records and triggers is measured on the scenario's own traffic. Commits are ` +
      `measured apart (a quiet table's commit of one envelope: $${(single * 1e6).toFixed(1)} per million; what each further envelope adds, ` +
      `from the commit of the scenario's own table; a trigger's arrival at a committer: $${(perArrival * 1e6).toFixed(2)} per million), and how many ` +
      `commits, records (one per table and writer batch) and triggers a scenario makes is simulated over a day of its traffic under the ` +
      `same rule (bench/commit-model.ts), each priced at what the writer's batches of the sparse tables paid for it (a trigger: its requests, and the writer's time listing its table).`,
    '',
  );
  for (const { scenario, priced, figures } of results) {
    const shape = scenario.name.startsWith('sparse')
      ? `${figures.activeConnections.toLocaleString('en')} connections sending 20 requests/s in all at Zipf(1.0) rates; the ingest side measured on a batch of one request from each of ${sparseTables} connections`
      : `${priced.events.toLocaleString('en')} events in ${scenario.requests.toLocaleString('en')} requests, as steady traffic of ${scenario.ratePerSecond} requests/s (~${Math.round(priced.batchSize)} requests per writer batch)`;
    out.push(`#### 1 KB events, ${scenario.name}: ${shape}`, '');
    row('line item', 'measured', '$ per million events');
    row('---', '---', '---:');
    for (const line of priced.lines) row(line.item, line.detail, money(line.dollars));
    row('**total**', '', `**${money(priced.total)}**`);
    out.push('', 'DynamoDB by what the request touched (key prefix), commits not included:', '');
    row('entity', 'requests/event', 'WRU/event', 'RRU/event', '$ per million events');
    row('---', '---:', '---:', '---:', '---:');
    for (const [entity, use] of [...priced.byEntity].sort((a, b) => b[1].wru - a[1].wru)) {
      row(
        entity,
        (use.requests / priced.events).toFixed(4),
        (use.wru / priced.events).toFixed(4),
        (use.rru / priced.events).toFixed(4),
        money(
          (use.wru / priced.events) * prices.dynamoDb.writeUnitsPerMillion +
            (use.rru / priced.events) * prices.dynamoDb.readUnitsPerMillion,
        ),
      );
    }
    out.push(
      '',
      `Commits: ${figures.commitsPerEvent.toFixed(4)} per request, ${figures.rowsPerFile.toFixed(1)} rows per file, ` +
        `an envelope waits at most ${Math.round(figures.maxWaitSeconds)} s for its commit (simulated day).`,
      '',
      `Storage: ${(priced.storedBytesPerMillion / 1024 ** 3).toFixed(2)} GB written to S3 per million events before compaction ` +
        `($${money((priced.storedBytesPerMillion / 1024 ** 3) * prices.s3.storagePerGbMonth)} a month for as long as they are kept; claim checks are deleted once committed, staged batches once committed (one table's) or after ${stagedObjectDays} days, priced above).`,
      '',
    );
  }
  if (quietCommit.length > 0) {
    out.push(
      `#### A quiet table's commit, line by line (${sparseTables} tables of one envelope each committed by one pass, per table)`,
      '',
    );
    row('item', 'per commit', '$ per million commits');
    row('---', '---:', '---:');
    for (const line of quietCommit) row(line.item, line.count.toFixed(3), money(line.dollars * 1e6));
    row('**total**', '', `**${money(quietCommit.reduce((sum, line) => sum + line.dollars, 0) * 1e6)}**`);
    out.push(
      '',
      `The same commit without Iceberg (the commit path's Iceberg step doing nothing, measured on the next commit of the same tables): ` +
        `$${(singleWithoutIceberg * 1e6).toFixed(1)} per million. A quiet table commits minutes apart (at least the freshness target), ` +
        `so each of its commits finds its last sync older than the sync interval and syncs the metadata itself.`,
      '',
    );
  }
  // What the Iceberg side would cost at longer sync intervals than the contract's lag allows (10 minutes at
  // most behind the Delta version). A table committing less often than its interval syncs at every commit,
  // whatever is batched: the objects of a snapshot (manifest, manifest list, metadata file, version hint)
  // are what a change costs. One committing more often syncs once per interval, through the schedule.
  const sparseResultForSyncs = results.find(({ scenario }) => scenario.name.startsWith('sparse'));
  if (singleWithoutIceberg > 0 && sparseResultForSyncs) {
    // A sync through the schedule also writes its mark, reads the data set and deletes the mark.
    const markAndClear = (2 * prices.dynamoDb.writeUnitsPerMillion + prices.dynamoDb.readUnitsPerMillion) / 1e6;
    const perSync = single - singleWithoutIceberg;
    const freshness = rule.freshnessSeconds;
    // The sparse connections' rates (Zipf 1.0), each committing one freshness target after its next event.
    const harmonic = Array.from({ length: sparseConnections }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0);
    const commitRates = Array.from(
      { length: sparseConnections },
      (_, k) => 1 / (freshness + (harmonic * (k + 1)) / 20),
    );
    const commitsPerSecond = commitRates.reduce((a, b) => a + b, 0);
    const sparseWithout =
      sparseResultForSyncs.priced.total -
      commitLine(sparseResultForSyncs.units, sparseResultForSyncs.figures, 1).dollars +
      commitLine({ ...sparseResultForSyncs.units, single: singleWithoutIceberg }, sparseResultForSyncs.figures, 1)
        .dollars;
    out.push(
      '#### The Iceberg side at other sync intervals (the contract allows 10 minutes of lag; the deployed interval is 5)',
      '',
      `A sync costs $${(perSync * 1e6).toFixed(1)} per million (measured above: the quiet commit with Iceberg less without), ` +
        `$${((perSync + markAndClear) * 1e6).toFixed(1)} through the schedule (its mark, the data set read, the mark deleted). ` +
        `A quiet table's commits are at least ${freshness} s apart (its freshness target); the sparse connections commit ${commitsPerSecond.toFixed(2)} times a second in all.`,
      '',
    );
    row(
      'sync interval',
      'syncs per quiet commit',
      'quiet commit, $ per million (vs without)',
      'syncs per sparse commit',
      'sparse, $ per million events',
    );
    row('---', '---:', '---:', '---:', '---:');
    for (const interval of [300, 600, 1800, 3600, 7200, 10800, 14400]) {
      const quietSyncs = Math.min(1, freshness / interval);
      const quiet = singleWithoutIceberg + quietSyncs * (perSync + (quietSyncs < 1 ? markAndClear : 0));
      const sparseSyncs = commitRates.reduce((sum, rate) => sum + Math.min(rate, 1 / interval), 0) / commitsPerSecond;
      const scheduled =
        commitRates.reduce((sum, rate) => sum + (rate > 1 / interval ? 1 / interval : 0), 0) / commitsPerSecond;
      const sparse =
        sparseWithout +
        sparseResultForSyncs.figures.commitsPerEvent * (sparseSyncs * perSync + scheduled * markAndClear) * 1e6;
      row(
        `${interval / 60} min${interval === 300 ? ' (deployed)' : ''}`,
        quietSyncs.toFixed(3),
        `${(quiet * 1e6).toFixed(2)} (+${((quiet / singleWithoutIceberg - 1) * 100).toFixed(1)} %)`,
        sparseSyncs.toFixed(3),
        money(sparse),
      );
    }
    out.push('');
  }
  // The freshness target trades how soon rows reach the table for what quiet connections cost.
  const sparseResult = results.find(({ scenario }) => scenario.name.startsWith('sparse'));
  if (sparseResult) {
    // What does not depend on the target: everything but the commits and the writer's records and triggers.
    const dependent = sparseResult.priced.lines.slice(-3).reduce((sum, line) => sum + line.dollars, 0);
    const without = sparseResult.priced.total - dependent;
    out.push(`#### The sparse scenario at other freshness targets (table property \`tributary.freshness\`)`, '');
    row('freshness target', 'commits/event', 'rows/file', 'longest wait for a commit', '$ per million events');
    row('---', '---:', '---:', '---:', '---:');
    for (const freshnessSeconds of [60, 300, 600, 900, 1800]) {
      const figures = simulateCommits(
        { connections: sparseConnections, eventsPerSecond: 20, exponent: 1, eventBytes: 1024 },
        { ...rule, freshnessSeconds },
      );
      row(
        `${freshnessSeconds} s${freshnessSeconds === rule.freshnessSeconds ? ' (default)' : ''}`,
        figures.commitsPerEvent.toFixed(4),
        figures.rowsPerFile.toFixed(1),
        `${Math.round(figures.maxWaitSeconds)} s`,
        money(
          without +
            commitLine(sparseResult.units, figures, 1).dollars +
            stagingLines(stagingUnits, figures, 1).reduce((sum, line) => sum + line.dollars, 0),
        ),
      );
    }
    out.push('');
  }
  if (refusals.length > 0) {
    out.push(
      '#### A million refused webhooks (a flood of one unknown source, or of one wrong token)',
      '',
      'An unknown source is read once per cache window (INGEST_CACHE_SECONDS) however often it is sent; a wrong token for a known source is kept as a rejection of that source (a write, capped per source).',
      '',
    );
    row('refusal', 'DynamoDB requests/request', 'ms billed/request', 'log bytes/request', '$ per million requests');
    row('---', '---:', '---:', '---:', '---:');
    for (const refusal of refusals)
      row(
        refusal.name,
        refusal.dynamoRequests.toFixed(4),
        refusal.billedMs.toFixed(1),
        Math.round(refusal.logBytes),
        money(refusal.perMillion),
      );
    out.push('');
  }
  const fixed = fixedMonthly(deployment, scheduleRuns, scheduleCpu);
  out.push('#### Fixed monthly cost, whatever the traffic', '');
  row('item', 'what', '$ per month');
  row('---', '---', '---:');
  for (const line of fixed.lines) row(line.item, line.detail, money(line.dollars));
  row('**total**', '', `**${money(fixed.total)}**`);
  out.push(
    '',
    'Not included: DynamoDB point-in-time recovery ($0.20 per GB of table a month), log storage after ingestion, free tiers.',
    '',
  );
  for (const refusal of refusals)
    out.push(`cost per million refused requests, ${refusal.name}: $${refusal.perMillion.toFixed(2)}`);
  if (singleWithoutIceberg > 0)
    out.push(
      `cost per million quiet-table commits: $${(single * 1e6).toFixed(2)} with Iceberg, $${(singleWithoutIceberg * 1e6).toFixed(2)} without ` +
        `(${single >= singleWithoutIceberg ? '+' : ''}${((single / singleWithoutIceberg - 1) * 100).toFixed(1)} %)`,
    );
  for (const { scenario, priced, figures, units } of results) {
    const withoutIceberg =
      priced.total -
      commitLine(units, figures, scenario.eventsPerRequest).dollars +
      commitLine({ ...units, single: singleWithoutIceberg }, figures, scenario.eventsPerRequest).dollars;
    out.push(
      `cost per million 1 KB events, ${scenario.name}: $${priced.total.toFixed(2)} (without Iceberg $${withoutIceberg.toFixed(2)}) ` +
        `(${(figures.commitsPerEvent / scenario.eventsPerRequest).toFixed(4)} commits/event, ${figures.rowsPerFile.toFixed(1)} rows/file)`,
    );
  }
  return out.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await benchCost();
  meter.print(`${report}\n`);
  process.exit(0);
}
