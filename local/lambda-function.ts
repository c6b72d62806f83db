/**
 * One function of the assembly, invoked locally as Lambda invokes it: each invocation runs in an
 * execution environment of its own, one at a time, as on Lambda. An environment is the function's
 * code loaded from its asset folder under its environment (the init phase, a cold start); it is kept
 * warm for the next invocation. When every environment is busy, a new one starts, up to the
 * function's reserved concurrency (past it, the invocation is throttled, as on Lambda) and up to a
 * local bound (environmentsPerFunction): past that, the invocation waits for one to be free.
 *
 * The timeout counts from when an environment takes the invocation: Lambda's init phase is not part
 * of it, and neither is the wait local mode adds because one machine cannot give every environment
 * the CPU Lambda gives it (a route's wait still counts toward API Gateway's 30 s, local/http-front.ts).
 * At the timeout the invocation is stopped as Lambda stops it: its caller gets Lambda's timeout
 * error at once, the invocation reaches nothing any more (local/lambda-sandbox.ts), and its
 * environment is discarded, so that the next invocation there starts cold.
 */
import type { Context } from 'aws-lambda';
import type { LocalFunction } from './cloud-assembly.ts';
import { lambdaContext } from './lambda-context.ts';
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
}

/**
 * Environments of one function alive at once, at most. Lambda gives each its own CPU; here they share
 * the machine's cores, so many CPU-heavy invocations at once (20 password hashes) would each take
 * many times as long as on Lambda and run out of time that Lambda would not. Invocations past this
 * many wait for an environment, which keeps each within its time and the ingest front's throughput
 * (its invocations mostly wait on the queue's disk) where it was.
 */
export const environmentsPerFunction = 16;

interface Environment {
  handler: LambdaHandler;
  env: Record<string, string>;
}

export class LocalLambda {
  private readonly idle: Environment[] = [];
  /** Environments alive or starting. */
  private alive = 0;
  private readonly waiting: (() => void)[] = [];
  private inFlight = 0;

  constructor(
    readonly fn: LocalFunction,
    private readonly env: Record<string, string>,
    /** Told of each invocation stopped at the timeout, with the line to log. */
    private readonly onTimeout: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** A new environment: the function's code loaded under a copy of its environment (the init phase). */
  private async start(): Promise<Environment> {
    const env = { ...this.env };
    return { handler: await loadHandler(this.fn.assetDirectory, this.fn.handler, { env }), env };
  }

  /** Loads the code once now (a start that should fail on a broken bundle rather than at the first request). */
  async warm(): Promise<void> {
    this.alive++;
    try {
      this.idle.push(await this.start());
    } catch (error) {
      this.alive--;
      throw error;
    }
  }

  /** An idle environment, a new one, or the next one freed. A failed init is tried again next time. */
  private async take(): Promise<Environment> {
    for (;;) {
      const idle = this.idle.pop();
      if (idle) return idle;
      if (this.alive < environmentsPerFunction) {
        this.alive++;
        try {
          return await this.start();
        } catch (error) {
          this.gone();
          throw error;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private release(environment: Environment): void {
    this.idle.push(environment);
    this.waiting.shift()?.();
  }

  private gone(): void {
    this.alive--;
    this.waiting.shift()?.();
  }

  /**
   * Invokes the handler; rejects with the handler's error, Lambda's throttle when the function's
   * reserved concurrency is used up, or a FunctionTimeout at the function's timeout.
   */
  async invoke(event: unknown, options: InvocationOptions = {}): Promise<unknown> {
    const reserved = this.fn.reservedConcurrency;
    if (reserved !== null && this.inFlight >= reserved)
      throw Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException' });
    this.inFlight++;
    try {
      const environment = await this.take();
      const scope: FunctionScope = { env: environment.env };
      const context: Context = lambdaContext(this.fn.name, this.fn.timeoutSeconds, this.fn.memoryMb);
      if (options.requestId) context.awsRequestId = options.requestId;
      return await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          scope.stopped = `${this.fn.name} timed out after ${this.fn.timeoutSeconds} s`;
          // Lambda discards an environment whose invocation timed out: the next one there starts cold.
          this.gone();
          this.onTimeout(
            `function ${this.fn.name}: Task timed out after ${this.fn.timeoutSeconds.toFixed(2)} seconds (request ${context.awsRequestId}); stopped, as Lambda stops it`,
          );
          reject(new FunctionTimeout(this.fn.name, this.fn.timeoutSeconds));
        }, this.fn.timeoutSeconds * 1000);
        inScope(scope, () => Promise.resolve().then(() => environment.handler(event, context))).then(
          (value) => {
            clearTimeout(timer);
            if (!scope.stopped) this.release(environment);
            resolve(value);
          },
          (error: unknown) => {
            clearTimeout(timer);
            if (!scope.stopped) this.release(environment);
            reject(error);
          },
        );
      });
    } finally {
      this.inFlight--;
    }
  }
}
