/**
 * One asynchronous function of the assembly, run locally the way Lambda runs it: a queue consumer
 * behind its event source mapping's pollers, or a scheduled function on its rule's timer, the
 * function itself loaded from its asset folder (local/lambda-function.ts). The runtime starts each
 * in a worker thread of its own (local/runtime.ts), so that the HTTP front's event loop never waits
 * behind a consumer's work, as on AWS, where the ingest function never shares a CPU with the writer.
 *
 * Run as a thread, this module reads its function from `workerData`, loads the function's code
 * (a bundle that does not load fails the start), answers `ready` once polling (or scheduled), and
 * on `stop` stops as the runtime's stop asks: pollers finish the invocations in flight and make
 * what they hold visible again, a schedule finishes its run (and, if it runs at a stop, runs once
 * more); then it answers `stopped`.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LocalFunction } from './cloud-assembly.ts';
import { type Poller, startPoller } from './event-source-poller.ts';
import { LocalLambda } from './lambda-function.ts';
import { installFunctionScopes } from './lambda-sandbox.ts';
import { type Schedule, startSchedule } from './scheduler.ts';
import { localCredentials, localRegion } from './stand-ins.ts';

/** What a host needs to run one function: plain data, so that it can cross into a thread. */
export type HostedFunction =
  | {
      kind: 'consumer';
      fn: LocalFunction;
      /** The function's whole environment (the template's, Lambda's and local mode's variables). */
      env: Record<string, string>;
      /** The SQS endpoint the event source mapping polls. */
      sqsEndpoint: string;
      queueUrl: string;
      queueArn: string;
      batchSize: number;
      batchingWindowSeconds: number;
      concurrency: number;
    }
  | {
      kind: 'schedule';
      fn: LocalFunction;
      env: Record<string, string>;
      intervalSeconds: number;
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
export type FromHost = { type: 'ready' } | { type: 'stopped' } | { type: 'log'; line: string } | { type: 'timeout' };

/** The thread's data that names its function (any other thread leaves this module idle). */
export const hostedKey = 'tributaryFunction';

export async function hostFunction(hosted: HostedFunction, log?: (line: string) => void): Promise<HostedRunning> {
  installFunctionScopes();
  const lambda = new LocalLambda(hosted.fn, hosted.env, log);
  // Loaded now: a function whose bundle does not load fails the start, not its first invocation.
  await lambda.warm();
  if (hosted.kind === 'schedule') {
    const schedule: Schedule = startSchedule({
      name: hosted.fn.name,
      intervalSeconds: hosted.intervalSeconds,
      runsAtStop: hosted.runsAtStop,
      handler: (event) => lambda.invoke(event),
    });
    return { stop: (options) => schedule.stop(options) };
  }
  // The event source mapping polls with the function's execution role, as Lambda's does.
  const sqs = {
    endpoint: hosted.sqsEndpoint,
    region: localRegion,
    credentials: {
      accessKeyId: hosted.env.AWS_ACCESS_KEY_ID ?? localCredentials.accessKeyId,
      secretAccessKey: hosted.env.AWS_SECRET_ACCESS_KEY ?? localCredentials.secretAccessKey,
    },
  };
  const poller: Poller = startPoller(sqs, {
    name: hosted.fn.name,
    queueUrl: hosted.queueUrl,
    queueArn: hosted.queueArn,
    batchSize: hosted.batchSize,
    batchingWindowSeconds: hosted.batchingWindowSeconds,
    concurrency: hosted.concurrency,
    handler: (event: SQSEvent) => lambda.invoke(event) as Promise<SQSBatchResponse | undefined>,
  });
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
  // What the runtime tells about its functions (a timeout) goes where the runtime's own lines go.
  const running = await hostFunction(hosted, (line) => {
    port.postMessage({ type: 'timeout' } satisfies FromHost);
    port.postMessage({ type: 'log', line } satisfies FromHost);
  });
  port.on('message', async (message: ToHost) => {
    if (message.type !== 'stop') return;
    await running.stop({ final: message.final });
    port.postMessage({ type: 'stopped' } satisfies FromHost);
  });
  port.postMessage({ type: 'ready' } satisfies FromHost);
}
