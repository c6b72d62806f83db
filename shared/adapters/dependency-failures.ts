/**
 * Whether an error is one of the platform's own AWS dependencies (DynamoDB, SQS, the platform bucket)
 * being slow, throttling or failing for a while, rather than a refusal that will not change: what the
 * SDK itself would retry (a timeout, a throttle, a 5xx, a dropped connection), after its own retries
 * ran out. A tenant's store fails as a StoreFailure, never as one of these.
 */
const throttles =
  /^(ThrottlingException|ProvisionedThroughputExceededException|RequestLimitExceeded|TooManyRequestsException|SlowDown|RequestThrottled|Throttling)$/;
const timeouts = /^(TimeoutError|RequestTimeout|RequestTimeoutException|AbortError)$/;
const networkCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNABORTED', 'EAI_AGAIN']);

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

export function dependencyFailed(error: Error): boolean {
  const shaped: SdkErrorShape = error;
  const status = Number(shaped.$metadata?.httpStatusCode ?? 0);
  return (
    throttles.test(error.name) ||
    timeouts.test(error.name) ||
    shaped.$fault === 'server' ||
    status >= 500 ||
    (typeof shaped.code === 'string' && networkCodes.has(shaped.code))
  );
}
