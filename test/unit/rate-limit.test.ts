/**
 * A source's rate limit as many ingest instances hold it together, on a fake clock: its shards in
 * an in-memory store that honours the same two conditional writes as the table, every write counted
 * per shard and second. The bounds checked are the token bucket's own (rate × t + burst), written out.
 */
import { describe, expect, it } from 'vitest';
import { leaseMs, RateLimiter, type RateShardStore, shardsFor } from '#shared/domain/ingest/rate-limit.ts';
import { seededRandom } from '../../bench/envelopes.ts';

function memoryShards(clock: { now: number }) {
  const arrival = new Map<string, number>();
  /** Writes (made or refused: DynamoDB charges both) per shard item and simulated second. */
  const writes = new Map<string, number>();
  const counted = (sourceId: string, shard: number) => {
    const key = `${sourceId}#${shard}@${Math.floor(clock.now / 1000)}`;
    writes.set(key, (writes.get(key) ?? 0) + 1);
    return `${sourceId}#${shard}`;
  };
  const store: RateShardStore = {
    async restart(sourceId, shard, { idleBefore, to }) {
      await Promise.resolve();
      const key = counted(sourceId, shard);
      const found = arrival.get(key);
      if (found !== undefined && found >= idleBefore) return { done: false, arrivalMs: found };
      arrival.set(key, to);
      return { done: true, arrivalMs: to };
    },
    async advance(sourceId, shard, { from, atMost, by }) {
      await Promise.resolve();
      const key = counted(sourceId, shard);
      const found = arrival.get(key);
      if (found === undefined || found < from || found > atMost) return { done: false, arrivalMs: found ?? null };
      arrival.set(key, found + by);
      return { done: true, arrivalMs: found + by };
    },
  };
  return { store, writes };
}

/**
 * `perSecond` requests a second for `seconds`, spread evenly in time and at random over `instances`
 * limiters sharing one store; those of one millisecond arrive together.
 */
async function offer(options: {
  instances: number;
  perSecond: number;
  seconds: number;
  rate: number;
  burst: number;
  start?: number;
}) {
  const clock = { now: options.start ?? 1_000_000 };
  const { store, writes } = memoryShards(clock);
  const random = seededRandom(7);
  const limiters = Array.from({ length: options.instances }, () => new RateLimiter(store, random));
  const total = options.perSecond * options.seconds;
  const answers: { at: number; allowed: boolean; retryAfterSeconds: number }[] = [];
  const start = clock.now;
  for (let ms = 0; ms < options.seconds * 1000; ms++) {
    clock.now = start + ms;
    const due =
      Math.floor(((ms + 1) * total) / (options.seconds * 1000)) - Math.floor((ms * total) / (options.seconds * 1000));
    const decisions = await Promise.all(
      Array.from({ length: due }, () => {
        const limiter = limiters[Math.floor(random() * limiters.length)] as RateLimiter;
        return limiter.take('source', options.rate, options.burst, clock.now);
      }),
    );
    for (const decision of decisions) answers.push({ at: ms, ...decision });
  }
  return { answers, writes, admitted: answers.filter((answer) => answer.allowed).length };
}

describe('a source rate limit held by many instances', () => {
  it('lets the burst through at once, refuses with the wait until the next token, then allows again', async () => {
    const clock = { now: 0 };
    const limiter = new RateLimiter(memoryShards(clock).store);
    const at = (ms: number) => limiter.take('s', 2, 3, ms);
    expect([await at(0), await at(0), await at(0)].map((decision) => decision.allowed)).toEqual([true, true, true]);
    expect(await at(0)).toEqual({ allowed: false, retryAfterSeconds: 0.5 });
    expect(await at(499)).toEqual({ allowed: false, retryAfterSeconds: 0.001 });
    expect(await at(500)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect((await at(500)).allowed).toBe(false);
    // A quiet period refills the bucket to its burst, never beyond.
    expect([await at(60_000), await at(60_000), await at(60_000), await at(60_000)].map((d) => d.allowed)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('splits 10,000 requests/s into 40 shards of 250, each with a share of the burst', () => {
    expect(shardsFor(10_000, 20_000)).toEqual({ count: 40, intervalMs: 4, burst: 500 });
    expect(shardsFor(5, 10)).toEqual({ count: 1, intervalMs: 200, burst: 10 });
    // A burst below the shard count: each shard still holds one token.
    expect(shardsFor(1000, 1)).toEqual({ count: 4, intervalMs: 4, burst: 1 });
    // About one a day at the least; a lower limit stored before that was checked is held to it.
    for (const rate of [0.00001, 1e-13]) {
      const least = shardsFor(rate, 1);
      expect({ count: least.count, burst: least.burst }).toEqual({ count: 1, burst: 1 });
      expect(least.intervalMs).toBeCloseTo(100_000_000, 0);
    }
  });

  for (const instances of [50, 1000])
    it(`holds 10,000 requests/s offered 20,000/s over ${instances} instances, no shard written 1,000 times a second`, async () => {
      const rate = 10_000;
      const burst = 10_000;
      const seconds = 4;
      const { answers, writes, admitted } = await offer({ instances, perSecond: 20_000, seconds, rate, burst });
      // The bucket's bound: rate × t + every shard's burst (40 × 250) + what leases carry over (rate × leaseMs).
      const shards = shardsFor(rate, burst);
      expect(admitted).toBeLessThanOrEqual(rate * seconds + shards.count * shards.burst + (rate * leaseMs) / 1000);
      // After the first second (the burst), each second admits about the rate: over it never by more
      // than a lease's worth, under it by a little (tokens left in shards or leases, instances waiting).
      for (let second = 1; second < seconds; second++) {
        const inSecond = answers.filter((a) => a.allowed && Math.floor(a.at / 1000) === second).length;
        expect(inSecond).toBeLessThanOrEqual(rate + (rate * leaseMs) / 1000);
        expect(inSecond).toBeGreaterThanOrEqual((instances > 100 ? 0.85 : 0.95) * rate);
      }
      expect(Math.max(...writes.values())).toBeLessThan(1000);
      for (const refusal of answers.filter((a) => !a.allowed))
        expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(0);
      if (instances === 50) {
        // Leases: far fewer writes than requests admitted.
        const allWrites = [...writes.values()].reduce((sum, count) => sum + count, 0);
        expect(allWrites).toBeLessThan(admitted / 4);
      }
    }, 60_000);

  it('refuses nothing below the limit, however the requests fall on instances', async () => {
    const { answers } = await offer({ instances: 200, perSecond: 8_000, seconds: 2, rate: 10_000, burst: 2_000 });
    expect(answers.filter((answer) => !answer.allowed)).toEqual([]);
  });

  it('keeps a low limit exact across instances: 5 requests/s, burst 1, offered 50/s over 10 instances', async () => {
    const { answers, admitted } = await offer({ instances: 10, perSecond: 50, seconds: 10, rate: 5, burst: 1 });
    // One at the start, then one every 200 ms: 50 in 10 s, 51 with the first.
    expect(admitted).toBeLessThanOrEqual(51);
    expect(admitted).toBeGreaterThanOrEqual(45);
    const times = answers.filter((answer) => answer.allowed).map((answer) => answer.at);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(200 - leaseMs);
  });

  it('takes a changed limit at once', async () => {
    const clock = { now: 0 };
    const limiter = new RateLimiter(memoryShards(clock).store);
    expect((await limiter.take('s', 1, 1, 0)).allowed).toBe(true);
    expect((await limiter.take('s', 1, 1, 1)).allowed).toBe(false);
    expect((await limiter.take('s', 1000, 1000, 2)).allowed).toBe(true);
  });
});
