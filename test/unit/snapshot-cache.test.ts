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
