/**
 * One function of the assembly, invoked locally as Lambda invokes it: its code loaded on the first
 * invocation (a cold start) from its asset folder, under its environment, and kept warm for the
 * next; every invocation held to the function's timeout. At the timeout the invocation is stopped
 * as Lambda stops it: its caller gets Lambda's timeout error at once, the invocation reaches nothing
 * any more (local/lambda-sandbox.ts), and its environment is discarded, so the next invocation
 * starts cold. Invocations of one function run side by side in one environment, as a
 * multi-concurrent Lambda environment runs them (AWS_LAMBDA_MAX_CONCURRENCY).
 *
 * Why not one environment per invocation, as Lambda's default: measured on the ingest front (the
 * consumers paused, 50 connections, the same busy two-core machine, one run after the other), one
 * environment per invocation (16 at most) cost the front 475 µs of CPU per request against 123 here,
 * and served 855 requests/s against 2,918: each environment's queue sender carried one message per
 * SQS call instead of several, and sixteen copies of the code warmed up and were collected apart.
 */
import type { Context } from 'aws-lambda';
import type { LocalFunction } from './cloud-assembly.ts';
import { lambdaContext, withTimeout } from './lambda-context.ts';
import { type FunctionScope, inScope, type LambdaHandler, loadHandler } from './lambda-sandbox.ts';

/** Lambda's answer to an invocation that ran out of time: `Task timed out after 10.00 seconds`. */
export class FunctionTimeout extends Error {
  constructor(
    readonly functionName: string,
    readonly seconds: number,
  ) {
    super(`Task timed out after ${seconds.toFixed(2)} seconds`);
    this.name = 'Sandbox.Timedout';
  }
}

/** The variables Lambda sets in every function's environment, beside the template's own. */
export function lambdaVariables(fn: LocalFunction, logLevel: string): Record<string, string> {
  return {
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local',
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_LOG_FORMAT: fn.logFormat,
    // The template's application log level is the deployed one; locally LOG_LEVEL decides.
    AWS_LAMBDA_LOG_LEVEL: logLevel,
    LAMBDA_TASK_ROOT: fn.assetDirectory,
    _HANDLER: fn.handler,
  };
}

export interface InvocationOptions {
  /** The context's request id (API Gateway's, for a route). */
  requestId?: string;
  /** A time limit in place of the function's: a run only local mode makes (a schedule's at a stop). */
  timeoutSeconds?: number;
}

export class LocalLambda {
  private instance: Promise<{ handler: LambdaHandler; env: Record<string, string> }> | null = null;
  private inFlight = 0;

  constructor(
    readonly fn: LocalFunction,
    private readonly env: Record<string, string>,
    /** Told of each invocation stopped at the timeout, with the line to log. */
    private readonly onTimeout: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** The warm environment, or a new one (the init phase). A failed init is tried again next time. */
  private environment() {
    if (!this.instance) {
      const env = { ...this.env };
      const loading = loadHandler(this.fn.assetDirectory, this.fn.handler, { env }).then((handler) => ({
        handler,
        env,
      }));
      loading.catch(() => {
        if (this.instance === loading) this.instance = null;
      });
      this.instance = loading;
    }
    return this.instance;
  }

  /** Loads the code now (a start that should fail on a broken bundle rather than at the first request). */
  async warm(): Promise<void> {
    await this.environment();
  }

  /**
   * Invokes the handler; rejects with the handler's error, Lambda's throttle when the function's
   * reserved concurrency is used up, or a FunctionTimeout at the function's timeout (or the one the
   * options give).
   */
  async invoke(event: unknown, options: InvocationOptions = {}): Promise<unknown> {
    const reserved = this.fn.reservedConcurrency;
    if (reserved !== null && this.inFlight >= reserved)
      throw Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException' });
    this.inFlight++;
    const timeoutSeconds = options.timeoutSeconds ?? this.fn.timeoutSeconds;
    try {
      const { handler, env } = await this.environment();
      const scope: FunctionScope = { env };
      const context: Context = lambdaContext(this.fn.name, timeoutSeconds, this.fn.memoryMb);
      if (options.requestId) context.awsRequestId = options.requestId;
      return await withTimeout(
        inScope(scope, () => Promise.resolve().then(() => handler(event, context))),
        timeoutSeconds,
        this.fn.name,
        () => {
          scope.stopped = `${this.fn.name} timed out after ${timeoutSeconds} s`;
          // Lambda discards an environment whose invocation timed out: the next one starts cold.
          this.instance = null;
          this.onTimeout(
            `function ${this.fn.name}: Task timed out after ${timeoutSeconds.toFixed(2)} seconds (request ${context.awsRequestId}); stopped, as Lambda stops it`,
          );
          return new FunctionTimeout(this.fn.name, timeoutSeconds);
        },
      );
    } finally {
      this.inFlight--;
    }
  }
}
