/**
 * Platform-wide lists whose index partition is spread over shards. One partition key takes at most
 * 1,000 WCU/s, and a throttled index partition throttles the table writes that feed it: a list of
 * every job (or pipeline) of the platform under one key would cap every tenant's job moves at what
 * that one partition takes. So each item is written under `<base>#<nn>`, nn a stable hash of its id
 * modulo 16, and the list reads the 16 shards and merges them by the index's sort key, in the order
 * one partition would have answered.
 *
 * Items written before the shards keep the bare `<base>` key until their next write (every write of
 * such an item sets its shard), so the list also reads that legacy partition as a 17th source. Nothing
 * writes the bare key any more: the legacy partition only shrinks.
 *
 * A page's cursor holds where every source goes on: past the last sort key answered (see mergeSources),
 * sealed like every list cursor (shared/adapters/dynamo/cursors.ts) and about 110 characters long.
 */
import { createHash } from 'node:crypto';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { openCursor, refusedCursor, sealCursor } from './cursors.ts';
import type { StoredItem } from './stored-items.ts';
import { type QueryPageInput, queryKeys } from './table.ts';
import { globalIndexes, type IndexName } from './table-schema.ts';

export const shardCount = 16;

const shardName = (base: string, shard: number) => `${base}#${String(shard).padStart(2, '0')}`;

/** A stable shard of `id` among `count`: the first four bytes of its sha256, modulo `count`. */
export const shardOfId = (id: string, count: number) =>
  createHash('sha256').update(id).digest().readUInt32BE(0) % count;

/** The partition an item of a platform-wide list is written under: `<base>#<nn>`, the same for its every write. */
export function shardKey(base: string, id: string): string {
  return shardName(base, shardOfId(id, shardCount));
}

/** Every partition a platform-wide list reads: its 16 shards, then the legacy bare key. */
export function listPartitions(base: string): string[] {
  return [...Array.from({ length: shardCount }, (_, shard) => shardName(base, shard)), base];
}

/** Up to `limit` items of one source past a sort key (from its start when none), and the sort key to continue past. */
export type ReadSource = (
  source: number,
  past: string | undefined,
  limit: number,
) => Promise<{ items: StoredItem[]; next: string | undefined }>;

/**
 * One page of the merge of `sources` partitions, each already in sort-key order: at most `limit`
 * items past the sort key `past` (from the start when none), in the order of `sortOf` (descending when
 * `newestFirst`), and the sort key the next page goes on past, or null when every source is read to
 * the end. A source is read a few items at a time (its share of a page, doubling each time it runs
 * dry), so a page reads little more than it answers.
 *
 * Sort keys are unique across the sources (each holds its item's id, and an item is under one key at a
 * time), so the last key answered is where every source goes on: each source's position at the end of
 * a page is that same key. Sources read to their end are read again from it too: an item written before
 * the shards moves from the legacy partition into its shard on its next write, perhaps into a shard
 * already read to its end, and is still listed once, in its place.
 */
/** Where one source of a merged list stands: what it read and has not answered yet, and where it goes on. */
interface SourceState {
  past: string | undefined;
  buffer: StoredItem[];
  exhausted: boolean;
  chunk: number;
}

export async function mergeSources(input: {
  sources: number;
  past: string | undefined;
  limit: number;
  sortOf: (item: StoredItem) => string;
  newestFirst: boolean;
  read: ReadSource;
}): Promise<{ items: StoredItem[]; past: string | null }> {
  const { limit, sortOf, newestFirst, read } = input;
  const maxChunk = limit + 1;
  const states = Array.from(
    { length: input.sources },
    (): SourceState => ({
      past: input.past,
      buffer: [],
      exhausted: false,
      chunk: Math.min(maxChunk, Math.ceil(maxChunk / shardCount) + 1),
    }),
  );
  const fill = async (state: SourceState, source: number) => {
    while (state.buffer.length === 0 && !state.exhausted) {
      const answer = await read(source, state.past, state.chunk);
      state.buffer = answer.items;
      state.past = answer.next;
      state.exhausted = answer.next === undefined;
      state.chunk = Math.min(maxChunk, state.chunk * 2);
    }
  };
  const before = (a: StoredItem, b: StoredItem) => (newestFirst ? sortOf(a) > sortOf(b) : sortOf(a) < sortOf(b));

  const items: StoredItem[] = [];
  for (;;) {
    await Promise.all(states.map(fill));
    let best: SourceState | undefined;
    for (const state of states) {
      const head = state.buffer[0];
      if (head && (!best?.buffer[0] || before(head, best.buffer[0]))) best = state;
    }
    if (!best) return { items, past: null };
    // One more item than the page exists: the list goes on past the last one answered.
    const last = items[items.length - 1];
    if (last && items.length === limit) return { items, past: sortOf(last) };
    const next = best.buffer.shift();
    if (next) items.push(next);
  }
}

export interface ShardedListInput extends Pick<QueryPageInput, 'filter' | 'newestFirst'> {
  index: IndexName;
  /** The bare partition key the shards are named after (JOBS, PIPELINES). */
  base: string;
}

/** One page of a platform-wide list, every shard and the legacy partition merged; the cursor continues it. */
export async function queryShardedPage<T>(
  input: ShardedListInput,
  page: PageRequest,
  read: (item: StoredItem) => T,
): Promise<Page<T>> {
  const partitions = listPartitions(input.base);
  const list = `${input.index}|${partitions.join(',')}`;
  const past = page.cursor ? positionOf(await openCursor(list, page.cursor)) : undefined;
  const sortAttribute = globalIndexes.find((index) => index.name === input.index)?.sort;
  if (!sortAttribute) throw new Error(`Unknown index ${input.index}`);
  const sortOf = (item: StoredItem) => String(item[sortAttribute]);
  const merged = await mergeSources({
    sources: partitions.length,
    past,
    limit: page.limit,
    sortOf,
    newestFirst: input.newestFirst ?? false,
    read: async (source, past, limit) => {
      const partition = partitions[source];
      if (partition === undefined) throw new Error(`No partition ${source} in the list of ${input.base}`);
      const { items, nextKey } = await queryKeys(
        {
          index: input.index,
          partition,
          filter: input.filter,
          newestFirst: input.newestFirst,
          sortPast: past,
        },
        limit,
        undefined,
      );
      return { items, next: nextKey?.[sortAttribute] };
    },
  });
  return {
    items: merged.items.map(read),
    nextCursor: merged.past === null ? null : await sealCursor(list, merged.past),
  };
}

/** The sort key a sealed cursor holds; anything else (a cursor of another build of the list) is refused like a forged one. */
function positionOf(value: unknown): string {
  if (typeof value === 'string') return value;
  throw refusedCursor();
}
