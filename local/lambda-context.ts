import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** The context object Lambda passes to a handler, for one local invocation. */
export function lambdaContext(functionName: string, timeoutSeconds: number, memoryMb = 1024): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Lambda's timeout: the invocation fails when the handler has not answered in time, with what
 * `timedOut` makes of it (it may also stop the invocation).
 */
export function withTimeout<T>(
  work: Promise<T>,
  timeoutSeconds: number,
  what: string,
  timedOut: () => Error = () => new Error(`${what} timed out after ${timeoutSeconds} s`),
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), timeoutSeconds * 1000);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** A function name like the stack's, derived from the handler entry (functions/tenants/list.ts → tenants-list). */
export function functionNameOf(entry: string): string {
  return entry
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-');
}
