/**
 * The snapshot cache holds table states up to a number of bytes, whatever the number of tables:
 * many quiet tables fit where a few large ones would not, and the least recently used go first.
 */
import { describe, expect, it } from 'vitest';
import { type LogReader, SnapshotCache, stateBytes } from '#delta/kernel/snapshot.ts';

/** A table's log in memory: version 0 with protocol, metadata and `files` adds; reads counted. */
function logOf(files: number, reads: { count: number }): LogReader {
  const lines = [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    {
      metaData: {
        id: 'table',
        format: { provider: 'parquet', options: {} },
        schemaString: '{"type":"struct","fields":[]}',
        partitionColumns: [],
        configuration: {},
        createdTime: 0,
      },
    },
    ...Array.from({ length: files }, (_, i) => ({
      add: {
        path: `dt=2026-11-21/part-${String(i).padStart(6, '0')}.zstd.parquet`,
        partitionValues: { dt: '2026-11-21' },
        size: 1000,
        modificationTime: 0,
        dataChange: true,
        stats: '{"numRecords":1}',
      },
    })),
  ];
  const commit = Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n'));
  return {
    storage: {
      async getIfExists(key) {
        reads.count++;
        return key === '_delta_log/00000000000000000000.json' ? commit : null;
      },
      async list() {
        reads.count++;
        return [];
      },
    },
    decodeCheckpoint: async () => [],
  };
}

describe('the snapshot cache', () => {
  it('keeps 20,000 quiet tables (more than a bound on their number would) when their bytes fit', async () => {
    const reads = { count: 0 };
    const reader = logOf(1, reads);
    const cache = new SnapshotCache(64 * 1024 * 1024);
    for (let i = 0; i < 20_000; i++) await cache.source(reader).current(`table-${i}`);
    const opened = reads.count;
    for (let i = 0; i < 20_000; i++) expect((await cache.source(reader).current(`table-${i}`)).version).toBe(0);
    expect(reads.count).toBe(opened);
    expect(cache.bytesHeld).toBeLessThanOrEqual(64 * 1024 * 1024);
  });

  it('evicts the least recently used tables once the bytes held pass the bound, and reads them again', async () => {
    const reads = { count: 0 };
    const small = logOf(10, reads);
    const large = logOf(2000, reads);
    const sizes = { small: 0, large: 0 };
    const probe = new SnapshotCache();
    sizes.small = stateBytes(await probe.source(small).current('probe-small'));
    sizes.large = stateBytes(await probe.source(large).current('probe-large'));
    // Room for the large table and two small ones, not three.
    const cache = new SnapshotCache(sizes.large + 2 * sizes.small + sizes.small / 2);
    await cache.source(small).current('a');
    await cache.source(small).current('b');
    await cache.source(small).current('a');
    await cache.source(large).current('big');
    await cache.source(small).current('c');
    expect(cache.bytesHeld).toBeLessThanOrEqual(sizes.large + 2.5 * sizes.small);

    const readsFor = async (tableId: string, reader: LogReader) => {
      const before = reads.count;
      await cache.source(reader).current(tableId);
      return reads.count - before;
    };
    // 'b' was used least recently: it went first; 'a', 'big' and 'c' stayed.
    expect(await readsFor('a', small)).toBe(0);
    expect(await readsFor('c', small)).toBe(0);
    expect(await readsFor('big', large)).toBe(0);
    expect(await readsFor('b', small)).toBeGreaterThan(0);
  });

  it('keeps a single state larger than the bound rather than none', async () => {
    const reads = { count: 0 };
    const large = logOf(2000, reads);
    const cache = new SnapshotCache(1024);
    await cache.source(large).current('big');
    const before = reads.count;
    expect((await cache.source(large).current('big')).files.size).toBe(2000);
    expect(reads.count).toBe(before);
  });
});

/**
 * A log in memory whose objects a test replaces: commits as JSON lines, a checkpoint as JSON lines
 * too (this reader's own decoder), `_last_checkpoint` naming it.
 */
function storeOf(objects: Map<string, string>, reads: { count: number }): LogReader {
  return {
    storage: {
      async getIfExists(key) {
        reads.count++;
        const text = objects.get(key);
        return text === undefined ? null : Buffer.from(text);
      },
      async list(prefix) {
        reads.count++;
        return [...objects.keys()]
          .filter((key) => key.startsWith(prefix))
          .map((key) => ({ key, size: 0, lastModified: 0 }));
      },
    },
    decodeCheckpoint: async (file) =>
      Buffer.from(file)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}

const lines = (...actions: object[]) => actions.map((action) => JSON.stringify(action)).join('\n');
const add = (name: string) => ({
  add: { path: name, partitionValues: {}, size: 1, modificationTime: 0, dataChange: true },
});
const hourRetention = {
  metaData: {
    id: 'table',
    format: { provider: 'parquet', options: {} },
    schemaString: '{"type":"struct","fields":[]}',
    partitionColumns: [],
    configuration: { 'delta.logRetentionDuration': 'interval 1 hour' },
    createdTime: 0,
  },
};
const protocol = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } };
const log = (version: number) => `_delta_log/${String(version).padStart(20, '0')}.json`;

describe('a kept state and the log clean-up', () => {
  it('is read again once half the log retention has passed since it was known to be the end', async () => {
    const objects = new Map([[log(0), lines(protocol, hourRetention, add('a.parquet'))]]);
    const reads = { count: 0 };
    const reader = storeOf(objects, reads);
    let now = 0;
    const cache = new SnapshotCache(undefined, () => now);
    expect((await cache.source(reader).current('t')).version).toBe(0);

    // Another writer commits versions 1 and 2 and checkpoints at 2; the clean-up deletes 0 and 1, as
    // Spark's does once they are older than the table's hour (deleted here at once, so that what each
    // read below reads shows).
    objects.set(log(1), lines(add('b.parquet')));
    objects.set(log(2), lines(add('c.parquet')));
    objects.set(
      '_delta_log/00000000000000000002.checkpoint.parquet',
      lines(protocol, hourRetention, add('a.parquet'), add('b.parquet'), add('c.parquet')),
    );
    objects.set('_delta_log/_last_checkpoint', JSON.stringify({ version: 2, size: 5 }));
    objects.delete(log(0));
    objects.delete(log(1));

    // 29 minutes on: the kept state stands (a commit's conditional write would meet version 1 had it
    // been made since, as it could not be cleaned up yet).
    now = 29 * 60_000;
    const before = reads.count;
    expect((await cache.source(reader).current('t')).version).toBe(0);
    expect(reads.count).toBe(before);

    // 31 minutes on: read again, from the checkpoint, not a version 1 written over a deleted one.
    now = 31 * 60_000;
    const state = await cache.source(reader).current('t');
    expect(state.version).toBe(2);
    expect([...state.files.keys()].sort()).toEqual(['a.parquet', 'b.parquet', 'c.parquet']);
  });

  it('counts from the last commit it kept, and trusts a table of the default 30 days an hour at most', async () => {
    const objects = new Map([[log(0), lines(protocol, hourRetention, add('a.parquet'))]]);
    const reads = { count: 0 };
    const reader = storeOf(objects, reads);
    let now = 0;
    const cache = new SnapshotCache(undefined, () => now);
    const opened = await cache.source(reader).current('t');
    // A commit of this writer at 20 minutes: known to be the end then.
    now = 20 * 60_000;
    cache.source(reader).keep('t', { ...opened, version: 1 });
    now = 45 * 60_000;
    const before = reads.count;
    expect((await cache.source(reader).current('t')).version).toBe(1);
    expect(reads.count).toBe(before);

    // 30 days by its metadata, but another writer may have lowered that since: an hour at most.
    const defaults = new Map([
      [log(0), lines(protocol, { metaData: { ...hourRetention.metaData, configuration: {} } })],
    ]);
    const defaultReads = { count: 0 };
    const quiet = new SnapshotCache(undefined, () => now);
    now = 0;
    await quiet.source(storeOf(defaults, defaultReads)).current('q');
    now = 59 * 60_000;
    const counted = defaultReads.count;
    expect((await quiet.source(storeOf(defaults, defaultReads)).current('q')).version).toBe(0);
    expect(defaultReads.count).toBe(counted);
    now = 61 * 60_000;
    await quiet.source(storeOf(defaults, defaultReads)).current('q');
    expect(defaultReads.count).toBeGreaterThan(counted);
  });

  it('keeps a state read to a version for that version, never as the log’s end', async () => {
    const objects = new Map([
      [log(0), lines(protocol, hourRetention, add('a.parquet'))],
      [log(1), lines(add('b.parquet'))],
    ]);
    const reads = { count: 0 };
    const reader = storeOf(objects, reads);
    const cache = new SnapshotCache(undefined, () => 0);
    expect((await cache.source(reader).current('t', 0)).version).toBe(0);
    const before = reads.count;
    expect((await cache.source(reader).current('t', 0)).version).toBe(0);
    expect(reads.count).toBe(before);
    // The end is read, not taken from the state read to version 0.
    expect((await cache.source(reader).current('t')).version).toBe(1);
  });
});
