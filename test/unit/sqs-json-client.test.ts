/**
 * The ingest queue's SQS client resolves each action's middleware once and reuses it: middleware
 * added to the client (the cost bench's meter, X-Ray) must still see every call of every action,
 * under that action's command name and with that call's input. No network: the middleware here
 * answers each call itself, as a stub of SQS.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SqsJsonClient } from '#shared/adapters/sqs/json-client.ts';
import { callSqs, SqsCallError } from '#shared/adapters/sqs/json-protocol.ts';

interface Seen {
  command: string | undefined;
  client: string | undefined;
  input: Record<string, unknown>;
}

/** A client whose every call is answered by a middleware that records it. */
function recordingClient() {
  const seen: Seen[] = [];
  const client = new SqsJsonClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const stack = client.middlewareStack as unknown as {
    add(middleware: unknown, options: { step: string; name: string }): void;
  };
  stack.add(
    (_next: unknown, context: { commandName?: string; clientName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        seen.push({ command: context.commandName, client: context.clientName, input: args.input });
        return { output: { Successful: [{ Id: '0', MessageId: `m${seen.length}` }], Failed: [], $metadata: {} } };
      },
    { step: 'initialize', name: 'recorder' },
  );
  return { client, seen };
}

describe('the ingest queue client and the middleware added to it', () => {
  it('passes every call of every action through it, under its own command name and input', async () => {
    const { client, seen } = recordingClient();

    await client.sendBatch({ QueueUrl: 'http://q/1', Entries: [{ Id: '0', MessageBody: 'a' }] });
    await client.call('ReceiveMessage', { QueueUrl: 'http://q/1', MaxNumberOfMessages: 10, WaitTimeSeconds: 1 });
    await client.sendBatch({ QueueUrl: 'http://q/2', Entries: [{ Id: '0', MessageBody: 'b' }] });
    await client.call('DeleteMessageBatch', { QueueUrl: 'http://q/1', Entries: [{ Id: '0', ReceiptHandle: 'r' }] });
    await client.call('ReceiveMessage', { QueueUrl: 'http://q/3', MaxNumberOfMessages: 1, WaitTimeSeconds: 0 });

    expect(seen).toEqual([
      {
        command: 'SendMessageBatchCommand',
        client: 'SQSClient',
        input: { QueueUrl: 'http://q/1', Entries: [{ Id: '0', MessageBody: 'a' }] },
      },
      {
        command: 'ReceiveMessageCommand',
        client: 'SQSClient',
        input: { QueueUrl: 'http://q/1', MaxNumberOfMessages: 10, WaitTimeSeconds: 1 },
      },
      {
        command: 'SendMessageBatchCommand',
        client: 'SQSClient',
        input: { QueueUrl: 'http://q/2', Entries: [{ Id: '0', MessageBody: 'b' }] },
      },
      {
        command: 'DeleteMessageBatchCommand',
        client: 'SQSClient',
        input: { QueueUrl: 'http://q/1', Entries: [{ Id: '0', ReceiptHandle: 'r' }] },
      },
      {
        command: 'ReceiveMessageCommand',
        client: 'SQSClient',
        input: { QueueUrl: 'http://q/3', MaxNumberOfMessages: 1, WaitTimeSeconds: 0 },
      },
    ]);
  });

  it("answers each call with that call's output", async () => {
    const { client } = recordingClient();
    const first = await client.sendBatch({ QueueUrl: 'http://q/1', Entries: [{ Id: '0', MessageBody: 'a' }] });
    const second = await client.sendBatch({ QueueUrl: 'http://q/1', Entries: [{ Id: '0', MessageBody: 'b' }] });
    expect([first.Successful, second.Successful]).toEqual([
      [{ Id: '0', MessageId: 'm1' }],
      [{ Id: '0', MessageId: 'm2' }],
    ]);
  });

  it('keeps the middleware of one client to that client', async () => {
    const { client, seen } = recordingClient();
    const other = recordingClient();
    await client.sendBatch({ QueueUrl: 'http://q/1', Entries: [{ Id: '0', MessageBody: 'a' }] });
    await other.client.sendBatch({ QueueUrl: 'http://q/1', Entries: [{ Id: '0', MessageBody: 'b' }] });
    expect([seen.length, other.seen.length]).toEqual([1, 1]);
  });
});

/** A server on loopback that takes every request and never answers it (a connection gone silent); it counts them. */
async function silentServer() {
  const sockets: Socket[] = [];
  let requests = 0;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (data) => {
      requests += data.toString('latin1').split('POST / HTTP/1.1').length - 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the ingest queue client against a queue that does not answer', () => {
  it("gives the call up at its caller's deadline, and starts no attempt after it", async () => {
    const sqs = await silentServer();
    try {
      const client = new SqsJsonClient({
        endpoint: sqs.url,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      });
      // Unanswered attempts are tried again (three, 3 s each) unless the deadline comes first.
      const call = client.sendBatch(
        { QueueUrl: `${sqs.url}/000000000000/ingest`, Entries: [{ Id: '0', MessageBody: 'a' }] },
        Date.now() + 300,
      );
      await expect(call).rejects.toBeInstanceOf(SqsCallError);
      await expect(call).rejects.toThrow(/did not answer/);
      expect(sqs.requests()).toBe(1);
    } finally {
      await sqs.close();
    }
  });
});

describe('an answer of SQS', () => {
  it("is read by the caller's schema where it enters: another shape fails the call, not retried", async () => {
    let requests = 0;
    const server = createHttpServer((_, response) => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(requests === 1 ? '{"Successful":"none"}' : '{"Successful":[],"Failed":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const access = {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    };
    const answer = z.object({ Successful: z.array(z.unknown()), Failed: z.array(z.unknown()) });
    const call = { action: 'SendMessageBatch', input: { Entries: [] }, answer };
    try {
      const malformed = callSqs(access, `${access.endpoint}/000000000000/ingest`, call);
      await expect(malformed).rejects.toBeInstanceOf(SqsCallError);
      await expect(malformed).rejects.toMatchObject({
        retryable: false,
        message: /200 with an unexpected body: Successful/,
      });
      expect(requests).toBe(1);
      expect(await callSqs(access, `${access.endpoint}/000000000000/ingest`, call)).toEqual({
        Successful: [],
        Failed: [],
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
