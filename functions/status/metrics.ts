import { readRecentCounters } from '#shared/adapters/dynamo/counters.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { renderPrometheus } from '#shared/domain/observability/metric-catalogue.ts';
import { statusRoutes } from '#shared/routes/status.ts';

export const handler = apiHandler(statusRoutes, 'GET /metrics', async ({ query }) => {
  const { samples, unaccounted } = await readRecentCounters(Date.now(), { shard: query.shard, shards: query.shards });
  return {
    status: 200,
    raw: { contentType: 'text/plain; version=0.0.4', content: renderPrometheus(samples, unaccounted) },
  };
});
