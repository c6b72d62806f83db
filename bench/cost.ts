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
 * Prices come from bench/aws-prices.ts (dated). It prints the line items per million events for each
 * scenario, the fixed monthly cost, and last, one line per scenario in a fixed form for scripts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, type Stack } from 'aws-cdk-lib';
import { CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { CfnAlarm, CfnDashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnKey } from 'aws-cdk-lib/aws-kms';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { defaultTableProperties } from '#delta/properties.ts';
import { tributary } from '#lib/app.ts';
import { receiptsHeldAtMostMs, writerLifetimeMs } from '#shared/domain/ingest/staging.ts';
import { type MetricSpec, metricCatalogue } from '#shared/domain/observability/metric-catalogue.ts';
import { routes } from '#shared/routes.ts';
import { consumers, schedules, stagedObjectDays } from '#shared/topology.ts';
import { freePorts } from '../local/free-port.ts';
import { assumptions, prices } from './aws-prices.ts';
import { type CommitFigures, type CommitRule, simulateCommits } from './commit-model.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '..');
register(new URL('./cost-hooks.mjs', import.meta.url), {
  data: {
    root: pathToFileURL(`${repositoryRoot}/`).href,
    meterUrl: new URL('./cost-meter.ts', import.meta.url).href,
  },
});
const meter = await import('./cost-meter.ts');
type MeteredCall = import('./cost-meter.ts').MeteredCall;
type Invocation = import('./cost-meter.ts').Invocation;
type Reading = import('./cost-meter.ts').Reading;

const ingestEntry = 'functions/ingest/accept.ts';
/** The pass the bench runs to commit everything staged (the table-commits function at a graceful stop). */
const commitEntry = schedules['table-commits'].entry;
/** The function that commits a table when its trigger arrives. */
const committerEntry = consumers['table-committer'].entry;
/** The pass's own search of the index of pending tables: a committer, sent its tables by triggers, makes none. */
const ownSearch = (call: MeteredCall) => call.entity === 'PENDING';
/** What the writer sends for each table it stages whose trigger is not already on its way: the trigger, and the table listed as pending. */
const isTriggerCall = (call: MeteredCall) =>
  (call.service === 'SQS' && call.operation === 'SendMessageBatch' && call.entity === 'commits') ||
  (call.service === 'DynamoDB' && call.operation === 'UpdateItem' && call.entity === 'STAGE');
/** A record of a table's slice of a staged batch. */
const isRecordCall = (call: MeteredCall) =>
  call.service === 'DynamoDB' && call.operation === 'BatchWriteItem' && call.entity === 'STAGE';
const ingestRoute = Object.entries(routes).find(([, spec]) => spec.entry === ingestEntry)?.[0] as string;
const scheduleEntries = new Set(Object.values(schedules).map((schedule) => schedule.entry));
/** The functions every event passes through (or may: the dead-letter recorder). */
const pathEntries = new Set([
  ingestEntry,
  ...Object.values(consumers)
    .filter((c) => c.queue.startsWith('ingest'))
    .map((c) => c.entry),
]);

// --- The deployment, as the stack synthesises it.

export interface Deployed {
  memoryMb: number;
  tracing: boolean;
  systemLogLevel: string;
  logLevel: string;
}

function cfnFunctionOf(construct: IConstruct | undefined): CfnFunction {
  const child = construct?.node.defaultChild;
  if (!(child instanceof CfnFunction)) throw new Error(`No function at ${construct?.node.path}`);
  return child;
}

function deployedSettings(fn: CfnFunction): Deployed {
  const logging = (fn.loggingConfig ?? {}) as CfnFunction.LoggingConfigProperty;
  const variables = ((fn.environment as CfnFunction.EnvironmentProperty | undefined)?.variables ?? {}) as Record<
    string,
    string
  >;
  return {
    memoryMb: Number(fn.memorySize ?? 128),
    tracing: (fn.tracingConfig as CfnFunction.TracingConfigProperty | undefined)?.mode === 'Active',
    systemLogLevel: logging.systemLogLevel ?? 'INFO',
    logLevel: variables.POWERTOOLS_LOG_LEVEL ?? logging.applicationLogLevel ?? 'INFO',
  };
}

function all<T>(stacks: Stack[], type: abstract new (...args: never[]) => T): T[] {
  return stacks.flatMap((stack) => stack.node.findAll().filter((node): node is T & IConstruct => node instanceof type));
}

export function readDeployment() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const { stateful, stateless } = tributary(app);
  const functions = new Map<string, Deployed>();
  for (const fn of stateless.functions) functions.set(fn.declaration.entry, deployedSettings(cfnFunctionOf(fn)));
  // findAll walks nested stacks too: they are constructs of the stateless stack.
  const stacks = [stateful, stateless];
  const alarmMetrics = all(stacks, CfnAlarm).reduce((sum, alarm) => {
    const metrics = alarm.metrics as CfnAlarm.MetricDataQueryProperty[] | undefined;
    return sum + (metrics ? metrics.filter((metric) => metric.metricStat).length : 1);
  }, 0);
  const stage = all(stacks, CfnStage)[0];
  const accessLogFormat = (stage?.accessLogSettings as CfnStage.AccessLogSettingsProperty | undefined)?.format ?? null;
  return {
    functions,
    alarmMetrics,
    dashboards: all(stacks, CfnDashboard).length,
    secrets: all(stacks, CfnSecret).length,
    keys: all(stacks, CfnKey).length,
    accessLogFormat,
  };
}

/** An access log line as API Gateway writes it, with typical values in the deployed format. */
function accessLogBytes(format: string | null): number {
  if (!format) return 0;
  const sample: Record<string, string> = {
    requestId: 'Jx3lUhGnoAMEVxg=',
    'identity.sourceIp': '192.0.2.10',
    requestTime: '23/Nov/2026:10:00:00 +0000',
    httpMethod: 'POST',
    routeKey: ingestRoute,
    resourcePath: ingestRoute.split(' ')[1] as string,
    path: '/api/ingest/3f1c7a52-3f4e-4d8e-9a51-2b6c1c0f9e77',
    status: '202',
    protocol: 'HTTP/1.1',
    responseLength: '52',
    'integration.latency': '9',
    'integration.status': '202',
    responseLatency: '12',
  };
  const line = format.replace(/\$context\.([A-Za-z.]+)/g, (_, name: string) => sample[name] ?? '-');
  return Buffer.byteLength(line) + 1;
}

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
  const admin = resolveAdminKey(dataDir, undefined);
  const { installBootstrapKey } = await import('#shared/adapters/dynamo/api-keys.ts');
  await installBootstrapKey(hashToken(admin.key), displayPrefix(admin.key));
  // Every function on this thread, from its source, where the meter sees each invocation.
  await runFunctionsFromSources();
  const runtime = await startRuntime(settings, env, queueUrls, { functions: 'this-thread' });
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
     * deployed function's time (on a loaded machine a pass of 40 tables can take more than 10 s).
     */
    async commitPass(timeoutMs = (schedules['table-commits'].function?.timeoutSeconds ?? 300) * 1000) {
      const { handler } = (await import(pathToFileURL(path.join(repositoryRoot, commitEntry)).href)) as {
        handler: (event: unknown, context: unknown) => Promise<unknown>;
      };
      await handler({ detail: { stopping: true } }, lambdaContextFor('table-commits', timeoutMs));
    },
    adminKey: admin.key,
    s3Endpoint: standIns.endpoints.s3,
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

interface Scenario {
  name: string;
  eventsPerRequest: number;
  requests: number;
  /** The steady traffic priced: requests per second, arriving one writer batching window at a time. */
  ratePerSecond: number;
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

/**
 * What a quiet table's commit costs: a batch of one envelope for each of `sparseTables` connections
 * is staged and committed twice, the second time measured (the tables exist then, as they do for a
 * connection's every commit but its first). Both rounds' ingest and writer are measured: the writer's
 * batch holds `sparseTables` tables, as it does at sparse traffic, each sent a commit trigger in the
 * first round and none in the second (the first round's are still on their way). Then a trigger for
 * each table, as it arrives at a committer with nothing left to commit: what a trigger's delivery
 * costs (the queue's receive and delete, the committer's invocation and its reads).
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
  const ingest = meter.take();
  const pass = await meteredPass(local);
  for (const hook of hooks) await expectRows(local, hook.data_set_id, 2, 'sparse');
  meter.take();
  await local.deliverTriggers(hooks.map((hook) => hook.data_set_id));
  const delivered = meter.take();

  // A commit writes a checkpoint every `delta.checkpointInterval` versions: one table committed until
  // one does (four PUTs instead of two), the commit before it its baseline.
  const one = hooks.slice(0, 1);
  const puts = (reading: Reading) =>
    reading.invocations.flatMap((inv) => inv.calls).filter((call) => call.s3Class === 'put').length;
  let plain: Reading | null = null;
  let checkpointed: Reading | null = null;
  for (let round = 0; round <= defaultTableProperties.checkpointInterval && !checkpointed; round++) {
    await sendEach(one);
    const reading = await meteredPass(local);
    if (puts(reading) > 2) checkpointed = reading;
    else plain = reading;
  }
  if (!plain || !checkpointed) throw new Error('sparse: no commit wrote a checkpoint');
  return {
    background,
    triggered,
    ingest,
    pass,
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
  const event = () => ({
    version: '2.0',
    routeKey: ingestRoute,
    rawPath: `/api/ingest/${hook.source_id}`,
    rawQueryString: '',
    headers: {
      authorization: `Bearer ${hook.ingest_token}`,
      'content-type': 'application/json',
      host: '127.0.0.1',
    },
    pathParameters: { source_id: hook.source_id },
    requestContext: {
      // As API Gateway sends it: the host the request came to (the ingest URL a sender signs is built from it).
      domainName: '127.0.0.1',
      requestId: randomUUID(),
      http: {
        method: 'POST',
        path: `/api/ingest/${hook.source_id}`,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'cost',
      },
    },
    body,
    isBase64Encoded: false,
  });
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

// --- Pricing.

function latencyOf(call: MeteredCall): number {
  const latency = assumptions.callLatencyMs;
  if (call.service === 'DynamoDB')
    return /^(Batch|Transact|Query|Scan)/.test(call.operation)
      ? (latency['DynamoDB batch'] as number)
      : (latency.DynamoDB as number);
  if (call.service === 'S3')
    return latency[call.s3Class === 'put' ? 'S3 put' : call.s3Class === 'get' ? 'S3 get' : 'S3 other'] as number;
  return latency[call.service] ?? 20;
}

/** How long an invocation waits on AWS: its calls at AWS's latency, overlapping as they did here. */
export function waitMs(calls: MeteredCall[]): number {
  const spans = calls.map((call) => [call.start, call.start + latencyOf(call)] as const).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of spans) {
    if (from >= end) {
      total += to - from;
      end = to;
    } else if (to > end) {
      total += to - end;
      end = to;
    }
  }
  return total;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

interface FunctionCost {
  entry: string;
  invocations: number;
  cpuMs: number;
  waitMs: number;
  billedMs: number;
  memoryMb: number;
  dollars: number;
  logBytes: number;
}

/**
 * The CPU an invocation used itself. This process runs the runtime and every function at once, so the
 * process CPU over an invocation also holds the pollers' and timers' share (measured at rest, per ms),
 * which is taken out, and that of any invocation of another function that started meanwhile (at its
 * typical CPU). The ingest handler's CPU is what it used invoked alone (replayIngest).
 */
export function ownCpuMs(
  everything: Invocation[],
  backgroundCpuPerMs: number,
  ingestCpuMs: number,
): Map<Invocation, number> {
  const raw = (inv: Invocation) =>
    inv.entry === ingestEntry ? ingestCpuMs : Math.max(0, inv.cpuMicros / 1000 - backgroundCpuPerMs * inv.wallMs);
  const byEntry = new Map<string, Invocation[]>();
  for (const inv of everything) byEntry.set(inv.entry, [...(byEntry.get(inv.entry) ?? []), inv]);
  const typical = new Map([...byEntry].map(([entry, list]) => [entry, median(list.map(raw))]));
  const own = new Map<Invocation, number>();
  for (const inv of everything) {
    const end = inv.startedAt + inv.wallMs;
    const theirs = everything
      .filter((other) => other.entry !== inv.entry && other.startedAt >= inv.startedAt && other.startedAt < end)
      .reduce((sum, other) => sum + (typical.get(other.entry) ?? 0), 0);
    own.set(inv, inv.entry === ingestEntry ? ingestCpuMs : Math.max(0, raw(inv) - theirs));
  }
  return own;
}

/**
 * Billed duration of each invocation: its own CPU time scaled to the share of a vCPU its memory buys,
 * plus what it waits on AWS.
 */
function lambdaCost(
  entry: string,
  invocations: Invocation[],
  deployed: Deployed,
  own: Map<Invocation, number>,
): FunctionCost {
  const scale = Math.max(1, assumptions.fullVcpuMemoryMb / deployed.memoryMb);
  let billedMs = 0;
  let cpuMs = 0;
  let wait = 0;
  for (const invocation of invocations) {
    const cpu = own.get(invocation) ?? 0;
    const waited = waitMs(invocation.calls);
    cpuMs += cpu;
    wait += waited;
    billedMs += Math.max(1, Math.ceil(cpu * scale + waited));
  }
  const gbSeconds = (billedMs / 1000) * (deployed.memoryMb / 1024);
  return {
    entry,
    invocations: invocations.length,
    cpuMs,
    waitMs: wait,
    billedMs,
    memoryMb: deployed.memoryMb,
    dollars: (invocations.length / 1e6) * prices.lambda.requestsPerMillion + gbSeconds * prices.lambda.perGbSecond,
    logBytes: invocations.reduce((sum, inv) => sum + inv.logBytes, 0),
  };
}

function sampledFraction(perSecond: number): number {
  if (perSecond <= 0) return 1;
  const reservoir = Math.min(1, prices.xRay.defaultReservoirPerSecond / perSecond);
  return reservoir + (1 - reservoir) * prices.xRay.defaultRate;
}

/** What a set of calls costs, in dollars (not per million). */
function callDollars(calls: MeteredCall[]): number {
  let dollars = 0;
  for (const call of calls) {
    dollars += (call.sqsRequests / 1e6) * prices.sqs.requestsPerMillion;
    dollars += (call.writeUnits / 1e6) * prices.dynamoDb.writeUnitsPerMillion;
    dollars += (call.readUnits / 1e6) * prices.dynamoDb.readUnitsPerMillion;
    if (call.s3Class === 'put') dollars += prices.s3.putPerThousand / 1000;
    if (call.s3Class === 'get') dollars += prices.s3.getPerThousand / 1000;
  }
  return dollars;
}

interface LineItem {
  item: string;
  detail: string;
  dollars: number;
}

function price(
  deployment: ReturnType<typeof readDeployment>,
  scenario: Scenario,
  run: { reading: Reading; own: Map<Invocation, number> },
  commits: LineItem,
  /** The writer's records and triggers, counted by the commit rule's simulation and priced per unit. */
  staging: LineItem[],
) {
  const events = scenario.requests * scenario.eventsPerRequest;
  const perMillion = 1e6 / events;
  const { reading } = run;
  const onPath = reading.invocations.filter((inv) => pathEntries.has(inv.entry));
  const { own } = run;
  const calls = [
    ...onPath.flatMap((inv) => inv.calls).filter((call) => !isTriggerCall(call) && !isRecordCall(call)),
    // Outside invocations: the event source mapping's receives that carried records and its deletes,
    // and anything a function's timers did.
    ...reading.outside.filter(
      (call) => call.service !== 'SQS' || call.operation !== 'ReceiveMessage' || call.messages > 0,
    ),
  ];
  const lines: LineItem[] = [];
  const per = (count: number) => (count * perMillion) / 1e6;
  const fmtPer = (count: number, unit: string) =>
    `${(count / events).toFixed(count / events < 0.1 ? 4 : 2)} ${unit}/event`;

  const ingestInvocations = onPath.filter((inv) => inv.entry === ingestEntry);
  const metered = ingestInvocations.reduce(
    (sum, inv) => sum + Math.max(1, Math.ceil(inv.requestBytes / prices.apiGateway.meteredBytes)),
    0,
  );
  lines.push({
    item: 'API Gateway HTTP API',
    detail: fmtPer(metered, 'requests'),
    dollars: per(metered) * prices.apiGateway.httpApiPerMillion,
  });

  const functionCosts: FunctionCost[] = [];
  for (const entry of pathEntries) {
    const invocations = onPath.filter((inv) => inv.entry === entry);
    if (invocations.length === 0) continue;
    const cost = lambdaCost(entry, invocations, deployment.functions.get(entry) as Deployed, own);
    functionCosts.push(cost);
    lines.push({
      item: `Lambda ${entry.replace(/^functions\//, '').replace(/\.ts$/, '')} (${cost.memoryMb} MB)`,
      detail: `${cost.invocations} invocations, ${(cost.cpuMs / cost.invocations).toFixed(2)} ms CPU + ${(cost.waitMs / cost.invocations).toFixed(1)} ms on AWS calls → ${(cost.billedMs / cost.invocations).toFixed(1)} ms billed each`,
      dollars: cost.dollars * perMillion,
    });
  }

  const sqs = calls.filter((call) => call.service === 'SQS');
  const sqsRequests = sqs.reduce((sum, call) => sum + call.sqsRequests, 0);
  const sqsByOp = new Map<string, number>();
  for (const call of sqs) sqsByOp.set(call.operation, (sqsByOp.get(call.operation) ?? 0) + call.sqsRequests);
  lines.push({
    item: 'SQS',
    detail: `${fmtPer(sqsRequests, 'requests')} (${[...sqsByOp].map(([op, n]) => `${op} ${(n / events).toFixed(3)}`).join(', ')})`,
    dollars: per(sqsRequests) * prices.sqs.requestsPerMillion,
  });

  const dynamo = calls.filter((call) => call.service === 'DynamoDB');
  const wru = dynamo.reduce((sum, call) => sum + call.writeUnits, 0);
  const rru = dynamo.reduce((sum, call) => sum + call.readUnits, 0);
  lines.push({
    item: 'DynamoDB',
    detail: `${(wru / events).toFixed(4)} WRU + ${(rru / events).toFixed(4)} RRU per event, ${(dynamo.length / events).toFixed(3)} requests/event`,
    dollars: per(wru) * prices.dynamoDb.writeUnitsPerMillion + per(rru) * prices.dynamoDb.readUnitsPerMillion,
  });
  const byEntity = new Map<string, { wru: number; rru: number; requests: number }>();
  for (const call of dynamo) {
    const entity = byEntity.get(call.entity) ?? { wru: 0, rru: 0, requests: 0 };
    entity.wru += call.writeUnits;
    entity.rru += call.readUnits;
    entity.requests++;
    byEntity.set(call.entity, entity);
  }

  const s3 = calls.filter((call) => call.service === 'S3');
  const puts = s3.filter((call) => call.s3Class === 'put').length;
  const gets = s3.filter((call) => call.s3Class === 'get').length;
  lines.push({
    item: 'S3 requests',
    detail: `${fmtPer(puts, 'PUT/LIST')}, ${fmtPer(gets, 'GET')}`,
    dollars: per(puts) * (prices.s3.putPerThousand * 1000) + per(gets) * (prices.s3.getPerThousand * 1000),
  });

  for (const call of calls.filter((c) => !['SQS', 'DynamoDB', 'S3'].includes(c.service))) {
    lines.push({ item: call.service, detail: call.operation, dollars: 0 });
  }

  const appLogBytes = onPath.reduce((sum, inv) => sum + inv.logBytes, 0);
  const platformBytes = onPath.reduce((sum, inv) => {
    const level = (deployment.functions.get(inv.entry) as Deployed).systemLogLevel;
    return (
      sum +
      (level === 'WARN'
        ? 0
        : assumptions.platformRecords.reduce((bytes, record) => bytes + Buffer.byteLength(record) + 1, 0))
    );
  }, 0);
  const accessBytes = ingestInvocations.length * accessLogBytes(deployment.accessLogFormat);
  const logBytes = appLogBytes + platformBytes + accessBytes;
  lines.push({
    item: 'CloudWatch Logs',
    detail: `${Math.round(logBytes / events)} bytes/event: application ${Math.round(appLogBytes / events)}, platform ${Math.round(platformBytes / events)}, API access log ${Math.round(accessBytes / events)}`,
    dollars: (per(logBytes) * 1e6 * prices.cloudWatch.logsPerGb) / 1024 ** 3,
  });

  // X-Ray samples by rate: priced at the scenario's steady traffic, each function at its own rate.
  const seconds = scenario.requests / scenario.ratePerSecond;
  let traces = 0;
  for (const cost of functionCosts) {
    if (!(deployment.functions.get(cost.entry) as Deployed).tracing) continue;
    traces += cost.invocations * sampledFraction(cost.invocations / seconds);
  }
  lines.push({
    item: 'X-Ray',
    detail: traces === 0 ? 'active tracing off' : `${fmtPer(traces, 'traces')} at the default sampling rule`,
    dollars: per(traces) * prices.xRay.tracesRecordedPerMillion,
  });

  // Staged batches stay in the platform bucket until its lifecycle rule removes them.
  const stagedBytes = s3.filter((call) => call.entity === 'staging').reduce((sum, call) => sum + call.storedBytes, 0);
  const stagedGbMonths = ((per(stagedBytes) * 1e6) / 1024 ** 3) * (stagedObjectDays / 30.4);
  lines.push({
    item: `S3 storage of staged batches (${stagedObjectDays} days)`,
    detail: `${Math.round(stagedBytes / events)} bytes/event kept ${stagedObjectDays} days`,
    dollars: stagedGbMonths * prices.s3.storagePerGbMonth,
  });

  lines.push(...staging, commits);

  const stored = s3.filter((call) => call.entity !== 'staging').reduce((sum, call) => sum + call.storedBytes, 0);
  const writerRuns = onPath.filter((inv) => inv.entry === consumers['ingest-writer']?.entry);
  const writerInvocations = writerRuns.length;
  return {
    events,
    lines,
    total: lines.reduce((sum, line) => sum + line.dollars, 0),
    byEntity,
    storedBytesPerMillion: stored * perMillion,
    batchSize: writerInvocations ? scenario.requests / writerInvocations : 0,
    functionCosts,
  };
}

/**
 * The bench's own commit passes in a reading (the schedule's runs in the meantime find nothing due
 * and put nothing), without the pass's search of the index: a committer is sent its table.
 */
function passRuns(reading: Reading): Invocation[] {
  return reading.invocations
    .filter((inv) => inv.entry === commitEntry && inv.calls.some((call) => call.s3Class === 'put'))
    .map((inv) => ({ ...inv, calls: inv.calls.filter((call) => !ownSearch(call)) }));
}

/**
 * What a trigger's delivery costs, in dollars each: the committer's invocations in the reading (the
 * bench's own triggers, to tables with nothing left to commit), their calls, and the queue's receives
 * and deletes that carried them.
 */
function deliveryDollars(
  deployment: ReturnType<typeof readDeployment>,
  reading: Reading,
  own: Map<Invocation, number>,
  triggers: number,
): number {
  const runs = reading.invocations.filter((inv) => inv.entry === committerEntry);
  const queue = reading.outside.filter(
    (call) =>
      call.service === 'SQS' && call.entity === 'commits' && (call.operation !== 'ReceiveMessage' || call.messages > 0),
  );
  const deployed = deployment.functions.get(committerEntry) as Deployed;
  const logBytes = runs.reduce((sum, inv) => sum + inv.logBytes, 0);
  return (
    (lambdaCost(committerEntry, runs, deployed, own).dollars +
      callDollars([...runs.flatMap((inv) => inv.calls), ...queue]) +
      (logBytes / 1024 ** 3) * prices.cloudWatch.logsPerGb) /
    triggers
  );
}

/** What the bench's own commit passes in a reading cost: their invocations, calls and logs, in dollars. */
function passDollars(deployment: ReturnType<typeof readDeployment>, reading: Reading, own: Map<Invocation, number>) {
  // The schedule's own passes in the meantime find nothing due and put nothing.
  const runs = passRuns(reading);
  const deployed = deployment.functions.get(commitEntry) as Deployed;
  const logBytes = runs.reduce((sum, inv) => sum + inv.logBytes, 0);
  return (
    lambdaCost(commitEntry, runs, deployed, own).dollars +
    callDollars(runs.flatMap((inv) => inv.calls)) +
    (logBytes / 1024 ** 3) * prices.cloudWatch.logsPerGb
  );
}

/** A pass's cost per table committed, by item: the function's time and each kind of call. */
function commitItems(
  deployment: ReturnType<typeof readDeployment>,
  reading: Reading,
  own: Map<Invocation, number>,
  tables: number,
): { item: string; count: number; dollars: number }[] {
  const runs = passRuns(reading);
  const deployed = deployment.functions.get(commitEntry) as Deployed;
  const lambda = lambdaCost(commitEntry, runs, deployed, own);
  const items = new Map<string, { item: string; count: number; dollars: number }>();
  for (const call of runs.flatMap((inv) => inv.calls)) {
    const item = `${call.service} ${call.operation}${call.entity ? ` ${call.entity}` : ''}`;
    const line = items.get(item) ?? { item, count: 0, dollars: 0 };
    line.count += 1 / tables;
    line.dollars += callDollars([call]) / tables;
    items.set(item, line);
  }
  const logBytes = runs.reduce((sum, inv) => sum + inv.logBytes, 0);
  return [
    {
      item: `Lambda table-commits (${deployed.memoryMb} MB), ${Math.round(lambda.billedMs / Math.max(1, runs.length))} ms billed per pass`,
      count: runs.length / tables,
      dollars: lambda.dollars / tables,
    },
    ...[...items.values()].sort((a, b) => b.dollars - a.dollars),
    {
      item: `CloudWatch Logs, ${Math.round(logBytes / tables)} bytes`,
      count: 1,
      dollars: (logBytes / 1024 ** 3 / tables) * prices.cloudWatch.logsPerGb,
    },
  ];
}

/**
 * What a commit costs, from the measured passes: `single` is a commit of one envelope (a quiet
 * table's; with the one counter write raising its receipt), its staged object's read left out;
 * `perRow` what each further envelope adds (from the busy tables' commits); `perRead` a read of a
 * staged object (one GET; a pass reads each object it needs once).
 */
interface CommitUnits {
  single: number;
  perRow: number;
  perRead: number;
  /** A trigger's arrival at a committer: the queue's receive and delete, the invocation, its reads of the table. */
  perArrival: number;
}

/** What the writer pays per record of a table's slice, and per trigger sent (the table listed as pending). */
interface StagingUnits {
  perRecord: number;
  perTrigger: number;
}

/** The writer's staging lines of a scenario: records and triggers as the simulated day counts them. */
function stagingLines(units: StagingUnits, figures: CommitFigures, eventsPerRequest: number): LineItem[] {
  return [
    {
      item: 'Staged records (writer)',
      detail: `${figures.slicesPerEvent.toFixed(3)} per request (one per table and writer batch, a simulated day), $${(units.perRecord * 1e6).toFixed(2)} per million`,
      dollars: (figures.slicesPerEvent * units.perRecord * 1e6) / eventsPerRequest,
    },
    {
      item: 'Commit triggers (writer)',
      detail: `${figures.triggersPerEvent.toFixed(4)} per request (a simulated day), each with its table listed as pending, $${(units.perTrigger * 1e6).toFixed(2)} per million`,
      dollars: (figures.triggersPerEvent * units.perTrigger * 1e6) / eventsPerRequest,
    },
  ];
}

/** A counter write: the item and its by-source index (shared/adapters/dynamo/counters.ts). */
const counterWriteUnits = 2;

/** The commits line of a scenario: the commit rule simulated over a day of its traffic, priced per unit. */
function commitLine(units: CommitUnits, figures: CommitFigures, eventsPerRequest: number): LineItem {
  // The measured commit raised one receipt; a commit spanning more epochs raises more, and the door writes its own.
  const counterWrites = Math.max(0, figures.counterWritesPerEvent - figures.commitsPerEvent);
  const perEnvelope =
    figures.commitsPerEvent * units.single +
    (1 - figures.commitsPerEvent) * units.perRow +
    figures.batchReadsPerEvent * units.perRead +
    figures.arrivalsPerEvent * units.perArrival +
    (counterWrites * counterWriteUnits * prices.dynamoDb.writeUnitsPerMillion) / 1e6;
  return {
    item: 'Commits (table committer)',
    detail:
      `${figures.commitsPerEvent.toFixed(4)} commits, ${figures.arrivalsPerEvent.toFixed(3)} trigger arrivals ($${(units.perArrival * 1e6).toFixed(2)} per million), ${figures.batchReadsPerEvent.toFixed(3)} staged objects read and ` +
      `${figures.counterWritesPerEvent.toFixed(3)} counter writes (receipts raised, the door's own) per request, ` +
      `${Math.round(figures.rowsPerFile).toLocaleString('en')} rows per file (a simulated day); ` +
      `$${(units.single * 1e6).toFixed(1)} per million commits + $${(units.perRow * 1e6).toFixed(2)} per million rows`,
    dollars: (perEnvelope * 1e6) / eventsPerRequest,
  };
}

/** CloudWatch metrics the functions publish, one per metric and dimension value. */
function customMetricCount(): number {
  const dimensionValues: Record<string, number> = { status: 8 };
  return (Object.values(metricCatalogue) as MetricSpec[]).reduce(
    (sum, spec) =>
      sum +
      (spec.cloudWatch?.dimensions ?? []).reduce(
        (product, dimension) => product * (dimensionValues[dimension] ?? 1),
        1,
      ) *
        (spec.cloudWatch ? 1 : 0),
    0,
  );
}

function fixedMonthly(
  deployment: ReturnType<typeof readDeployment>,
  scheduleRuns: Invocation[],
  own: Map<Invocation, number>,
) {
  const lines: LineItem[] = [];
  lines.push({
    item: 'Secrets Manager',
    detail: `${deployment.secrets} secrets`,
    dollars: deployment.secrets * prices.secretsManager.secretPerMonth,
  });
  lines.push({
    item: 'KMS customer keys',
    detail: `${deployment.keys} keys`,
    dollars: deployment.keys * prices.kms.customerKeyPerMonth,
  });
  lines.push({
    item: 'CloudWatch alarms',
    detail: `${deployment.alarmMetrics} alarm metrics`,
    dollars: deployment.alarmMetrics * prices.cloudWatch.alarmMetricPerMonth,
  });
  lines.push({
    item: 'CloudWatch dashboard',
    detail: `${deployment.dashboards}`,
    dollars: deployment.dashboards * prices.cloudWatch.dashboardPerMonth,
  });
  const metrics = customMetricCount();
  lines.push({
    item: 'CloudWatch custom metrics (EMF)',
    detail: `~${metrics} metrics`,
    dollars: metrics * prices.cloudWatch.customMetricPerMonth,
  });
  const queues = Object.keys(consumers).length;
  const polls = queues * assumptions.idlePollsPerQueueMonth;
  lines.push({
    item: 'SQS polling by the event source mappings at rest',
    detail: `${queues} queues, ~${Math.round(polls / 1000)}k requests`,
    dollars: (polls / 1e6) * prices.sqs.requestsPerMillion,
  });
  for (const [name, schedule] of Object.entries(schedules)) {
    const runs = scheduleRuns.filter((inv) => inv.entry === schedule.entry);
    const deployed = deployment.functions.get(schedule.entry) as Deployed;
    const perMonth = (30.4 * 24 * 60) / schedule.everyMinutes;
    if (runs.length === 0) {
      lines.push({ item: `Schedule ${name}`, detail: 'not measured (no run during the bench)', dollars: 0 });
      continue;
    }
    const cost = lambdaCost(schedule.entry, runs, deployed, own);
    const calls = runs.flatMap((inv) => inv.calls);
    const dynamo =
      calls.reduce((sum, call) => sum + call.writeUnits, 0) * (prices.dynamoDb.writeUnitsPerMillion / 1e6) +
      calls.reduce((sum, call) => sum + call.readUnits, 0) * (prices.dynamoDb.readUnitsPerMillion / 1e6);
    const logs =
      ((runs.reduce((sum, inv) => sum + inv.logBytes, 0) +
        (deployed.systemLogLevel === 'WARN' ? 0 : runs.length * 360)) /
        1024 ** 3) *
      prices.cloudWatch.logsPerGb;
    lines.push({
      item: `Schedule ${name} (every ${schedule.everyMinutes} min)`,
      detail: `${(cost.billedMs / runs.length).toFixed(0)} ms billed, ${(calls.length / runs.length).toFixed(1)} calls per run`,
      dollars: ((cost.dollars + dynamo + logs) / runs.length) * perMonth,
    });
  }
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
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
  const { stagedSizeTargetBytes } = await import('#shared/adapters/staged-commits.ts');
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
  let perArrival = 0;
  let stagingUnits: StagingUnits = { perRecord: 0, perTrigger: 0 };
  let quietCommit: { item: string; count: number; dollars: number }[] = [];
  const perRead = prices.s3.getPerThousand / 1000;
  const stagedReads = (reading: Reading) =>
    reading.invocations
      .filter((inv) => inv.entry === commitEntry)
      .flatMap((inv) => inv.calls)
      .filter((call) => call.s3Class === 'get' && call.entity === 'staging').length;
  try {
    const sparseRun = await measureSparse(local);
    // The writer's first batch of the sparse tables: a record and a trigger (with its listing) each.
    const writerCalls = sparseRun.triggered.invocations
      .filter((inv) => inv.entry === consumers['ingest-writer'].entry)
      .flatMap((inv) => inv.calls);
    stagingUnits = {
      perRecord: callDollars(writerCalls.filter(isRecordCall)) / sparseTables,
      perTrigger: callDollars(writerCalls.filter(isTriggerCall)) / sparseTables,
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
      Math.max(0, passOf(sparseRun.checkpointed) - passOf(sparseRun.plain)) / defaultTableProperties.checkpointInterval;
    single += checkpoint;
    quietCommit = commitItems(
      deployment,
      sparseRun.pass,
      ownCpuMs(sparseRun.pass.invocations, sparseRun.background, 0),
      sparseTables,
    );
    quietCommit.push({
      item: `A checkpoint every ${defaultTableProperties.checkpointInterval} versions ($${money(checkpoint * defaultTableProperties.checkpointInterval * 1e6)} per million checkpoints)`,
      count: 1 / defaultTableProperties.checkpointInterval,
      dollars: checkpoint,
    });
    const runs = [];
    for (const scenario of scenarios) {
      const run = await runScenario(local, scenario, windowSeconds);
      // The scenario's table committed: everything it staged, many slices and rows in one commit.
      const pass = await meteredPass(local);
      await expectRows(local, run.hook.data_set_id, scenario.requests, scenario.name);
      const dollars = passDollars(deployment, pass, ownCpuMs(pass.invocations, run.backgroundCpuPerMs, 0));
      const perRow = Math.max(0, (dollars - single - stagedReads(pass) * perRead) / (scenario.requests - 1));
      runs.push({ ...run, scenario, units: { single, perRead, perRow, perArrival } });
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
        // Rows of 1 KB, as the first scenario's.
        units: (runs[0] as (typeof runs)[number]).units,
      },
    ];
    for (const { scenario, reading, backgroundCpuPerMs, hook, body, units } of all) {
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
        ),
      });
    }
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
      `same rule (bench/commit-model.ts), each priced at what the writer's first batch of the sparse tables paid for it.`,
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
        `($${money((priced.storedBytesPerMillion / 1024 ** 3) * prices.s3.storagePerGbMonth)} a month for as long as they are kept; claim checks are deleted once committed, staged batches after ${stagedObjectDays} days, priced above).`,
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
  for (const { scenario, priced, figures } of results) {
    out.push(
      `cost per million 1 KB events, ${scenario.name}: $${priced.total.toFixed(2)} ` +
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
