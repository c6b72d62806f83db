import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { config } from '../../config.ts';
import { type QueueName, queues } from '../../topology.ts';
import { sqs } from './client.ts';

/** Messages on a queue: waiting, being processed, or delayed (approximate, as SQS counts them). */
export async function queueDepth(queue: QueueName): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: config.queueUrl(queues[queue].envVar),
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}
