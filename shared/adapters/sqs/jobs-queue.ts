import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../../config.ts';
import { queues } from '../../topology.ts';
import { sqs } from './client.ts';

/**
 * Sends a job's offer to the runners, now or after a delay (a job whose partition is busy waits its turn). The offer's
 * number travels with it: a runner drops a message whose number is not the job's latest (offers.ts).
 */
export async function dispatchJob(jobId: string, offer: number, delaySeconds = 0): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: config.queueUrl(queues.jobs.envVar),
      MessageBody: JSON.stringify({ job_id: jobId, offer }),
      DelaySeconds: delaySeconds,
    }),
  );
}
