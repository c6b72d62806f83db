import { describe, expect, it } from 'vitest';
import { type IdsPageReader, MessageIdWindows } from '#shared/adapters/message-id-windows.ts';

const minute = 60_000;

/** Versions 0..n-1 with two ids each, claimed a minute apart up to `now`; pages of 4; every page read counted. */
function coordinator(count: number, now: number) {
  const versions = Array.from({ length: count }, (_, version) => ({
    version,
    claimedAt: now - (count - 1 - version) * minute,
    ids: [`a${version}`, `b${version}`],
  }));
  const reads: { above?: number; below?: number }[] = [];
  const readPage: IdsPageReader = async (_, range, newestFirst, start) => {
    reads.push(range);
    const selected = versions
      .filter(
        (held) =>
          (range.above === undefined || held.version > range.above) &&
          (range.below === undefined || held.version < range.below),
      )
      .sort((a, b) => (newestFirst ? b.version - a.version : a.version - b.version));
    const from = (start as number | undefined) ?? 0;
    return { versions: selected.slice(from, from + 4), next: from + 4 < selected.length ? from + 4 : undefined };
  };
  return { versions, reads, readPage };
}

describe('the window of recent message ids', () => {
  it('reads the newest versions down to `since`, then only what was committed since', async () => {
    const now = Date.parse('2026-11-20T12:00:00Z');
    const table = coordinator(30, now);
    const windows = new MessageIdWindows(table.readPage, () => now);
    expect(await windows.written('t', ['a29', 'b25', 'zz'], now - 5 * minute)).toEqual(new Set(['a29', 'b25']));
    expect(table.reads.every((range) => range.above === undefined)).toBe(true);

    table.versions.push({ version: 30, claimedAt: now, ids: ['new'] });
    table.reads.length = 0;
    expect(await windows.written('t', ['new', 'a28'], now - minute)).toEqual(new Set(['new', 'a28']));
    expect(table.reads).toEqual([{ above: 29 }]);
  });

  it('reaches back past the window for an old redelivery, without keeping what it read', async () => {
    const now = Date.parse('2026-11-20T12:00:00Z');
    const table = coordinator(60, now);
    const windows = new MessageIdWindows(table.readPage, () => now);
    await windows.written('t', ['a59'], now - minute);
    expect(await windows.written('t', ['a2', 'b40', 'missing'], now - 58 * minute)).toEqual(new Set(['a2', 'b40']));
    // An id older than `since` is not looked for: its versions were claimed before it was ingested.
    expect(await windows.written('t', ['a0'], now - 30 * minute)).toEqual(new Set());
    table.reads.length = 0;
    await windows.written('t', ['a59'], now - minute);
    expect(table.reads).toEqual([{ above: 59 }]);
  });
});
