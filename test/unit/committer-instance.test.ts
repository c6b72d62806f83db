import { describe, expect, it } from 'vitest';
import { commitMemoryBytes, FreshnessTargets } from '#shared/domain/ingest/committer-instance.ts';

const mb = 1024 * 1024;

describe("a committer instance's freshness targets", () => {
  /** Table properties as the data sets hold them, and the reads made of them. */
  const source = (own: Record<string, number>, clock: { now: number }) => {
    const reads: string[][] = [];
    return {
      reads,
      read: async (tableIds: string[]) => {
        reads.push(tableIds);
        return new Map(tableIds.flatMap((id) => (own[id] === undefined ? [] : [[id, own[id]] as const])));
      },
      defaultMs: () => 300_000,
      now: () => clock.now,
    };
  };

  it("are each table's own, or the deployment's default for a table that sets none", async () => {
    const targets = new FreshnessTargets(source({ a: 0, b: 5_000 }, { now: 0 }));
    expect(await targets.of(['a', 'b', 'c'])).toEqual(
      new Map([
        ['a', 0],
        ['b', 5_000],
        ['c', 300_000],
      ]),
    );
  });

  it('are read once a minute per table, however often asked, then read again', async () => {
    const clock = { now: 1_000_000 };
    const own = { a: 1_000 };
    const properties = source(own, clock);
    const targets = new FreshnessTargets(properties);
    await targets.of(['a']);
    own.a = 2_000;
    clock.now += 59_999;
    expect(await targets.of(['a', 'b'])).toEqual(
      new Map([
        ['a', 1_000],
        ['b', 300_000],
      ]),
    );
    clock.now += 1;
    expect((await targets.of(['a', 'b'])).get('a')).toBe(2_000);
    expect(properties.reads).toEqual([['a'], ['b'], ['a']]);
  });
});

describe('the staged bytes the commits of an invocation hold at once', () => {
  it("are the function's memory less what else it holds, at 3 bytes held per payload byte", () => {
    // 1,769 MB × 3/4 − 64 MB kept − 150 MB of code = 1,112.75 MB, a third of it held as payload.
    expect(Math.round(commitMemoryBytes(1769))).toBe(388_934_315);
    expect(commitMemoryBytes(10_240)).toBe((((10_240 * 3) / 4 - 214) * mb) / 3);
  });

  it('are never less than one size target, and unbounded where the memory is not known', () => {
    expect(commitMemoryBytes(512)).toBe(64 * mb);
    expect(commitMemoryBytes(0)).toBe(Number.POSITIVE_INFINITY);
    expect(commitMemoryBytes(Number.NaN)).toBe(Number.POSITIVE_INFINITY);
  });
});
