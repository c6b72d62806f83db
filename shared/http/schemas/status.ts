import * as z from 'zod';

export const healthReport = z
  .object({
    status: z.enum(['Healthy', 'Unhealthy']),
    checks: z.array(z.object({ name: z.string(), healthy: z.boolean() })),
  })
  .meta({ id: 'HealthReport' });

/**
 * GET /metrics answers the platform's series and those of all sources, a few items to read however
 * many sources there are. With `shards`, it answers instead the series of each source that moved
 * within the hour, those of shard `shard` of the sources, so that a scrape's reading and answer stay
 * within a function's time and 6 MB; each shard is a scrape target of its own. The counts divide the
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
      .optional()
      .meta({
        description:
          "Answer the series of each source that moved within the hour instead, split in this many shards (1, 2, 4, 8, 16, 32 or 64); without it, the platform's series and those of all sources",
      }),
    shard: z.coerce.number().int().min(0).optional().meta({
      description: 'Which shard of the sources this scrape answers for, from 0 to shards - 1 (0 by default)',
    }),
  })
  .refine((query) => (query.shard ?? 0) < (query.shards ?? 1), {
    message: 'shard must be below shards',
    path: ['shard'],
  });
