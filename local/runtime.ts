/**
 * The service itself, locally: the HTTP front, one event-source poller per queue consumer and the
 * schedules, all running the very handler modules the stack deploys. The stand-ins it talks to may
 * run in the same process (npm start) or elsewhere (the tests start them once for every runtime).
 */
import { pathToFileURL } from 'node:url';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { notFoundRoute, routes } from '#shared/routes.ts';
import { consumers, type QueueName, queues, schedules } from '#shared/topology.ts';
import { type Poller, queueDepth, type SqsHandler, startPoller } from './event-source-poller.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { localModule } from './modules.ts';
import type { QueueUrls } from './provision.ts';
import { type Schedule, type ScheduledHandler, startSchedule } from './scheduler.ts';
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
    // One process runs invocations of every function at once, as a multi-concurrent Lambda
    // environment does: each invocation's logger context is its own (shared/observability/invocation.ts).
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
   * Graceful stop: the front answers new requests 503 and waits for those in flight; pollers keep
   * writing until the queues they consume are empty (or the drain timeout passes, or `hurry` is
   * called), then stop and hand back what they hold; schedules stop; the front closes last.
   * Answers how many messages are still queued (kept by the queues for the next start).
   */
  stop(): Promise<{ undrained: number }>;
  /** Ends the drain of a stop now: what is queued stays queued. */
  hurry(): void;
}

const imported = new Map<string, Promise<unknown>>();

/** Each handler module is imported once, by whichever asks first (a preload or the runtime). */
function importHandler<T>(entry: string): Promise<T> {
  let handler = imported.get(entry);
  if (!handler) {
    handler = import(pathToFileURL(localModule(entry).file).href).then((module) => module.handler);
    imported.set(entry, handler);
  }
  return handler as Promise<T>;
}

/**
 * Starts importing every handler module (a few seconds of work) while the stand-ins start. The
 * handlers' environment must be in place first: modules read some of it as they load.
 */
export function preloadHandlers(): void {
  const entries = [
    ...Object.values(routes).map((route) => route.entry),
    notFoundRoute.entry,
    ...Object.values(consumers).map((consumer) => consumer.entry),
    ...Object.values(schedules).map((schedule) => schedule.entry),
  ];
  // A module that fails to load fails the start when the runtime asks for it.
  for (const entry of entries) importHandler(entry).catch(() => undefined);
}

export async function startRuntime(
  settings: LocalSettings,
  env: Record<string, string>,
  queueUrls: QueueUrls,
): Promise<Runtime> {
  Object.assign(process.env, env);
  const sqs = new SQSClient({ endpoint: env.AWS_ENDPOINT_URL_SQS, region: localRegion, credentials: localCredentials });

  const front = await startHttpFront({
    port: settings.port,
    host: settings.host,
    loadHandler: importHandler,
  });

  const pollers: Poller[] = [];
  for (const [name, consumer] of Object.entries(consumers)) {
    const queueUrl = queueUrls[consumer.queue];
    const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    pollers.push(
      startPoller(sqs, {
        name,
        entry: consumer.entry,
        queueUrl,
        queueArn: arn.Attributes?.QueueArn ?? '',
        handler: await importHandler<SqsHandler>(consumer.entry),
        batchSize: consumer.batchSize,
        batchingWindowSeconds: settings.batchWindowSeconds,
        timeoutSeconds: consumer.function.timeoutSeconds,
        concurrency: Math.min(settings.pollersPerConsumer, consumer.maxConcurrency),
      }),
    );
  }

  const running: Schedule[] = [];
  for (const [name, schedule] of Object.entries(schedules)) {
    running.push(
      startSchedule({
        name,
        entry: schedule.entry,
        handler: await importHandler<ScheduledHandler>(schedule.entry),
        intervalSeconds: settings.scheduleSecondsOverride ?? schedule.everyMinutes * 60,
        timeoutSeconds: schedule.function?.timeoutSeconds ?? 60,
      }),
    );
  }

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
      await Promise.all(pollers.map((poller) => poller.stop()));
      await Promise.all(pollers.map((poller) => poller.release()));
      await Promise.all(running.map((schedule) => schedule.stop()));
      await front.close();
      const undrained = await queued();
      sqs.destroy();
      return { undrained };
    },
  };
}
