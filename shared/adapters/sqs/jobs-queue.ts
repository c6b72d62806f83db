import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../../config.ts';
import { queues } from '../../topology.ts';
import { sqs } from './client.ts';

/** Offers a job to the runners, now or after a delay (a job whose partition is busy waits its turn). */
export async function dispatchJob(jobId: string, delaySeconds = 0): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: config.queueUrl(queues.jobs.envVar),
      MessageBody: JSON.stringify({ job_id: jobId }),
      DelaySeconds: delaySeconds,
    }),
  );
}
