import { readCounter } from '#shared/adapters/dynamo/counters.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { type MetricKey, metricCatalogue, renderPrometheus } from '#shared/domain/observability/metric-catalogue.ts';
import { statusRoutes } from '#shared/routes/status.ts';

export const handler = apiHandler(statusRoutes, 'GET /metrics', async () => {
  const keys = Object.keys(metricCatalogue) as MetricKey[];
  const samples = new Map(await Promise.all(keys.map(async (key) => [key, await readCounter(key)] as const)));
  return { status: 200, raw: { contentType: 'text/plain; version=0.0.4', content: renderPrometheus(samples) } };
});
