/**
 * The platform's AWS clients give up on an attempt that gets no answer and try again
 * (shared/adapters/aws-http.ts), against node's own servers on the loopback: one that takes every
 * request and never answers, one that trickles a body slowly but steadily. The limits are shortened
 * here; the clients' own are checked as settings.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallLimits, callLimits } from '#shared/adapters/aws-http.ts';
import { db } from '#shared/adapters/dynamo/table.ts';
import { platformS3 } from '#shared/adapters/s3/platform-bucket.ts';
import { sqs } from '#shared/adapters/sqs/client.ts';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test-secret' };
const servers: Server[] = [];

/** A server on the loopback; `requests` counts the requests it began to read. */
async function serve(handle: (request: IncomingMessage, answer: import('node:http').ServerResponse) => void) {
  const seen = { requests: 0 };
  const server = createServer((request, answer) => {
    seen.requests++;
    handle(request, answer);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const short = (limits: Partial<CallLimits>): CallLimits => ({
  connectMs: 1_000,
  answerMs: 300,
  idleMs: 2_000,
  ...limits,
});

describe('an AWS call that gets no answer', () => {
  it("is an attempt that failed, tried again on the SDK's attempts (DynamoDB's four), then a TimeoutError", async () => {
    const { endpoint, seen } = await serve(() => {
      // Reads the request and never answers.
    });
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials,
      requestHandler: callLimits(short({})),
    });
    const call = client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(seen.requests).toBe(4);
    client.destroy();
  });

  it('without the limits, the same call is still waiting when the limited one has given up', async () => {
    const { endpoint } = await serve(() => {});
    const limited = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials,
      requestHandler: callLimits(short({})),
    });
    const plain = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
    const input = { TableName: 't', Key: { pk: { S: 'a' } } };
    let plainSettled = false;
    plain.send(new GetItemCommand(input)).then(
      () => (plainSettled = true),
      () => (plainSettled = true),
    );
    await expect(limited.send(new GetItemCommand(input))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(plainSettled).toBe(false);
    limited.destroy();
    plain.destroy();
  });

  it('an upload or download of any length goes on while bytes flow; a silent one fails', async () => {
    // Answers a GET with 12 pieces 100 ms apart (1.2 s in all, four times the answer limit below), and never answers a PUT.
    const { endpoint, seen } = await serve((request, answer) => {
      if (request.method !== 'GET') return;
      answer.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '12' });
      let sent = 0;
      const timer = setInterval(() => {
        answer.write('x');
        if (++sent === 12) {
          clearInterval(timer);
          answer.end();
        }
      }, 100);
    });
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      credentials,
      forcePathStyle: true,
      requestHandler: callLimits(short({ answerMs: null, idleMs: 400 })),
    });
    const got = await client.send(new GetObjectCommand({ Bucket: 'b', Key: 'k' }));
    expect(await got.Body?.transformToString()).toBe('xxxxxxxxxxxx');
    await expect(client.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'body' }))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(seen.requests).toBe(1 + 3);
    client.destroy();
  });
});

describe("the platform's clients", () => {
  /** The settings a client's request handler was made with. */
  const settingsOf = async (client: { config: { requestHandler: unknown } }) =>
    (await (client.config.requestHandler as { configProvider: Promise<Record<string, unknown>> })
      .configProvider) as Record<string, unknown>;

  it('DynamoDB and SQS: 3 s to connect, an answer begun within 5 s, 20 s of silence at most', async () => {
    for (const client of [db, sqs]) {
      expect(await settingsOf(client)).toMatchObject({
        connectionTimeout: 3_000,
        requestTimeout: 5_000,
        throwOnRequestTimeout: true,
        socketTimeout: 20_000,
      });
    }
  });

  it('the platform bucket: 3 s to connect, 20 s of silence at most, no limit on a whole transfer', async () => {
    const settings = await settingsOf(platformS3);
    expect(settings).toMatchObject({ connectionTimeout: 3_000, socketTimeout: 20_000 });
    expect(settings.throwOnRequestTimeout).not.toBe(true);
  });
});
