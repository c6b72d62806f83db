/**
 * The ingest guards' DynamoDB adapter in this process, against the shared DynamoDB Local, with the
 * clock handed in: a deduplication window that passes and a rate that refills, without waiting for
 * either. The webhook-senders tests show the same guards through the service.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import { useServiceEnvironment } from '../support/service-env.ts';

let guards: typeof import('#shared/adapters/dynamo/ingest-guards.ts');
beforeAll(async () => {
  useServiceEnvironment();
  guards = await import('#shared/adapters/dynamo/ingest-guards.ts');
});

const t0 = Date.parse('2026-11-21T10:00:00.000Z');

describe.concurrent('the ingest guards in the table', () => {
  it('answer the first message id for a key inside its window, and take the key over once the window has passed', async ({
    expect,
  }) => {
    const source = randomUUID();
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    expect(await guards.claimDedupKey(source, 'evt_1', first, 4, t0)).toBe(first);
    expect(await guards.claimDedupKey(source, 'evt_1', second, 4, t0 + 3999)).toBe(first);
    expect(await guards.claimDedupKey(source, 'evt_2', second, 4, t0 + 3999)).toBe(second);
    expect(await guards.claimDedupKey(source, 'evt_1', third, 4, t0 + 4000)).toBe(third);
    expect(await guards.claimDedupKey(source, 'evt_1', randomUUID(), 4, t0 + 5000)).toBe(third);
  });

  it('let the burst through, refuse with the wait until the next request fits, then allow again', async ({
    expect,
  }) => {
    const source = randomUUID();
    const take = (at: number) => guards.takeRateToken(source, 1, 3, at);
    const decisions = [await take(t0), await take(t0), await take(t0), await take(t0 + 10)];
    expect(decisions).toEqual([
      { allowed: true, retryAfterSeconds: 0 },
      { allowed: true, retryAfterSeconds: 0 },
      { allowed: true, retryAfterSeconds: 0 },
      { allowed: false, retryAfterSeconds: 0.99 },
    ]);
    expect(await take(t0 + 999)).toMatchObject({ allowed: false });
    expect(await take(t0 + 1000)).toEqual({ allowed: true, retryAfterSeconds: 0 });
  });

  it('share one allowance between instances: each learns the shard from the write it was refused', async ({
    expect,
  }) => {
    const { RateLimiter } = await import('#shared/domain/ingest/rate-limit.ts');
    const source = randomUUID();
    const [first, second] = [new RateLimiter(guards.rateShards), new RateLimiter(guards.rateShards)];
    expect(await first.take(source, 1, 2, t0)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    // The second instance knows nothing of the shard: its first write fails and answers the arrival time.
    expect(await second.take(source, 1, 2, t0 + 100)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect(await second.take(source, 1, 2, t0 + 200)).toEqual({ allowed: false, retryAfterSeconds: 0.8 });
    expect(await first.take(source, 1, 2, t0 + 300)).toEqual({ allowed: false, retryAfterSeconds: 0.7 });
    expect((await first.take(source, 1, 2, t0 + 1000)).allowed).toBe(true);
  });

  it('admit exactly the burst among concurrent takers', async ({ expect }) => {
    const source = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 8 }, () => guards.takeRateToken(source, 1, 5, t0)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
  });
});
