/**
 * `npm start`: the whole of Tributary on one machine, no AWS account needed.
 *
 *  1. Makes sure the cloud assembly is the sources' (local/assembly.ts: synthesised again only when
 *     they changed) while it starts the stand-ins (DynamoDB Local, S3, SQS) on 127.0.0.1, each in a
 *     process group of its own, or uses running ones when LOCAL_STAND_INS=external
 *     (AWS_ENDPOINT_URL_DYNAMODB/_S3/_SQS).
 *  2. Creates the table, queues and buckets from the same declarations as the stack.
 *  3. Rehearses the deploy (local/deploy/: reserved concurrency, custom resources such as the
 *     bootstrap key's installer, rotation schedules) and starts the assembly's functions: the HTTP
 *     front with its routes, the event source mappings' pollers and the schedules.
 *  4. On SIGINT/SIGTERM (to this process or its whole group): new requests get 503, requests in
 *     flight finish, accepted envelopes are written until the queues are empty or the drain time
 *     is up (what is left stays in the durable queue under DATA_DIR), then the stand-ins stop.
 *     Under `npm start` this process is npm's child (the script `exec`s node, so no shell or tsx
 *     relay stands between them): npm passes SIGINT and SIGTERM on to it, and if npm goes away
 *     without doing so (killed), this process stops as if signalled.
 *
 * Every envelope is on disk in the SQS stand-in's journal before its 202, so a crash, a kill -9 or
 * a power cut loses nothing either: the next start writes what was queued.
 */

import { existsSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { ensureAssembly } from './assembly.ts';
import { readDeployment } from './cloud-assembly.ts';
import {
  ensureBuckets,
  ensureQueues,
  ensureTable,
  importQueueSnapshot,
  keepAdminKey,
  namedAdminKey,
  type QueueUrls,
  resolveSecretsKey,
  standInQueueUrls,
} from './provision.ts';
import { handlerEnvironment, type Runtime, startRuntime } from './runtime.ts';
import { readLocalSettings } from './settings.ts';
import { type Endpoints, localCredentials, type StandIns, standInEndpoints, startStandIns } from './stand-ins.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Ctrl-C signals npm and this process both, and npm passes its own on, so one stop can bring the
 * same signal twice within a moment; a signal well after the first means "stop now" and ends the
 * drain.
 */
const repeatAfterMs = 2000;
let firstSignalAt: number | null = null;
let onSignal: ((signal: string) => void) | null = null;
let onRepeat: (() => void) | null = null;
const stopRequested = (reason: string) => {
  if (firstSignalAt === null) {
    firstSignalAt = Date.now();
    onSignal?.(reason);
  } else if (Date.now() - firstSignalAt > repeatAfterMs) {
    onRepeat?.();
  }
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopRequested(signal));

/**
 * npm stands for the service: whoever stops npm means to stop the service. npm passes SIGINT and
 * SIGTERM on; when it is killed outright (SIGKILL, SIGHUP) this process is handed to another
 * parent, which is seen here within a second.
 */
if (process.env.npm_lifecycle_event === 'start') {
  const npm = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === npm) return;
    clearInterval(watch);
    stopRequested('npm exited');
  }, 1000);
  watch.unref();
}

/**
 * The AWS SDK warns of Node versions it will stop supporting once per copy of itself, and every
 * function's bundle has its own: one line here says it once.
 */
function warnOfNodeVersionOnce(): void {
  const variable = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
  if (process.env[variable] !== undefined) return;
  process.env[variable] = 'true';
  if (Number(process.versions.node.split('.')[0]) < 22)
    log(
      `Node ${process.versions.node}: the deployed functions run on Node 22 (Lambda's nodejs22.x), and AWS SDK releases after the first week of January 2027 need Node 22.`,
    );
}

/**
 * Node 22 keeps the code it compiles of what it loads (every function's bundle, in each thread and
 * again at each start; the stand-ins) under DATA_DIR, unless NODE_COMPILE_CACHE names another place:
 * a restart then compiles only what changed. The threads and the stand-ins inherit the setting.
 */
function keepCompiledCode(dataDir: string): void {
  process.env.NODE_COMPILE_CACHE ||= path.join(dataDir, 'compile-cache');
  (module as { enableCompileCache?: (directory: string) => unknown }).enableCompileCache?.(
    process.env.NODE_COMPILE_CACHE,
  );
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  warnOfNodeVersionOnce();
  const settings = readLocalSettings();
  keepCompiledCode(settings.dataDir);
  const external = process.env.LOCAL_STAND_INS === 'external';

  let standIns: StandIns | null = null;
  let runtime: Runtime | null = null;
  /** The functions' start while it is under way (a few seconds): a stop waits for it. */
  let runtimeStart: Promise<Runtime> | null = null;
  let stopping = false;
  /**
   * Stops whatever has started so far, in order: the service first, the stand-ins last. A signal
   * during start stops what is up; a stand-in still starting then stops by itself when this exits.
   * A signal while the functions start waits for them, so that their pollers stop before the
   * stand-ins they poll (else each would report the queue gone).
   */
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping; new requests get 503, accepted envelopes are written first…`);
    let code = 0;
    try {
      const started = runtime ?? (await runtimeStart?.catch(() => null)) ?? null;
      const undrained = started ? (await started.stop()).undrained : 0;
      if (undrained > 0)
        log(`${undrained} queued messages are not written yet; the queue keeps them and the next start writes them.`);
    } catch (error) {
      code = 1;
      process.stderr.write(`Stop failed: ${(error as Error).stack}\n`);
    }
    await standIns?.stop();
    log('Stopped.');
    process.exit(code);
  };
  onSignal = (signal) => void stop(signal);
  onRepeat = () => {
    log('Stopping now: what is not written yet stays queued for the next start.');
    runtime?.hurry();
  };

  const prefix = process.env.LOCAL_QUEUE_PREFIX ?? '';
  const assembly = ensureAssembly({ tenantBuckets: settings.buckets, log });
  // Not awaited yet: a failure is reported where it is awaited.
  assembly.catch(() => undefined);
  const secretsKey = resolveSecretsKey(settings.dataDir, process.env.SECRETS_KEY);
  let endpoints: Endpoints;
  let queueUrls: QueueUrls;
  if (external) {
    endpoints = {
      dynamodb: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '',
      s3: process.env.AWS_ENDPOINT_URL_S3 ?? '',
      sqs: process.env.AWS_ENDPOINT_URL_SQS ?? '',
    };
    if (!endpoints.dynamodb || !endpoints.s3 || !endpoints.sqs) {
      throw new Error(
        'LOCAL_STAND_INS=external needs AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL_SQS',
      );
    }
    await ensureTable(endpoints.dynamodb, settings.tableName);
    queueUrls = await ensureQueues(endpoints.sqs, prefix, settings.visibilityTimeoutSeconds);
  } else {
    endpoints = standInEndpoints(settings);
    queueUrls = standInQueueUrls(endpoints.sqs, prefix);
    standIns = await startStandIns({
      dataDir: settings.dataDir,
      dynamodbPort: settings.dynamodbPort,
      s3Port: settings.s3Port,
      sqsPort: settings.sqsPort,
      dynamodbInMemory: settings.dynamodbInMemory,
      log,
    });
    if (stopping) return;
    log('Provisioning the table, the queues and the buckets…');
    await ensureTable(endpoints.dynamodb, settings.tableName);
    const created = await ensureQueues(endpoints.sqs, prefix, settings.visibilityTimeoutSeconds);
    if ((Object.keys(queueUrls) as (keyof QueueUrls)[]).some((name) => created[name] !== queueUrls[name]))
      throw new Error(`The SQS stand-in named its queues otherwise than expected: ${JSON.stringify(created)}`);
  }
  if (stopping) return;
  await ensureBuckets(endpoints.s3, [settings.platformBucket, ...settings.buckets]);
  const env = { ...handlerEnvironment(settings, endpoints, queueUrls), SECRETS_KEY: secretsKey };
  Object.assign(process.env, env);

  const namedKey = namedAdminKey(settings.dataDir, process.env.ADMIN_API_KEY);

  const snapshot = path.join(settings.dataDir, 'queued-messages.jsonl');
  const imported =
    !external && existsSync(snapshot) ? await importQueueSnapshot(endpoints.sqs, queueUrls, snapshot) : 0;

  const { directory } = await assembly;
  const deployment = readDeployment(directory, {
    tableName: settings.tableName,
    platformBucket: settings.platformBucket,
    queuePrefix: prefix,
    sqsEndpoint: new URL(queueUrls.ingest).origin,
  });
  if (stopping) return;
  log(
    `Starting the functions: ${deployment.eventSources.filter((source) => source.enabled).length} queue consumers and ${deployment.schedules.filter((schedule) => schedule.enabled).length} schedules, each in a thread of its own, and the HTTP front for ${deployment.routes.length} routes…`,
  );
  // The deploy is rehearsed there (local/deploy/): custom resources, rotation schedules, reservations.
  // The key is kept before the front answers: a caller polling /health reads it at its first answer.
  let adminKey = '';
  runtimeStart = startRuntime(settings, env, queueUrls, {
    deployment,
    log,
    bootstrapKey: namedKey,
    onDeployed: ({ bootstrapKey }) => {
      if (bootstrapKey === null) throw new Error('The deploy left no bootstrap key: the template has no secret for it');
      keepAdminKey(settings.dataDir, bootstrapKey, process.env.ADMIN_API_KEY);
      adminKey = bootstrapKey;
    },
  });
  runtime = await runtimeStart;
  if (stopping) return;
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  log(
    [
      `Tributary is running at ${runtime.url} (ready in ${seconds} s)`,
      `  Bootstrap API key (PlatformAdmin): ${adminKey}${process.env.ADMIN_API_KEY ? '' : `  [kept in ${path.join(settings.dataDir, 'admin-api-key')}]`}`,
      `  Local S3: ${endpoints.s3}  access key ${localCredentials.accessKeyId}, secret ${localCredentials.secretAccessKey}; buckets: ${settings.buckets.join(', ')}`,
      `  Register a tenant store with {"name": "demo", "base_url": "s3://${settings.buckets[0] ?? 'demo-bucket'}/demo", "options": {"endpoint": "${endpoints.s3}"}}`,
      `  DynamoDB Local: ${endpoints.dynamodb} (table ${settings.tableName})   SQS: ${endpoints.sqs}`,
      `  State: ${settings.dataDir}${imported > 0 ? `  (${imported} messages an earlier version kept at its stop were queued again)` : ''}`,
      ...runtime.deployed.lines.map((line) => `  ${line}`),
      '  Every 202 is on disk before it is sent. Ctrl-C stops gracefully: new requests get 503, accepted envelopes are written first.',
    ].join('\n'),
  );
}

main().catch((error: Error) => {
  process.stderr.write(`\nTributary could not start:\n${error.message}\n`);
  process.exit(1);
});
