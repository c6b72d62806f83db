import { readPlatformCounters, readRecentCounters } from '#shared/adapters/dynamo/counters.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { renderPrometheus, unaccountedTotal } from '#shared/domain/observability/metric-catalogue.ts';
import { statusRoutes } from '#shared/routes/status.ts';

const prometheusText = (content: string) => ({
  status: 200,
  raw: { contentType: 'text/plain; version=0.0.4', content },
});

/**
 * The platform's series and those of all sources; with `shards`, the series of each source that
 * moved within the hour, a shard of them a scrape.
 */
export const handler = apiHandler(statusRoutes, 'GET /metrics', async ({ query }) => {
  if (query.shards === undefined) {
    const { samples, unaccounted } = await readPlatformCounters();
    return prometheusText(renderPrometheus(samples, unaccounted));
  }
  const { samples, unaccounted } = await readRecentCounters(Date.now(), {
    shard: query.shard ?? 0,
    shards: query.shards,
  });
  return prometheusText(renderPrometheus(samples, unaccountedTotal(unaccounted)));
});
