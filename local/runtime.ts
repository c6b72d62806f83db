/**
 * The service itself, locally: the HTTP front on this thread, and every queue consumer and schedule
 * of the topology in a worker thread of its own, all running the very handler modules the stack
 * deploys. The stand-ins it talks to may run in the same process (npm start) or elsewhere (the
 * tests start them once for every runtime).
 *
 * Why threads: on AWS the ingest function never shares a CPU with the batch writer. In one event
 * loop, the writer's CPU-bound work (Parquet encoding, hundreds of commits per window) held every
 * webhook's answer back for seconds. A thread has its own event loop and the OS runs it on another
 * core; unlike a child process it stops with this process (a crash or kill -9 leaves nothing
 * running), receives no signal of its own (Ctrl-C to the process group reaches the front, which
 * leads the stop), and needs no pid file. A thread that dies (an uncaught error, a heap out of
 * memory) is started again; the records it held come back after the visibility timeout, as they
 * do when a Lambda invocation dies.
 */
import type { Worker } from 'node:worker_threads';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { notFoundRoute, routes } from '#shared/routes.ts';
import { consumers, type QueueName, queues, schedules } from '#shared/topology.ts';
import { queueDepth } from './event-source-poller.ts';
import {
  type FromHost,
  type HostedFunction,
  type HostedRunning,
  hostedKey,
  hostFunction,
  type ToHost,
} from './function-host.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { importHandler, startThread } from './modules.ts';
import type { QueueUrls } from './provision.ts';
import type { LocalSettings } from './settings.ts';
import { type Endpoints, localCredentials, localRegion } from './stand-ins.ts';

/** The environment every handler reads, as the stack would set it on each function. */
export function handlerEnvironment(
  settings: LocalSettings,
  endpoints: Endpoints,
  queueUrls: QueueUrls,
): Record<string, string> {
  return {
    AWS_REGION: localRegion,
    AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    S3_FORCE_PATH_STYLE: 'true',
    TABLE_NAME: settings.tableName,
    PLATFORM_BUCKET: settings.platformBucket,
    ...Object.fromEntries((Object.keys(queues) as QueueName[]).map((name) => [queues[name].envVar, queueUrls[name]])),
    POWERTOOLS_SERVICE_NAME: 'tributary',
    // One thread runs several invocations of a function at once (the front: of every route), as a
    // multi-concurrent Lambda environment does: each invocation's logger context is its own
    // (shared/observability/invocation.ts).
    AWS_LAMBDA_MAX_CONCURRENCY: '1000',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: settings.logLevel,
    ALLOWED_STORE_ENDPOINTS: settings.allowedStoreEndpoints,
    // A table whose staged commit failed is tried again as the local queue would deliver again.
    COMMIT_RETRY_SECONDS: String(settings.visibilityTimeoutSeconds),
  };
}

export interface Runtime {
  url: string;
  front: HttpFront;
  /**
   * Graceful stop: the front answers new requests 503 and waits for those in flight; consumers keep
   * writing until the queues they consume are empty (or the drain timeout passes, or `hurry` is
   * called), then stop and hand back what they hold; schedules stop; the front closes last.
   * Answers how many messages are still queued (kept by the queues for the next start).
   */
  stop(): Promise<{ undrained: number }>;
  /** Ends the drain of a stop now: what is queued stays queued. */
  hurry(): void;
}

export interface RuntimeOptions {
  /**
   * Where consumers and schedules run: each in a thread of its own (the default, as `npm start`
   * runs), or on this thread, where a bench that meters every invocation in one place sees them.
   */
  functions?: 'threads' | 'this-thread';
  /** Where a function thread's unexpected end is told (stderr by default). */
  log?: (line: string) => void;
}

/**
 * Starts importing the routes' handler modules (a few seconds of work) while the stand-ins start.
 * The handlers' environment must be in place first: modules read some of it as they load.
 */
export function preloadHandlers(): void {
  const entries = [...Object.values(routes).map((route) => route.entry), notFoundRoute.entry];
  // A module that fails to load fails the start when the front asks for it.
  for (const entry of entries) importHandler(entry).catch(() => undefined);
}

/** Every consumer and schedule of the topology, as the functions to host. */
async function topologyFunctions(settings: LocalSettings, queueUrls: QueueUrls, sqs: SQSClient) {
  const hosted: HostedFunction[] = [];
  for (const [name, consumer] of Object.entries(consumers)) {
    const queueUrl = queueUrls[consumer.queue];
    const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    hosted.push({
      kind: 'consumer',
      name,
      entry: consumer.entry,
      queueUrl,
      queueArn: arn.Attributes?.QueueArn ?? '',
      batchSize: consumer.batchSize,
      // A consumer declared to be invoked as soon as messages arrive (the table committer: a freshness
      // target of seconds) keeps that; the others take the local window.
      batchingWindowSeconds: consumer.maxBatchingWindowSeconds === 0 ? 0 : settings.batchWindowSeconds,
      timeoutSeconds: consumer.function.timeoutSeconds,
      concurrency: Math.min(settings.pollersPerConsumer, consumer.maxConcurrency),
    });
  }
  for (const [name, schedule] of Object.entries(schedules)) {
    hosted.push({
      kind: 'schedule',
      name,
      entry: schedule.entry,
      intervalSeconds: settings.scheduleSecondsOverride ?? schedule.everyMinutes * 60,
      timeoutSeconds: schedule.function?.timeoutSeconds ?? 60,
      runsAtStop: schedule.runsAtStop === true,
    });
  }
  return hosted;
}

/** After a thread's unexpected end, the wait before it starts again: doubling, up to this. */
const restartDelaysMs = { first: 1000, max: 30_000 };
/** A thread that ran this long before it ended starts again after the first delay. */
const healthyRunMs = 60_000;

/**
 * One function in a thread of its own, started again whenever it ends unexpectedly. Resolves once
 * the function is ready the first time; a function that cannot start fails the start.
 */
export async function startFunctionThread(
  hosted: HostedFunction,
  options: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<HostedRunning> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let stopping = false;
  let everReady = false;
  let current: { worker: Worker; ended: Promise<void> } | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let delayMs = restartDelaysMs.first;

  const launch = () =>
    new Promise<void>((ready, failed) => {
      const worker = startThread('local/function-host.ts', {
        workerData: { [hostedKey]: hosted },
        // The SDK's warning about this Node version: the front's thread has given it already.
        env: { ...(options.env ?? process.env), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      const startedAt = Date.now();
      let reason = '';
      worker.on('message', (message: FromHost) => {
        if (message.type !== 'ready') return;
        everReady = true;
        ready();
      });
      worker.on('error', (error) => {
        reason = error.stack ?? error.message;
      });
      const ended = new Promise<void>((resolve) =>
        worker.once('exit', (code) => {
          resolve();
          if (stopping) return;
          const why = reason || `it exited with code ${code}`;
          if (!everReady) {
            failed(new Error(`The ${hosted.name} function could not start: ${why}`));
            return;
          }
          if (Date.now() - startedAt > healthyRunMs) delayMs = restartDelaysMs.first;
          log(
            `function ${hosted.name} ended unexpectedly (${why}); starting it again in ${delayMs / 1000} s` +
              (hosted.kind === 'consumer' ? '; the records it held come back after the visibility timeout' : ''),
          );
          restartTimer = setTimeout(() => void launch(), delayMs);
          delayMs = Math.min(delayMs * 2, restartDelaysMs.max);
        }),
      );
      current = { worker, ended };
    });

  await launch();

  return {
    async stop(options) {
      stopping = true;
      clearTimeout(restartTimer);
      const running = current;
      if (!running) return;
      const stopped = new Promise<void>((resolve) =>
        running.worker.on('message', (message: FromHost) => {
          if (message.type === 'stopped') resolve();
        }),
      );
      running.worker.postMessage({ type: 'stop', final: options?.final === true } satisfies ToHost);
      await Promise.race([stopped, running.ended]);
      await running.worker.terminate();
    },
  };
}

export async function startRuntime(
  settings: LocalSettings,
  env: Record<string, string>,
  queueUrls: QueueUrls,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  Object.assign(process.env, env);
  const sqs = new SQSClient({ endpoint: env.AWS_ENDPOINT_URL_SQS, region: localRegion, credentials: localCredentials });
  const host = (hosted: HostedFunction) =>
    options.functions === 'this-thread' ? hostFunction(hosted) : startFunctionThread(hosted, { log: options.log });

  const [front, functions] = await Promise.all([
    startHttpFront({ port: settings.port, host: settings.host, loadHandler: importHandler }),
    topologyFunctions(settings, queueUrls, sqs).then((hosted) =>
      Promise.all(hosted.map(async (each) => ({ kind: each.kind, running: await host(each) }))),
    ),
  ]);

  let deadline = Number.POSITIVE_INFINITY;
  return {
    url: front.url,
    front,
    hurry() {
      deadline = 0;
    },
    async stop() {
      await front.refuse();
      const consumed = [...new Set(Object.values(consumers).map((consumer) => queueUrls[consumer.queue]))];
      deadline = Math.min(deadline, Date.now() + settings.drainTimeoutSeconds * 1000);
      const queued = async () =>
        (await Promise.all(consumed.map((url) => queueDepth(sqs, url)))).reduce((sum, depth) => sum + depth, 0);
      while ((await queued()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      // Consumers first, so that what they staged last is there for the schedules' final runs
      // (everything staged is committed), which a hurried stop skips: staged envelopes are safe.
      await Promise.all(functions.filter(({ kind }) => kind === 'consumer').map(({ running }) => running.stop()));
      const final = Date.now() < deadline;
      await Promise.all(
        functions.filter(({ kind }) => kind === 'schedule').map(({ running }) => running.stop({ final })),
      );
      await front.close();
      const undrained = await queued();
      sqs.destroy();
      return { undrained };
    },
  };
}
