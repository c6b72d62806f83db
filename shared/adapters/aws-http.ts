/**
 * How long the platform's AWS calls wait for an answer: every SDK client it makes (DynamoDB, SQS,
 * the platform bucket, STS, Secrets Manager; tenants' stores too, shared/adapters/s3/tenant-stores.ts).
 * The SDK's defaults wait for an unanswered call until its socket has been idle five minutes
 * (DynamoDB) or fifteen (SQS), longer than most functions' timeouts: one connection that died
 * without a reset (a NAT that dropped it, an instance thawed after a freeze) held a request until
 * its function timed out (the ingest door's at 10 s, API Gateway's own 503 then answering), and a
 * committer's table until its invocation timed out. With these, such an attempt fails as a
 * `TimeoutError`, which the SDK tries again on a new connection (jittered backoff; four attempts for
 * DynamoDB, three for the others).
 *  - connecting: 3 s (a TLS handshake within a region takes milliseconds);
 *  - a call with a small body (DynamoDB, SQS, STS, Secrets Manager): its answer must begin within
 *    5 s of the request, so that every attempt ends inside API Gateway's 29 s (DynamoDB: 4 × 5 s
 *    and the backoff); the ingest door, whose function has 10 s, refuses a request whose lookups
 *    have not answered by its queue deadline (shared/domain/ingest/accept.ts);
 *  - any call, bodies included (S3 uploads and downloads of any size): no byte either way for 20 s.
 * The ingest door's own SQS sends have their own client and limit (shared/adapters/sqs/json-protocol.ts).
 */
export interface CallLimits {
  connectMs: number;
  /** From the request's start to its answer's first byte; null: no limit (bodies of any size). */
  answerMs: number | null;
  /** No byte sent or received on the connection this long. */
  idleMs: number;
}

export const smallCallLimits: CallLimits = { connectMs: 3_000, answerMs: 5_000, idleMs: 20_000 };
export const transferLimits: CallLimits = { connectMs: 3_000, answerMs: null, idleMs: 20_000 };

/** The request handler's settings for an SDK client (its `requestHandler` option). */
export function callLimits(limits: CallLimits): {
  connectionTimeout: number;
  socketTimeout: number;
  requestTimeout?: number;
  throwOnRequestTimeout?: boolean;
} {
  return {
    connectionTimeout: limits.connectMs,
    socketTimeout: limits.idleMs,
    ...(limits.answerMs === null ? {} : { requestTimeout: limits.answerMs, throwOnRequestTimeout: true }),
  };
}
