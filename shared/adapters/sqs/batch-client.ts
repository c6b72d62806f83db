/**
 * SQS's SendMessageBatch, and nothing else, over its JSON protocol: node's own HTTP client with
 * kept-alive connections and a SigV4 signature made here (shared/adapters/aws-signature.ts).
 *
 * Why not the SDK: every webhook is one queue call, and through the SDK's SQS client that call was
 * most of the ingest function's CPU (serialisation against the service's schema, endpoint rules,
 * the generic signer, the HTTP handler's per-request timers and socket options): about 1.1 ms of
 * CPU per call on a two-core machine, against 0.4 ms here (.bench note in the README). On Lambda
 * that CPU is billed duration, divided by the share of a vCPU the function's memory buys.
 *
 * What the SDK did and this keeps: the queue URL's host as the endpoint (AWS_ENDPOINT_URL_SQS when
 * set), credentials and region from the environment (where Lambda puts the execution role's),
 * retries with jittered backoff of network errors, timeouts, 5xx and throttling (three attempts;
 * a message sent twice is harmless, the writer keeps one row per message id), and the call as a
 * smithy client call: middleware written for SDK clients (X-Ray capture, the cost bench's meter)
 * sees it as SQS SendMessageBatch.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Client, constructStack } from '@smithy/core/client';
import type { MetadataBearer, MiddlewareStack } from '@smithy/types';
import { type AwsCredentials, signJsonPost } from '../aws-signature.ts';

export interface BatchEntry {
  Id: string;
  MessageBody: string;
}

export interface SendMessageBatchInput {
  QueueUrl: string;
  Entries: BatchEntry[];
}

export interface SendMessageBatchOutput extends MetadataBearer {
  Successful: { Id: string; MessageId: string }[];
  Failed: { Id: string; Code: string; Message?: string; SenderFault: boolean }[];
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
/** No answer within this is a failed attempt (the socket is dropped, the next attempt uses another). */
const answerTimeoutMs = 3000;
const retryableNetworkCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNABORTED']);
const throttling = /Throttl|RequestThrottled|TooManyRequests/;

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

function credentialsFromEnvironment(): AwsCredentials {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new SqsCallError('No credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set', false);
  return { accessKeyId, secretAccessKey, sessionToken: process.env.AWS_SESSION_TOKEN || undefined };
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.on('end', () => resolve(text));
    response.on('error', reject);
  });
}

/** One attempt: the signed POST, its answer parsed, or the failure with whether to try again. */
function post(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_SQS || new URL(input.QueueUrl).origin);
  const region = process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION;
  if (!region) return Promise.reject(new SqsCallError('No region: AWS_REGION is not set', false));
  const body = JSON.stringify({ QueueUrl: input.QueueUrl, Entries: input.Entries });
  const headers = signJsonPost(
    {
      host: endpoint.host,
      region,
      service: 'sqs',
      target: 'AmazonSQS.SendMessageBatch',
      contentType: 'application/x-amz-json-1.0',
      body,
    },
    credentialsFromEnvironment(),
  );
  headers['content-length'] = String(Buffer.byteLength(body));
  const secure = endpoint.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      {
        agent: secure ? agents.https : agents.http,
        hostname: endpoint.hostname,
        port: endpoint.port || undefined,
        path: '/',
        method: 'POST',
        headers,
      },
      (response) => {
        readAll(response).then((text) => {
          const status = response.statusCode ?? 0;
          if (status === 200) {
            const answer = JSON.parse(text) as Partial<SendMessageBatchOutput>;
            resolve({
              Successful: answer.Successful ?? [],
              Failed: answer.Failed ?? [],
              $metadata: { httpStatusCode: status, requestId: String(response.headers['x-amzn-requestid'] ?? '') },
            });
            return;
          }
          let type = '';
          let message = text.slice(0, 200);
          try {
            const error = JSON.parse(text) as { __type?: string; message?: string; Message?: string };
            type = (error.__type ?? '').split('#').pop() ?? '';
            message = error.message ?? error.Message ?? message;
          } catch {
            // Not JSON: the status says enough.
          }
          const retryable = status >= 500 || status === 429 || throttling.test(type);
          reject(new SqsCallError(`SQS answered ${status} ${type}: ${message}`.trim(), retryable));
        }, reject);
      },
    );
    request.setTimeout(answerTimeoutMs, () =>
      request.destroy(
        Object.assign(new Error(`SQS did not answer within ${answerTimeoutMs} ms`), { code: 'ETIMEDOUT' }),
      ),
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error instanceof SqsCallError
          ? error
          : new SqsCallError(
              `SQS could not be reached: ${error.message}`,
              retryableNetworkCodes.has(error.code ?? '') || /socket hang up/.test(error.message),
            ),
      ),
    );
    request.end(body);
  });
}

async function sendWithRetries(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await post(input);
    } catch (error) {
      if (attempt >= maxAttempts || !(error instanceof SqsCallError) || !error.retryable) throw error;
      // Full jitter: a random wait up to the doubling bound.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * backoffBaseMs * 2 ** attempt));
    }
  }
}

type Stack = MiddlewareStack<SendMessageBatchInput, SendMessageBatchOutput>;

/** The command, shaped as smithy's: the client's middleware runs around the call. */
export class SendMessageBatch {
  readonly middlewareStack: Stack = constructStack<SendMessageBatchInput, SendMessageBatchOutput>();

  constructor(readonly input: SendMessageBatchInput) {}

  resolveMiddleware(clientStack: Stack) {
    return clientStack
      .concat(this.middlewareStack)
      .resolve(
        async (args: { input: SendMessageBatchInput }) => ({ output: await sendWithRetries(args.input), response: {} }),
        { clientName: 'SQSClient', commandName: 'SendMessageBatchCommand' },
      );
  }
}

/** A client with nothing in its middleware stack but what others add to it. */
export class SqsBatchClient extends Client<
  object,
  SendMessageBatchInput,
  SendMessageBatchOutput,
  { requestHandler: never; apiVersion: string; cacheMiddleware: boolean }
> {
  constructor() {
    super({ requestHandler: undefined as never, apiVersion: '2012-11-05', cacheMiddleware: true });
  }

  sendBatch(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
    return this.send(new SendMessageBatch(input) as never);
  }
}
