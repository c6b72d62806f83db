import { checkPlatformBucket, checkQueue, checkTable } from '#shared/adapters/health-checks.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { routes } from '#shared/routes.ts';
import type { QueueName } from '#shared/topology.ts';

const checkedQueues = Object.keys(routes['GET /health'].access.queues) as QueueName[];

export const handler = apiHandler('GET /health', async () => {
  const checks = await Promise.all([checkTable(), ...checkedQueues.map(checkQueue), checkPlatformBucket()]);
  const healthy = checks.every((check) => check.healthy);
  return { status: healthy ? 200 : 503, body: { status: healthy ? 'Healthy' : 'Unhealthy', checks } };
});
