import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type Poller, queueDepth, startPoller } from '../../local/event-source-poller.ts';
import { pollUntil } from '../support/poll.ts';

const env = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: env.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});

async function queuePair(visibilityTimeout = 1) {
  const name = `poller-${randomUUID().slice(0, 8)}`;
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const dlqArn = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const main = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(visibilityTimeout),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn.Attributes?.QueueArn, maxReceiveCount: 5 }),
      },
    }),
  );
  return { url: main.QueueUrl as string, dlqUrl: dlq.QueueUrl as string };
}

async function send(url: string, bodies: string[]) {
  for (let i = 0; i < bodies.length; i += 10) {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: bodies.slice(i, i + 10).map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
  }
}

/** Waits for what the handler has seen to satisfy `done`; on timeout, fails with what it had seen. */
async function until<T>(seen: () => T, done: (value: T) => boolean, timeoutMs = 20_000) {
  await pollUntil(async () => structuredClone(seen()), done, { timeoutMs, intervalMs: 50, what: 'the poller' });
}

/** Messages the queue still holds, visible or in flight: 0 means nothing can be delivered again. */
const depthOf = (url: string) => queueDepth(sqs, url);

async function drainAll(url: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const result = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    if (!result.Messages?.length) return bodies;
    bodies.push(...result.Messages.map((message) => message.Body ?? ''));
  }
}

let poller: Poller | undefined;
afterEach(async () => {
  await poller?.stop();
  poller = undefined;
});

/** The poller calls the queue as the runtime's hosts do: the stand-in's endpoint, the local credentials. */
const access = {
  endpoint: env.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
};

function start(
  url: string,
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>,
  extra: { batchSize?: number; window?: number; timeout?: number } = {},
) {
  poller = startPoller(access, {
    name: 'test',
    queueUrl: url,
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:test',
    handler,
    batchSize: extra.batchSize ?? 10,
    batchingWindowSeconds: extra.window ?? 0,
    timeoutSeconds: extra.timeout ?? 10,
    concurrency: 1,
  });
}

describe('the local event-source poller', () => {
  it('gathers batches up to the batch size within the window and deletes what succeeded', async () => {
    const { url } = await queuePair();
    await send(
      url,
      Array.from({ length: 25 }, (_, i) => `m${i}`),
    );
    const sizes: number[] = [];
    const seen = new Set<string>();
    start(
      url,
      async (event) => {
        sizes.push(event.Records.length);
        for (const record of event.Records) seen.add(record.body);
        return { batchItemFailures: [] };
      },
      { batchSize: 12, window: 1 },
    );
    await until(
      () => seen.size,
      (size) => size === 25,
    );
    expect(Math.max(...sizes)).toBeLessThanOrEqual(12);
    expect(sizes[0]).toBe(12);
    await poller?.stop();
    poller = undefined;
    expect(await drainAll(url)).toEqual([]);
  });

  // Another consumer's long poll gets nothing while the invocation holds the batch.
  it.each([
    [
      'a batch while its invocation runs past the visibility timeout, as six times the timeout does on AWS',
      { visibility: 1, window: 0, otherWaits: 3 },
    ],
    [
      // Received, then held 2 s for more: the invocation starts a second before its visibility ends.
      'a record received at the start of its batching window, when the window is over half the visibility timeout',
      { visibility: 3, window: 2, otherWaits: 4 },
    ],
  ] as const)('keeps hidden %s', async (_, { visibility, window, otherWaits }) => {
    const { url } = await queuePair(visibility);
    await send(url, ['held']);
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    start(
      url,
      async (event) => {
        seen.push(...event.Records.map((record) => record.body));
        await released;
        return { batchItemFailures: [] };
      },
      { window },
    );
    await until(
      () => seen.length,
      (count) => count === 1,
    );
    const other = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: otherWaits }),
    );
    expect(other.Messages ?? []).toEqual([]);
    release?.();
    await poller?.stop();
    poller = undefined;
    expect(seen).toEqual(['held']);
    expect(await depthOf(url)).toBe(0);
  });

  it('fills batches from a backlog with several receives at once, never past the batch size, and deletes every record', async () => {
    const { url } = await queuePair(30);
    const bodies = Array.from({ length: 437 }, (_, i) => `m${i}`);
    await send(url, bodies);
    const sizes: number[] = [];
    const seen: string[] = [];
    start(
      url,
      async (event) => {
        sizes.push(event.Records.length);
        seen.push(...event.Records.map((record) => record.body));
        return { batchItemFailures: [] };
      },
      { batchSize: 95, window: 2 },
    );
    await until(
      () => seen.length,
      (count) => count >= bodies.length,
    );
    await poller?.stop();
    poller = undefined;
    expect(sizes[0]).toBe(95);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(95);
    expect(seen.sort()).toEqual([...bodies].sort());
    expect(await depthOf(url)).toBe(0);
  });

  it('redelivers only the records listed in batchItemFailures, with a higher receive count', async () => {
    const { url } = await queuePair();
    await send(url, ['keep', 'retry']);
    const deliveries: { body: string; receiveCount: string }[] = [];
    start(url, async (event) => {
      for (const record of event.Records)
        deliveries.push({ body: record.body, receiveCount: record.attributes.ApproximateReceiveCount });
      const retry = event.Records.find(
        (record) => record.body === 'retry' && record.attributes.ApproximateReceiveCount === '1',
      );
      return { batchItemFailures: retry ? [{ itemIdentifier: retry.messageId }] : [] };
    });
    await until(
      () => deliveries,
      (seen) => seen.filter((delivery) => delivery.body === 'retry').length === 2,
    );
    await poller?.stop();
    poller = undefined;
    // Both were deleted: nothing is left to come back.
    expect(await depthOf(url)).toBe(0);
    expect(deliveries.filter((delivery) => delivery.body === 'keep')).toHaveLength(1);
    expect(deliveries.filter((delivery) => delivery.body === 'retry').map((delivery) => delivery.receiveCount)).toEqual(
      ['1', '2'],
    );
  });

  it('moves a record that fails five times to the dead-letter queue, body intact', async () => {
    const { url, dlqUrl } = await queuePair();
    const body = JSON.stringify({ poison: randomUUID() });
    await send(url, [body]);
    let attempts = 0;
    start(url, async (event) => {
      attempts += event.Records.length;
      return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
    });
    await until(
      () => attempts,
      (count) => count >= 5,
      30_000,
    );
    await pollUntil(
      () => depthOf(dlqUrl),
      (depth) => depth === 1,
      { what: 'the dead-letter queue to receive it' },
    );
    await poller?.stop();
    poller = undefined;
    expect(attempts).toBe(5);
    expect(await depthOf(url)).toBe(0);
    expect(await drainAll(dlqUrl)).toEqual([body]);
  });

  it('returns the whole batch when the handler throws, times out, or names an unknown record', async () => {
    for (const failure of ['throw', 'timeout', 'unknown-id'] as const) {
      const { url } = await queuePair();
      await send(url, ['a', 'b']);
      let invocations = 0;
      const bodiesPerInvocation: string[][] = [];
      start(
        url,
        async (event) => {
          invocations++;
          bodiesPerInvocation.push(event.Records.map((record) => record.body).sort());
          if (invocations === 1) {
            if (failure === 'throw') throw new Error('boom');
            if (failure === 'timeout') await new Promise((resolve) => setTimeout(resolve, 3000));
            if (failure === 'unknown-id') return { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] };
          }
          return { batchItemFailures: [] };
        },
        { timeout: 1 },
      );
      await until(
        () => bodiesPerInvocation.flat().length,
        (count) => count >= 4,
      );
      await poller?.stop();
      poller = undefined;
      expect({ failure, redelivered: bodiesPerInvocation.flat().sort() }).toEqual({
        failure,
        redelivered: ['a', 'a', 'b', 'b'],
      });
    }
  });
});
