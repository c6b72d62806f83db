/**
 * The SQS stand-in keeps messages in memory only. So that a graceful stop never drops an envelope
 * that was answered 202 (a tenant store may be down when you press Ctrl-C), the messages still in
 * the queues are written to DATA_DIR at stop and sent again at the next start. Receive counts
 * start over; bodies and attributes are kept.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  DeleteMessageBatchCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { QueueName } from '#shared/topology.ts';
import type { QueueUrls } from './provision.ts';

interface SavedMessage {
  queue: QueueName;
  body: string;
  attributes: Record<string, MessageAttributeValue>;
  groupId?: string;
  deduplicationId?: string;
}

export async function saveQueues(sqs: SQSClient, queueUrls: QueueUrls, file: string): Promise<number> {
  const saved: SavedMessage[] = [];
  for (const [queue, url] of Object.entries(queueUrls) as [QueueName, string][]) {
    for (;;) {
      const result = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: 300,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = result.Messages ?? [];
      if (messages.length === 0) break;
      for (const message of messages) {
        saved.push({
          queue,
          body: message.Body ?? '',
          attributes: message.MessageAttributes ?? {},
          groupId: message.Attributes?.MessageGroupId,
          deduplicationId: message.Attributes?.MessageDeduplicationId,
        });
      }
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
    }
  }
  if (saved.length > 0) writeFileSync(file, saved.map((message) => JSON.stringify(message)).join('\n'));
  return saved.length;
}

export async function restoreQueues(sqs: SQSClient, queueUrls: QueueUrls, file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  for (const line of lines) {
    const message = JSON.parse(line) as SavedMessage;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrls[message.queue],
        MessageBody: message.body,
        MessageAttributes: Object.keys(message.attributes).length > 0 ? message.attributes : undefined,
        MessageGroupId: message.groupId,
        MessageDeduplicationId: message.deduplicationId,
      }),
    );
  }
  rmSync(file);
  return lines.length;
}
