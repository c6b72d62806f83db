/**
 * One call of SQS's JSON protocol, without the SDK: the body as JSON, a POST to the endpoint with
 * `x-amz-target: AmazonSQS.<Action>`, signed with SigV4 here (shared/adapters/aws-signature.ts),
 * over kept-alive connections (shared/adapters/http1-post.ts); network errors, timeouts, 5xx and
 * throttling are tried again (three attempts, jittered backoff, none past the caller's deadline),
 * anything else is the caller's.
 *
 * Why not the SDK: these calls are per webhook (the ingest function's send) or per ten envelopes
 * (the local event-source poller's receives and deletes), and through the SDK's SQS client each
 * cost about a millisecond of CPU (serialisation against the service's schema, endpoint rules, the
 * generic signer, the HTTP handler's per-request timers and socket options), several times the
 * call itself; and node's own HTTP client costs about as much again. Use the SDK for everything else.
 */
import * as z from 'zod';
import { type AwsCredentials, signJsonPost } from '../aws-signature.ts';
import { type ConnectionError, type PostTarget, post } from '../http1-post.ts';

/** Where and as whom to call. */
export interface SqsAccess {
  /** The endpoint; without one, the queue URL's own origin (as the SDK does). */
  endpoint?: string;
  region: string;
  credentials: AwsCredentials;
}

/** An answer of SQS that is not a success, or a call that got no answer. */
export class SqsCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SqsCallError';
  }
}

const maxAttempts = 3;
const backoffBaseMs = 50;
/** No answer this long after the call (beyond any long poll it asks for) is a failed attempt. */
const answerTimeoutMs = 3000;
const retryableNetworkCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNABORTED']);
const throttling = /Throttl|RequestThrottled|TooManyRequests/;

/** An error answer's body: its type (`<namespace>#<name>`) and message, either spelling; anything else reads as absent. */
const errorBody = z.object({
  __type: z.string().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
  Message: z.string().optional().catch(undefined),
});

/** A success's body read by the caller's schema; an answer of another shape is the service's fault, not retried. */
function answerOf<T>(text: string, answer: z.ZodType<T>): T {
  const parsed = answer.safeParse(JSON.parse(text));
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  throw new SqsCallError(`SQS answered 200 with an unexpected body: ${issue?.path.join('.')} ${issue?.message}`, false);
}

/** As Lambda provides them: the region, and the execution role's credentials, in the environment. */
export function accessFromEnvironment(env: NodeJS.ProcessEnv = process.env): SqsAccess {
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!region) throw new SqsCallError('No region: AWS_REGION is not set', false);
  if (!accessKeyId || !secretAccessKey)
    throw new SqsCallError('No credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set', false);
  return {
    endpoint: env.AWS_ENDPOINT_URL_SQS || undefined,
    region,
    credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN || undefined },
  };
}

/** Where calls go, by endpoint (or queue URL): read once, not per call. */
const targets = new Map<string, { host: string; target: PostTarget }>();
function targetOf(access: SqsAccess, queueUrl: string): { host: string; target: PostTarget } {
  const key = access.endpoint || queueUrl;
  let found = targets.get(key);
  if (!found) {
    const endpoint = new URL(access.endpoint || new URL(queueUrl).origin);
    const secure = endpoint.protocol === 'https:';
    found = {
      host: endpoint.host,
      target: { secure, hostname: endpoint.hostname, port: Number(endpoint.port) || (secure ? 443 : 80) },
    };
    if (targets.size >= 100) targets.clear();
    targets.set(key, found);
  }
  return found;
}

function attempt<T>(
  access: SqsAccess,
  queueUrl: string,
  call: { action: string; body: string; answer: z.ZodType<T> },
  waitMs: number,
  timeLeftMs: number,
): Promise<T> {
  const { action, body } = call;
  const { host, target } = targetOf(access, queueUrl);
  const headers = signJsonPost(
    {
      host,
      region: access.region,
      service: 'sqs',
      target: `AmazonSQS.${action}`,
      contentType: 'application/x-amz-json-1.0',
      body,
    },
    access.credentials,
  );
  const timeoutMs = Math.min(waitMs + answerTimeoutMs, timeLeftMs);
  return post(target, headers, body, timeoutMs).then(
    ({ status, body: text }) => {
      if (status === 200) return answerOf(text, call.answer);
      let type = '';
      let message = text.slice(0, 200);
      try {
        const error = errorBody.safeParse(JSON.parse(text));
        if (error.success) {
          type = (error.data.__type ?? '').split('#').pop() ?? '';
          message = error.data.message ?? error.data.Message ?? message;
        }
      } catch {
        // Not JSON: the status says enough.
      }
      const retryable = status >= 500 || status === 429 || throttling.test(type);
      throw new SqsCallError(`SQS answered ${status} ${type}: ${message}`.trim(), retryable);
    },
    (error: ConnectionError) => {
      const timedOut = error.code === 'ETIMEDOUT';
      throw new SqsCallError(
        timedOut ? `SQS did not answer within ${timeoutMs} ms` : `SQS could not be reached: ${error.message}`,
        retryableNetworkCodes.has(error.code) || /socket hang up/.test(error.message),
      );
    },
  );
}

/**
 * Calls an SQS action on a queue and answers its JSON answer, read by `answer` where it enters. `waitMs` is how long the call itself
 * may take by design (a long poll), added to the time an answer is waited for. `answerBy` (ms since
 * the epoch) is when the caller must have an answer (a request's function ends): no attempt waits
 * past it and none starts after it, so the last failure is the call's, whatever attempts are left.
 */
export async function callSqs<T>(
  access: SqsAccess,
  queueUrl: string,
  call: { action: string; input: object; answer: z.ZodType<T> },
  waitMs = 0,
  answerBy = Number.POSITIVE_INFINITY,
): Promise<T> {
  const { action, input, answer } = call;
  const body = JSON.stringify({ QueueUrl: queueUrl, ...input });
  for (let attempted = 1; ; attempted++) {
    try {
      const timeLeftMs = Math.max(1, answerBy - Date.now());
      return await attempt(access, queueUrl, { action, body, answer }, waitMs, timeLeftMs);
    } catch (error) {
      if (attempted >= maxAttempts || !(error instanceof SqsCallError) || !error.retryable) throw error;
      // Full jitter: a random wait up to the doubling bound.
      const backoffMs = Math.random() * backoffBaseMs * 2 ** attempted;
      if (Date.now() + backoffMs >= answerBy) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
    }
  }
}
