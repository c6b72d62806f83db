/**
 * Lambda's SQS event source mapping, locally. Each poller gathers a batch (up to the batch size,
 * within the batching window, under Lambda's 6 MB invocation payload), invokes the consumer with an
 * SQS event, and then does what Lambda does with the answer:
 *   - success: deletes every record except those listed in batchItemFailures (ReportBatchItemFailures);
 *   - a malformed failure list, an exception or a timeout: deletes nothing, the whole batch returns;
 * Records that are not deleted reappear after the visibility timeout, and the queue's own redrive
 * policy moves a record to the dead-letter queue once it has been received five times. While an
 * invocation runs, its records stay hidden (their visibility timeout is extended every half of it):
 * on AWS a queue's visibility timeout is six times its consumer's timeout, so no record reappears
 * while its invocation runs; a local one is seconds, so that failed records come back quickly, and
 * without this a busy machine's slow invocation had its records delivered again beside it (a commit
 * trigger handled by two committers at once; one received five times would be dead-lettered while
 * its committers ran).
 *
 * On AWS the mapping's polls cost the function nothing; here they share its thread, a receive and a
 * delete per ten records, so they go through SQS's JSON protocol directly rather than the SDK
 * (shared/adapters/sqs/json-protocol.ts), at a fraction of its CPU; still as an SQS client's calls,
 * which the cost bench meters as the event source mapping's. Like Lambda's pollers, it makes several
 * of them at once: one after the other, gathering and deleting a batch of 1,000 records took longer
 * than writing it.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { SqsJsonClient } from '#shared/adapters/sqs/json-client.ts';
import type { SqsAccess } from '#shared/adapters/sqs/json-protocol.ts';
import { lambdaContext, withTimeout } from './lambda-context.ts';

/** A message as ReceiveMessage answers it in SQS's JSON protocol. */
interface Message {
  MessageId: string;
  ReceiptHandle: string;
  Body?: string;
  MD5OfBody?: string;
  Attributes?: Record<string, string>;
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string; BinaryValue?: string }>;
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined | undefined>;

export interface PollerOptions {
  name: string;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  batchSize: number;
  batchingWindowSeconds: number;
  /** The invocation's time limit, for a handler that does not keep it itself (a hosted function does). */
  timeoutSeconds?: number;
  concurrency: number;
  /** Called with each invocation's outcome (used by logs and tests of the runtime). */
  onInvocation?: (outcome: { records: number; failed: number; error?: Error }) => void;
}

const maxInvocationPayloadBytes = 6 * 1024 * 1024;
/** How long an idle poller's long poll waits for a first record (and so how long a stop may wait for it). */
const idleWaitSeconds = 1;
/** Within a batching window, how long to pause before asking an empty queue again. */
const windowPauseMs = 100;
/** Receives in flight at once while a batch gathers from a queue that has more (deletes: twice as many). */
const receivesAtOnce = 5;

function toRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue,
          stringListValues: [],
          binaryListValues: [],
          dataType: value.DataType ?? 'String',
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

export interface Poller {
  /** Stops gathering new batches and waits for invocations in flight. */
  stop(): Promise<void>;
  /** Makes the records this poller holds but did not delete visible again at once. */
  release(): Promise<void>;
}

export function startPoller(access: SqsAccess, options: PollerOptions): Poller {
  const sqs = new SqsJsonClient(access);
  let stopping = false;
  /** Records received and not deleted, by message id: released on stop so a snapshot can take them. */
  const held = new Map<string, string>();

  /** A batch of records, and when its first was received (its visibility timeout runs from then). */
  async function gather(): Promise<{ batch: Message[]; receivedAt: number }> {
    const batch: Message[] = [];
    let bytes = 0;
    let largest = 0;
    /** Messages asked for by receives in flight: a batch never exceeds its size. */
    let asked = 0;
    const room = () => Math.min(10, options.batchSize - batch.length - asked);
    const receive = async (count: number, waitSeconds: number): Promise<number> => {
      asked += count;
      let messages: Message[];
      try {
        const result = await sqs.call<{ Messages?: Message[] }>('ReceiveMessage', {
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: count,
          WaitTimeSeconds: waitSeconds,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        });
        messages = result.Messages ?? [];
      } finally {
        asked -= count;
      }
      for (const message of messages) {
        const size = Buffer.byteLength(message.Body ?? '');
        batch.push(message);
        held.set(message.MessageId, message.ReceiptHandle);
        bytes += size;
        largest = Math.max(largest, size);
      }
      return messages.length;
    };

    // The window opens with the first record: until then a long poll waits for one (and a stop
    // waits at most that long).
    if (stopping || (await receive(room(), idleWaitSeconds)) === 0) return { batch, receivedAt: Date.now() };
    const receivedAt = Date.now();
    const windowEnds = receivedAt + options.batchingWindowSeconds * 1000;
    // Within the window, short polls: several at once while the queue has more to give (a full
    // batch then takes a few round trips, not a hundred), one with a pause between once it is empty.
    // No receive starts that could take the batch past its size, or, judged by the largest record
    // so far, past the invocation payload limit.
    const more = () =>
      !stopping && Date.now() < windowEnds && room() > 0 && bytes + asked * largest < maxInvocationPayloadBytes;
    let lanes = 0;
    const lane = async () => {
      lanes++;
      try {
        while (more()) {
          if ((await receive(room(), 0)) > 0) continue;
          if (lanes > 1) return;
          const pauseMs = Math.max(0, Math.min(windowEnds - Date.now(), windowPauseMs));
          await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
      } finally {
        lanes--;
      }
    };
    await Promise.all(Array.from({ length: receivesAtOnce }, lane));
    return { batch, receivedAt };
  }

  async function deleteRecords(messages: Message[]): Promise<void> {
    const chunks: Message[][] = [];
    for (let i = 0; i < messages.length; i += 10) chunks.push(messages.slice(i, i + 10));
    // Several deletes at once: a thousand records are a hundred calls.
    for (let i = 0; i < chunks.length; i += receivesAtOnce * 2) {
      await Promise.all(
        chunks.slice(i, i + receivesAtOnce * 2).map(async (chunk) => {
          const result = await sqs.call<{ Failed?: { Id: string }[] }>('DeleteMessageBatch', {
            QueueUrl: options.queueUrl,
            Entries: chunk.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
          });
          const failedIds = new Set((result.Failed ?? []).map((failure) => failure.Id));
          chunk.forEach((message, index) => {
            if (!failedIds.has(String(index))) held.delete(message.MessageId);
          });
        }),
      );
    }
  }

  /** The queue's visibility timeout (seconds), read once. */
  let visibility: Promise<number> | undefined;
  const visibilityOf = () => {
    visibility ??= sqs
      .call<{ Attributes?: Record<string, string> }>('GetQueueAttributes', {
        QueueUrl: options.queueUrl,
        AttributeNames: ['VisibilityTimeout'],
      })
      .then((answer) => Number(answer.Attributes?.VisibilityTimeout ?? 30));
    visibility.catch(() => (visibility = undefined));
    return visibility;
  };

  /**
   * Keeps the batch hidden until stopped: its visibility timeout extended half of it after its first
   * record was received (up to a batching window before the invocation began: at once, if that is
   * past), and every half of it since. An invocation that ends sooner makes no call.
   */
  async function hide(batch: Message[], receivedAt: number): Promise<() => void> {
    const seconds = await visibilityOf().catch(() => null);
    if (seconds === null || seconds <= 0) return () => undefined;
    const extend = () => {
      for (let i = 0; i < batch.length; i += 10)
        void sqs
          .call('ChangeMessageVisibilityBatch', {
            QueueUrl: options.queueUrl,
            Entries: batch.slice(i, i + 10).map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: seconds,
            })),
          })
          .catch(() => undefined);
    };
    const halfMs = (seconds * 1000) / 2;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const every = () => {
      extend();
      timer = setTimeout(every, halfMs);
    };
    timer = setTimeout(every, Math.max(0, receivedAt + halfMs - Date.now()));
    return () => clearTimeout(timer);
  }

  async function invoke(batch: Message[], receivedAt: number): Promise<void> {
    const records = batch.map((message) => toRecord(message, options.queueArn));
    // Hidden while the invocation runs, not past its end or its timeout (a hosted function keeps its own).
    const shown = await hide(batch, receivedAt);
    const invocation = Promise.resolve(
      options.handler({ Records: records }, lambdaContext(options.name, options.timeoutSeconds ?? 900)),
    );
    try {
      const response = await (options.timeoutSeconds === undefined
        ? invocation
        : withTimeout(invocation, options.timeoutSeconds, options.name)
      ).finally(shown);
      const failures = response && 'batchItemFailures' in response ? response.batchItemFailures : [];
      const ids = new Set(records.map((record) => record.messageId));
      // Lambda treats a failure list naming an unknown or empty id as a failure of the whole batch.
      if (failures.some((failure) => !failure.itemIdentifier || !ids.has(failure.itemIdentifier))) {
        throw new Error('batchItemFailures names a record that is not in the batch');
      }
      const failed = new Set(failures.map((failure) => failure.itemIdentifier));
      await deleteRecords(batch.filter((message) => !failed.has(message.MessageId)));
      options.onInvocation?.({ records: records.length, failed: failed.size });
    } catch (error) {
      options.onInvocation?.({ records: records.length, failed: records.length, error: error as Error });
    }
  }

  /** The last error logged: the same error again is not logged again until the queue answers. */
  let lastError: string | null = null;

  async function loop(): Promise<void> {
    while (!stopping) {
      try {
        const { batch, receivedAt } = await gather();
        if (lastError) process.stderr.write(`poller ${options.name}: the queue answers again\n`);
        lastError = null;
        if (batch.length > 0) await invoke(batch, receivedAt);
      } catch (error) {
        if (stopping) break;
        const message = (error as Error).message;
        if (message !== lastError) process.stderr.write(`poller ${options.name}: ${message}\n`);
        lastError = message;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  const loops = Array.from({ length: options.concurrency }, () => loop());

  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
    async release() {
      await Promise.all(
        [...held.values()].map((receiptHandle) =>
          sqs
            .call('ChangeMessageVisibility', {
              QueueUrl: options.queueUrl,
              ReceiptHandle: receiptHandle,
              VisibilityTimeout: 0,
            })
            .catch(() => undefined),
        ),
      );
      held.clear();
    },
  };
}

/**
 * Messages still to take from a queue: visible or in flight. Delayed ones are not counted: they are
 * meant for later (commit triggers waiting for their table to be due, which a graceful stop commits
 * at once), and a drain that waited for them would wait up to 15 minutes.
 */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const result = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const attributes = result.Attributes ?? {};
  return (
    Number(attributes.ApproximateNumberOfMessages ?? 0) + Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}
