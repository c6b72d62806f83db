/**
 * One asynchronous function of the topology, run locally the way Lambda runs it: a queue consumer
 * behind its event-source pollers, or a scheduled function on its timer. The runtime starts each in
 * a worker thread of its own (local/runtime.ts), so that the HTTP front's event loop never waits
 * behind a consumer's work, as on AWS, where the ingest function never shares a CPU with the writer.
 *
 * Run as a thread, this module reads its function from `workerData`, answers `ready` once the
 * handler is loaded and polling (or scheduled), and on `stop` stops as the runtime's stop asks:
 * pollers finish the invocations in flight and make what they hold visible again, a schedule
 * finishes its run (and, if it runs at a stop, runs once more); then it answers `stopped`.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type Poller, type SqsHandler, startPoller } from './event-source-poller.ts';
import { importHandler } from './modules.ts';
import { type Schedule, type ScheduledHandler, startSchedule } from './scheduler.ts';
import { localCredentials, localRegion } from './stand-ins.ts';

/** What a host needs to run one function: plain data, so that it can cross into a thread. */
export type HostedFunction =
  | {
      kind: 'consumer';
      name: string;
      entry: string;
      queueUrl: string;
      queueArn: string;
      batchSize: number;
      batchingWindowSeconds: number;
      timeoutSeconds: number;
      concurrency: number;
    }
  | {
      kind: 'schedule';
      name: string;
      entry: string;
      intervalSeconds: number;
      timeoutSeconds: number;
      runsAtStop: boolean;
    };

export interface HostedRunning {
  /**
   * Stops taking work, finishes what is in flight and hands back what it holds; a schedule that
   * runs at a stop runs once more when the stop is `final` (graceful, not hurried).
   */
  stop(options?: { final?: boolean }): Promise<void>;
}

/** Messages between the runtime and a function's thread. */
export type ToHost = { type: 'stop'; final: boolean };
export type FromHost = { type: 'ready' } | { type: 'stopped' };

/** The thread's data that names its function (any other thread leaves this module idle). */
export const hostedKey = 'tributaryFunction';

export async function hostFunction(hosted: HostedFunction): Promise<HostedRunning> {
  if (hosted.kind === 'schedule') {
    const schedule: Schedule = startSchedule({
      ...hosted,
      handler: await importHandler<ScheduledHandler>(hosted.entry),
    });
    return { stop: (options) => schedule.stop(options) };
  }
  const handler = await importHandler<SqsHandler>(hosted.entry);
  const sqs = { endpoint: process.env.AWS_ENDPOINT_URL_SQS, region: localRegion, credentials: localCredentials };
  const poller: Poller = startPoller(sqs, { ...hosted, handler });
  return {
    async stop() {
      await poller.stop();
      await poller.release();
    },
  };
}

const hosted = isMainThread ? undefined : (workerData as Record<string, HostedFunction> | null)?.[hostedKey];
if (hosted && parentPort) {
  const port = parentPort;
  const running = await hostFunction(hosted);
  port.on('message', async (message: ToHost) => {
    if (message.type !== 'stop') return;
    await running.stop({ final: message.final });
    port.postMessage({ type: 'stopped' } satisfies FromHost);
  });
  port.postMessage({ type: 'ready' } satisfies FromHost);
}
