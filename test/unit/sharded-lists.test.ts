/**
 * A platform-wide list spread over shards reads like the one partition it replaces: every item once,
 * in the index's sort-key order, page after page, the legacy partition merged in. The sources here are
 * sorted arrays read the way DynamoDB answers a Query (a sort-key condition, a limit, the key to go on
 * from); the expected pages are written out.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCursor, sealCursor } from '#shared/adapters/dynamo/cursors.ts';
import { listPartitions, mergeSources, type ReadSource, shardKey } from '#shared/adapters/dynamo/sharded-lists.ts';
import type { StoredItem } from '#shared/adapters/dynamo/stored-items.ts';

const saved = { ...process.env };
beforeAll(() => {
  process.env.SECRETS_KEY = randomBytes(32).toString('base64url');
});
afterAll(() => {
  process.env = saved;
});

/** Sources of sort keys, each in ascending order; `hidden` items are read but filtered out, as a FilterExpression does. */
function sourcesOf(sources: string[][], options: { newestFirst?: boolean; hidden?: string[] } = {}) {
  const { newestFirst = false, hidden = [] } = options;
  const calls: { source: number; past: string | undefined; limit: number }[] = [];
  const read: ReadSource = async (source, past, limit) => {
    calls.push({ source, past, limit });
    const all = [...(sources[source] ?? [])].sort();
    if (newestFirst) all.reverse();
    const rest = all.filter((key) => past === undefined || (newestFirst ? key < past : key > past));
    // DynamoDB's Limit counts items evaluated, before the filter.
    const evaluated = rest.slice(0, limit);
    return {
      items: evaluated.filter((key) => !hidden.includes(key)).map((s) => ({ s })),
      next: rest.length > limit ? evaluated[evaluated.length - 1] : undefined,
    };
  };
  return { read, calls };
}

async function everyPage(
  sources: string[][],
  limit: number,
  options: { newestFirst?: boolean; hidden?: string[] } = {},
) {
  const { read } = sourcesOf(sources, options);
  const newestFirst = options.newestFirst ?? false;
  const pages: string[][] = [];
  let past: string | undefined;
  do {
    const page = await mergeSources({
      sources: sources.length,
      past,
      limit,
      sortOf: (item: StoredItem) => String(item.s),
      newestFirst,
      read,
    });
    pages.push(page.items.map((item) => String(item.s)));
    past = page.past ?? undefined;
    if (pages.length > 50) throw new Error('The list does not end');
  } while (past);
  return pages;
}

// Three shards with interleaved sort keys, and the legacy partition (the last source) with old and new-looking keys.
const shards = [
  ['2026-01-01#a', '2026-01-04#d', '2026-01-05#e', '2026-01-09#i'],
  ['2026-01-02#b', '2026-01-08#h', '2026-01-10#j'],
  ['2026-01-06#f', '2026-01-11#k'],
  ['2026-01-03#c', '2026-01-07#g'],
];

describe('the merge of a platform-wide list', () => {
  it('answers every item once, in ascending sort-key order, in pages of 3', async () => {
    expect(await everyPage(shards, 3)).toEqual([
      ['2026-01-01#a', '2026-01-02#b', '2026-01-03#c'],
      ['2026-01-04#d', '2026-01-05#e', '2026-01-06#f'],
      ['2026-01-07#g', '2026-01-08#h', '2026-01-09#i'],
      ['2026-01-10#j', '2026-01-11#k'],
    ]);
  });

  it('answers newest first when the list is read backwards', async () => {
    expect(await everyPage(shards, 3, { newestFirst: true })).toEqual([
      ['2026-01-11#k', '2026-01-10#j', '2026-01-09#i'],
      ['2026-01-08#h', '2026-01-07#g', '2026-01-06#f'],
      ['2026-01-05#e', '2026-01-04#d', '2026-01-03#c'],
      ['2026-01-02#b', '2026-01-01#a'],
    ]);
  });

  it('ends without an empty last page when the items fill the pages exactly', async () => {
    expect(
      await everyPage(
        [
          ['1', '4'],
          ['2', '5'],
          ['3', '6'],
        ],
        3,
      ),
    ).toEqual([
      ['1', '2', '3'],
      ['4', '5', '6'],
    ]);
    expect(await everyPage([[], [], []], 3)).toEqual([[]]);
  });

  it('skips what the filter leaves out and still answers the rest in order', async () => {
    const hidden = ['2026-01-02#b', '2026-01-04#d', '2026-01-05#e', '2026-01-08#h', '2026-01-10#j'];
    expect(await everyPage(shards, 3, { hidden })).toEqual([
      ['2026-01-01#a', '2026-01-03#c', '2026-01-06#f'],
      ['2026-01-07#g', '2026-01-09#i', '2026-01-11#k'],
    ]);
  });

  it('answers a large page from sources of very different sizes (a legacy partition holding most items)', async () => {
    const legacy = Array.from({ length: 250 }, (_, i) => `2025-${String(i).padStart(4, '0')}`);
    const pages = await everyPage([['2026-01-01#a'], ['2026-01-02#b'], legacy], 100);
    expect(pages.map((page) => page.length)).toEqual([100, 100, 52]);
    expect(pages.flat()).toEqual([...legacy, '2026-01-01#a', '2026-01-02#b']);
  });

  it('reads each source a few items at a time, and goes on past the last item answered', async () => {
    const { read, calls } = sourcesOf(shards);
    const merge = (past: string | undefined) =>
      mergeSources({
        sources: shards.length,
        past,
        limit: 3,
        sortOf: (item) => String(item.s),
        newestFirst: false,
        read,
      });
    const first = await merge(undefined);
    expect(first.items.map((item) => item.s)).toEqual(['2026-01-01#a', '2026-01-02#b', '2026-01-03#c']);
    expect(first.past).toBe('2026-01-03#c');
    // Its share of a page of 3 over 16 shards, plus one.
    expect(calls).toEqual([0, 1, 2, 3].map((source) => ({ source, past: undefined, limit: 2 })));
    calls.length = 0;
    const second = await merge('2026-01-03#c');
    expect(second.items.map((item) => item.s)).toEqual(['2026-01-04#d', '2026-01-05#e', '2026-01-06#f']);
    expect(second.past).toBe('2026-01-06#f');
    // Shard 0 answered d and e and ran dry: it is read again, twice as many items at a time.
    expect(calls).toEqual([
      ...[0, 1, 2, 3].map((source) => ({ source, past: '2026-01-03#c', limit: 2 })),
      { source: 0, past: '2026-01-05#e', limit: 4 },
    ]);
  });

  it('still lists, once, an item that moved from the legacy partition into a shard already read to its end', async () => {
    const sources = [['2026-01-09#i'], ['2026-01-01#a', '2026-01-02#b', '2026-01-03#c'], ['2026-01-05#e']];
    const { read } = sourcesOf(sources, { newestFirst: true });
    const merge = (past: string | undefined) =>
      mergeSources({ sources: 3, past, limit: 3, sortOf: (item) => String(item.s), newestFirst: true, read });
    const first = await merge(undefined);
    expect(first.items.map((item) => item.s)).toEqual(['2026-01-09#i', '2026-01-05#e', '2026-01-03#c']);
    // Between the pages, the legacy item b is written again and moves to shard 0 (read to its end already).
    sources[1] = ['2026-01-01#a', '2026-01-03#c'];
    sources[0] = ['2026-01-02#b', '2026-01-09#i'];
    const second = await merge(first.past ?? undefined);
    expect(second.items.map((item) => item.s)).toEqual(['2026-01-02#b', '2026-01-01#a']);
    expect(second.past).toBeNull();
  });
});

describe('the partitions of a platform-wide list', () => {
  it('puts an item under one of 16 shards by a hash of its id, the same on every write', () => {
    // sha256 of the id, its first four bytes as an unsigned big-endian number, modulo 16 (worked out with Python's hashlib).
    expect(shardKey('JOBS', 'j-1')).toBe('JOBS#04');
    expect(shardKey('JOBS', '00000000-0000-4000-8000-000000000000')).toBe('JOBS#00');
    expect(shardKey('PIPELINES', 'p-1')).toBe('PIPELINES#14');
  });

  it('reads the 16 shards and then the legacy key', () => {
    expect(listPartitions('JOBS')).toEqual([
      'JOBS#00',
      'JOBS#01',
      'JOBS#02',
      'JOBS#03',
      'JOBS#04',
      'JOBS#05',
      'JOBS#06',
      'JOBS#07',
      'JOBS#08',
      'JOBS#09',
      'JOBS#10',
      'JOBS#11',
      'JOBS#12',
      'JOBS#13',
      'JOBS#14',
      'JOBS#15',
      'JOBS',
    ]);
  });

  it('keeps a cursor far under the 4,096 characters a cursor may have', async () => {
    const past = '2026-11-27T17:27:05.123Z#ffffffff-ffff-4fff-bfff-ffffffffffff';
    const list = `gsi2|${listPartitions('PIPELINES').join(',')}`;
    const cursor = await sealCursor(list, past);
    expect(cursor.length).toBe(107);
    expect(await openCursor(list, cursor)).toBe(past);
  });
});
