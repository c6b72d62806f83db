import * as z from 'zod';

export const healthReport = z
  .object({
    status: z.enum(['Healthy', 'Unhealthy']),
    checks: z.array(z.object({ name: z.string(), healthy: z.boolean() })),
  })
  .meta({ id: 'HealthReport' });

/**
 * GET /metrics in shards: each answers for the sources of its shard (and shard 0 for the platform's
 * own series too), so that a scrape's reading and answer stay within a function's time and 6 MB
 * however many sources move. Each shard is a scrape target of its own. The counts divide the
 * counters' 64 index shards (shared/adapters/dynamo/counters.ts).
 */
export const metricsShardCounts = [1, 2, 4, 8, 16, 32, 64] as const;

export const metricsQuery = z
  .strictObject({
    shards: z.coerce
      .number()
      .int()
      .refine((shards) => (metricsShardCounts as readonly number[]).includes(shards), {
        message: `shards must be one of ${metricsShardCounts.join(', ')}`,
      })
      .default(1)
      .meta({ description: 'How many shards the scrape is split in (1, 2, 4, 8, 16, 32 or 64)' }),
    shard: z.coerce.number().int().min(0).default(0).meta({
      description: 'Which shard this scrape answers for, from 0 to shards - 1; shard 0 adds the platform series',
    }),
  })
  .refine((query) => query.shard < query.shards, { message: 'shard must be below shards', path: ['shard'] });
