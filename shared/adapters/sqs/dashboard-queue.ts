import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../../config.ts';
import { queues } from '../../topology.ts';
import { sqs } from './client.ts';

export async function requestDashboardProvisioning(tenantId: string, redeliver = false): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: config.queueUrl(queues.dashboard.envVar),
      MessageBody: JSON.stringify({ tenant_id: tenantId, ...(redeliver ? { redeliver: true } : {}) }),
    }),
  );
}
