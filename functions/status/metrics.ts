import { readRecentCounters } from '#shared/adapters/dynamo/counters.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { renderPrometheus } from '#shared/domain/observability/metric-catalogue.ts';
import { statusRoutes } from '#shared/routes/status.ts';

export const handler = apiHandler(statusRoutes, 'GET /metrics', async () => {
  const { samples, unaccounted } = await readRecentCounters();
  return {
    status: 200,
    raw: { contentType: 'text/plain; version=0.0.4', content: renderPrometheus(samples, unaccounted) },
  };
});
