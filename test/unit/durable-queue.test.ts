/**
 * The SQS stand-in's durable queues, in-process on a temporary directory: what a reopen (a restart
 * after a stop, a crash or a power cut) finds, receive counts across restarts, a torn journal tail,
 * group commit, compaction, and the JSON protocol as the AWS SDK speaks it.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalFileName } from '../../local/sqs/journal.ts';
import { sqsRequestHandler } from '../../local/sqs/protocol.ts';
import { QueueService, queueArn } from '../../local/sqs/queues.ts';

let directory: string;
let clock: number;
const open = async (options: { compactAfterBytes?: number; compactRatio?: number } = {}) =>
  (await QueueService.open({ directory, now: () => clock, ...options })).service;

beforeEach(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'durable-queue-'));
  clock = Date.UTC(2026, 10, 21, 10, 0, 0);
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function withDeadLetterQueue(service: QueueService, visibilityTimeout = '10') {
  await service.createQueue('work-dlq', {});
  await service.createQueue('work', {
    VisibilityTimeout: visibilityTimeout,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: queueArn('work-dlq'), maxReceiveCount: 5 }),
  });
}

const depth = (service: QueueService, queue: string) => {
  const attributes = service.attributesOf(queue, ['All']);
  return {
    visible: Number(attributes.ApproximateNumberOfMessages),
    inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible),
    delayed: Number(attributes.ApproximateNumberOfMessagesDelayed),
  };
};

describe('the durable queues, reopened', () => {
  it('find every sent message not deleted, with its receive count and visibility', async () => {
    const first = await open();
    await withDeadLetterQueue(first);
    const sent = await first.send('work', [
      { body: 'a' },
      { body: 'b' },
      { body: 'c' },
      { body: 'd', delaySeconds: 60 },
    ]);
    const [received] = await first.receive('work', { max: 1, waitSeconds: 0 });
    const [deleted] = await first.receive('work', { max: 1, waitSeconds: 0 });
    await first.delete('work', [deleted?.receiptHandle as string]);
    await first.close();

    const second = await open();
    expect(depth(second, 'work')).toEqual({ visible: 1, inFlight: 1, delayed: 1 });
    clock += 11_000;
    const again = await second.receive('work', { max: 10, waitSeconds: 0 });
    expect(again.map((message) => [message.body, message.systemAttributes.ApproximateReceiveCount]).sort()).toEqual([
      ['a', '2'],
      ['c', '1'],
    ]);
    expect(again.find((message) => message.body === 'a')?.messageId).toBe(received?.messageId);
    await second.delete(
      'work',
      again.map((message) => message.receiptHandle),
    );
    clock += 60_000;
    const delayed = await second.receive('work', { max: 10, waitSeconds: 0 });
    expect(delayed.map((message) => [message.messageId, message.body])).toEqual([[sent[3]?.messageId, 'd']]);
    await second.close();
  });

  it('send a poison message to the dead-letter queue after five receives, however many restarts between them', async () => {
    const first = await open();
    await withDeadLetterQueue(first);
    const [poison] = await first.send('work', [{ body: 'poison' }]);
    await first.close();

    const counts: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const service = await open();
      const received = await service.receive('work', { max: 10, waitSeconds: 0 });
      counts.push(...received.map((message) => message.systemAttributes.ApproximateReceiveCount as string));
      await service.close();
      clock += 11_000;
    }
    const last = await open();
    const dead = await last.receive('work-dlq', { max: 10, waitSeconds: 0 });
    expect({ counts, dead: dead.map((message) => [message.messageId, message.body]) }).toEqual({
      counts: ['1', '2', '3', '4', '5'],
      dead: [[poison?.messageId, 'poison']],
    });
    expect(depth(last, 'work')).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    await last.close();
  });

  it('drop a torn last line (a flush a crash cut short) and keep everything before it', async () => {
    const first = await open();
    await first.createQueue('work', {});
    await first.send('work', [{ body: 'kept' }]);
    await first.close();
    appendFileSync(path.join(directory, journalFileName), '{"t":"send","q":"work","m":{"id":"x","body":"half');

    const { service, replayed } = await QueueService.open({ directory, now: () => clock });
    expect(replayed).toMatch(/torn tail of \d+ bytes/);
    await service.send('work', [{ body: 'after' }]);
    const bodies = (await service.receive('work', { max: 10, waitSeconds: 0 })).map((message) => message.body).sort();
    expect(bodies).toEqual(['after', 'kept']);
    await service.close();
  });

  it('ignore a delete with the receipt handle of an earlier receive', async () => {
    const service = await open();
    await service.createQueue('work', { VisibilityTimeout: '1' });
    await service.send('work', [{ body: 'slow' }]);
    const [early] = await service.receive('work', { max: 1, waitSeconds: 0 });
    clock += 2000;
    const [late] = await service.receive('work', { max: 1, waitSeconds: 0 });
    await service.delete('work', [early?.receiptHandle as string]);
    expect(depth(service, 'work')).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
    await service.delete('work', [late?.receiptHandle as string]);
    expect(depth(service, 'work')).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    await service.close();
  });
});

describe('the journal', () => {
  it('flushes concurrent sends together (group commit) and holds each of them', async () => {
    const service = await open();
    await service.createQueue('work', {});
    const flushesBefore = service.journalFlushes();
    await Promise.all(Array.from({ length: 200 }, (_, i) => service.send('work', [{ body: `m${i}` }])));
    const flushes = service.journalFlushes() - flushesBefore;
    await service.close();
    const lines = readFileSync(path.join(directory, journalFileName), 'utf8').split('\n').filter(Boolean);
    expect({ flushes: flushes <= 3, sends: lines.filter((line) => line.includes('"t":"send"')).length }).toEqual({
      flushes: true,
      sends: 200,
    });
  });

  it('is compacted as messages are deleted, and a reopen finds the same state', async () => {
    const service = await open({ compactAfterBytes: 4096, compactRatio: 2 });
    await service.createQueue('work', {});
    for (let round = 0; round < 50; round++) {
      await service.send('work', [{ body: `round ${round} ${'x'.repeat(200)}` }]);
      const [message] = await service.receive('work', { max: 1, waitSeconds: 0 });
      if (round % 10 !== 0) await service.delete('work', [message?.receiptHandle as string]);
    }
    const size = statSync(path.join(directory, journalFileName)).size;
    await service.close();
    const reopened = await open();
    expect({ small: size < 16 * 1024, queued: depth(reopened, 'work') }).toEqual({
      small: true,
      queued: { visible: 0, inFlight: 5, delayed: 0 },
    });
    await reopened.close();
  });
});

describe('the SQS JSON protocol, through the AWS SDK', () => {
  let server: Server;
  let sqs: SQSClient;
  let service: QueueService;

  beforeEach(async () => {
    service = (await QueueService.open({ directory })).service;
    server = createServer(
      sqsRequestHandler(service, () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The SDK checks every MD5 the stand-in computes (bodies and message attributes).
    sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
  });
  afterEach(async () => {
    sqs.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await service.close();
  });

  it('sends, receives with attributes, deletes, and counts', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'orders' }));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'first ✓',
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'order' },
          blob: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]) },
        },
      }),
    );
    const batch = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'second' },
          { Id: 'b', MessageBody: 'bad \u0001 character' },
        ],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['a']);
    expect(batch.Failed?.map((entry) => [entry.Id, entry.Code])).toEqual([['b', 'InvalidMessageContents']]);

    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    expect(messages.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount])).toEqual([
      ['first ✓', '1'],
      ['second', '1'],
    ]);
    expect(messages[0]?.MessageAttributes?.kind?.StringValue).toBe('order');
    expect(Buffer.from(messages[0]?.MessageAttributes?.blob?.BinaryValue ?? [])).toEqual(Buffer.from([1, 2, 3]));

    const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    expect(attributes.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('2');
    expect(attributes.Attributes?.QueueArn).toBe(queueArn('orders'));

    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
    expect(deleted.Successful?.length).toBe(2);
    const after = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    expect([
      after.Attributes?.ApproximateNumberOfMessages,
      after.Attributes?.ApproximateNumberOfMessagesNotVisible,
    ]).toEqual(['0', '0']);
  });

  it('answers a long poll as soon as a message arrives', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'waits' }));
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'wake up' }));
    expect((await polling).Messages?.map((message) => message.Body)).toEqual(['wake up']);
  });

  it('refuses what SQS refuses, with the errors the SDK knows', async () => {
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: Error) => error.name,
      );
    expect(await refusal(sqs.send(new GetQueueUrlCommand({ QueueName: 'nowhere' })))).toBe('QueueDoesNotExist');
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'strict' }));
    expect(
      await refusal(sqs.send(new CreateQueueCommand({ QueueName: 'strict', Attributes: { VisibilityTimeout: '5' } }))),
    ).toBe('QueueNameExists');
    expect(
      await refusal(sqs.send(new CreateQueueCommand({ QueueName: 'fifo', Attributes: { FifoQueue: 'true' } }))),
    ).toBe('UnsupportedOperation');
    // SQS's maximum message size, and a queue's default, is 1 MiB (since August 2025; 256 KiB before).
    expect(await refusal(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(1_048_576) })))).toBe(
      'accepted',
    );
    expect(await refusal(sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(1_048_577) })))).toBe(
      'InvalidParameterValue',
    );
    expect(
      await refusal(
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl,
            Entries: Array.from({ length: 11 }, (_, i) => ({ Id: String(i), MessageBody: 'm' })),
          }),
        ),
      ),
    ).toBe('TooManyEntriesInBatchRequest');
    expect(
      await refusal(
        sqs
          .send(new DeleteMessageBatchCommand({ QueueUrl, Entries: [{ Id: 'a', ReceiptHandle: 'no-such-handle' }] }))
          .then((result) => {
            if (result.Failed?.length) throw Object.assign(new Error(), { name: result.Failed[0]?.Code });
          }),
      ),
    ).toBe('ReceiptHandleIsInvalid');
  });
});
