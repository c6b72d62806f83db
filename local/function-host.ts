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
import { enforceIam, type IamSetup } from './iam/enforcement.ts';
import type { DecisionCounts, Denial } from './iam/policy-evaluator.ts';
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
      /** What its calls are held to (and where the local AWS endpoints are). */
      iam: IamSetup;
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
      iam: IamSetup;
      intervalSeconds: number;
      /** Runs once more at a graceful stop, with this time limit in place of the function's; null: not. */
      runsAtStop: { timeoutSeconds: number } | null;
    };

export interface HostedRunning {
  /**
   * Stops taking work, finishes what is in flight and hands back what it holds; a schedule that
   * runs at a stop runs once more when the stop is `final` (graceful, not hurried).
   */
  stop(options?: { final?: boolean }): Promise<DecisionCounts | undefined>;
}

/** What a host tells the runtime as it happens: an invocation stopped at its timeout, a call IAM refused. */
export interface FunctionReports {
  timedOut(functionName: string, line: string): void;
  denied(denial: Denial): void;
}

/** Messages between the runtime and a function's thread. */
export type ToHost = { type: 'stop'; final: boolean };
export type FromHost =
  | { type: 'ready' }
  | { type: 'stopped'; decisions: DecisionCounts }
  | { type: 'timedOut'; line: string }
  | { type: 'denied'; denial: Denial };

/** The thread's data that names its function (any other thread leaves this module idle). */
export const hostedKey = 'tributaryFunction';

export async function hostFunction(hosted: HostedFunction, report: FunctionReports): Promise<HostedRunning> {
  installFunctionScopes();
  const { evaluator } = enforceIam(hosted.iam, (denial) => report.denied(denial));
  const lambda = new LocalLambda(hosted.fn, hosted.env, (line) => report.timedOut(hosted.fn.name, line));
  // Loaded now: a function whose bundle does not load fails the start, not its first invocation.
  await lambda.warm();
  if (hosted.kind === 'schedule') {
    const schedule: Schedule = startSchedule({
      name: hosted.fn.name,
      intervalSeconds: hosted.intervalSeconds,
      runsAtStop: hosted.runsAtStop !== null,
      handler: (event) =>
        lambda.invoke(
          event,
          (event.detail as { stopping?: unknown }).stopping === true ? (hosted.runsAtStop ?? {}) : {},
        ),
    });
    return {
      async stop(options) {
        await schedule.stop(options);
        return evaluator.counts();
      },
    };
  }
  // The event source mapping polls with the function's execution role, as Lambda's does.
  const sqs = {
    endpoint: hosted.env.AWS_ENDPOINT_URL_SQS,
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
      return evaluator.counts();
    },
  };
}

/**
 * Resolves once a stream has handed on everything written to it so far. A thread's output reaches the
 * process after it is written: a thread ended at once loses the lines it wrote last (a schedule's run
 * at a graceful stop logged 1 of its 200).
 */
const handedOn = (stream: NodeJS.WritableStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));

const hosted = isMainThread ? undefined : (workerData as Record<string, HostedFunction> | null)?.[hostedKey];
if (hosted && parentPort) {
  const port = parentPort;
  // What happens to the function (a timeout, a refused call) is counted and logged by the runtime.
  const running = await hostFunction(hosted, {
    timedOut: (_, line) => port.postMessage({ type: 'timedOut', line } satisfies FromHost),
    denied: (denial) => port.postMessage({ type: 'denied', denial } satisfies FromHost),
  });
  port.on('message', async (message: ToHost) => {
    if (message.type !== 'stop') return;
    const decisions = await running.stop({ final: message.final });
    await Promise.all([handedOn(process.stdout), handedOn(process.stderr)]);
    port.postMessage({ type: 'stopped', decisions: decisions ?? { evaluated: 0, kept: 0 } } satisfies FromHost);
  });
  port.postMessage({ type: 'ready' } satisfies FromHost);
}
