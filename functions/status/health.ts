import {
  checkPlatformBucket,
  checkQueue,
  checkTable,
  healthResultMaxAgeMs,
  recentResult,
} from '#shared/adapters/health-checks.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { statusRoutes } from '#shared/routes/status.ts';
import type { QueueName } from '#shared/topology.ts';

const checkedQueues = Object.keys(statusRoutes['GET /health'].access.queues) as QueueName[];

/** The route is public: its checks run at most once per 10 s per instance, whatever the request rate. */
const checkAll = recentResult(healthResultMaxAgeMs(), () =>
  Promise.all([checkTable(), ...checkedQueues.map(checkQueue), checkPlatformBucket()]),
);

export const handler = apiHandler(statusRoutes, 'GET /health', async () => {
  const checks = await checkAll();
  const healthy = checks.every((check) => check.healthy);
  return { status: healthy ? 200 : 503, body: { status: healthy ? 'Healthy' : 'Unhealthy', checks } };
});
