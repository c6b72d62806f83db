/**
 * The public /health answers from a result at most 10 s old: a flood of requests costs one round of
 * AWS calls per period and instance. The clock here is a number the test moves.
 */
import { describe, expect, it } from 'vitest';
import { healthResultMaxAgeMs, recentResult } from '#shared/adapters/health-checks.ts';

describe('a recent result', () => {
  it('is run once per period, however often it is asked for, and again once the period is over', async () => {
    // Prepare
    let clock = 1_000_000;
    let runs = 0;
    const checks = recentResult(
      10_000,
      async () => ++runs,
      () => clock,
    );
    // Act: a burst, then 9.999 s later, then 10 s after the first run, then a burst again.
    const burst = await Promise.all(Array.from({ length: 50 }, checks));
    clock += 9_999;
    const almost = await checks();
    clock += 1;
    const next = await checks();
    const again = await Promise.all(Array.from({ length: 50 }, checks));
    // Assess
    expect({ burst: new Set(burst), almost, next, again: new Set(again), runs }).toEqual({
      burst: new Set([1]),
      almost: 1,
      next: 2,
      again: new Set([2]),
      runs: 2,
    });
  });

  it('shares a run still in flight rather than starting another', async () => {
    let release: (value: string) => void = () => {};
    let runs = 0;
    const checks = recentResult(10_000, () => {
      runs++;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    });
    const waiting = [checks(), checks(), checks()];
    release('healthy');
    expect(await Promise.all(waiting)).toEqual(['healthy', 'healthy', 'healthy']);
    expect(runs).toBe(1);
  });

  it('is at most 10 s old: the setting takes 0 to 10, and refuses more rather than passing it over', () => {
    const saved = process.env.HEALTH_MAX_AGE_SECONDS;
    try {
      const ages = ['', '3', '0', '10'].map((value) => {
        process.env.HEALTH_MAX_AGE_SECONDS = value;
        return healthResultMaxAgeMs();
      });
      expect(ages).toEqual([10_000, 3_000, 0, 10_000]);
      process.env.HEALTH_MAX_AGE_SECONDS = '3600';
      expect(() => healthResultMaxAgeMs()).toThrow(
        'Environment variable HEALTH_MAX_AGE_SECONDS must be a whole number from 0 to 10, got "3600"',
      );
    } finally {
      if (saved === undefined) delete process.env.HEALTH_MAX_AGE_SECONDS;
      else process.env.HEALTH_MAX_AGE_SECONDS = saved;
    }
  });
});
