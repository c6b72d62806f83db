/**
 * Keeps received messages off their queue for a while: SQS ChangeMessageVisibility with each one's
 * receipt handle (ten to a call), the timeout counted from the call. A consumer's role may do this on
 * the queue it consumes (its event source mapping's grant; declared as `consume` in its access).
 */
import { ChangeMessageVisibilityBatchCommand } from '@aws-sdk/client-sqs';
import { config } from '../../config.ts';
import { type QueueName, queues } from '../../topology.ts';
import { sqs } from './client.ts';

/** Defers the messages; resolves with how many SQS refused (a handle gone stale: that message is visible already). */
export async function deferMessages(
  queue: QueueName,
  messages: { receiptHandle: string; seconds: number }[],
): Promise<number> {
  let refused = 0;
  for (let i = 0; i < messages.length; i += 10) {
    const result = await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: config.queueUrl(queues[queue].envVar),
        Entries: messages.slice(i, i + 10).map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.receiptHandle,
          VisibilityTimeout: message.seconds,
        })),
      }),
    );
    refused += result.Failed?.length ?? 0;
  }
  return refused;
}
