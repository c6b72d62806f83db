/**
 * In-memory stand-ins for a Delta table's two ports: the commit coordinator (as the DynamoDB
 * adapter keeps it: claims, completions, message ids per version, read through the same window of
 * recent ids a warm writer keeps, in pages of three) and the table's object store
 * (keys in order, with modification times from an injectable clock). Every call yields to the event
 * loop first, so concurrent writers interleave at every await, as they do against real services.
 */
import { MessageIdWindows } from '#shared/adapters/message-id-windows.ts';
import type { LogCoordinator, LogEntry, TableStorage } from '#shared/domain/delta/commit.ts';

export interface MemoryTable {
  log: LogCoordinator;
  storage: TableStorage;
  entries: Map<number, LogEntry>;
  ids: Map<number, { claimedAt: number; ids: string[] }>;
  objects: Map<string, { bytes: Buffer; lastModified: number }>;
  /** Object reads (get, getIfExists, found or not), for counting what opening a table costs. */
  reads: { count: number };
}

export function memoryTable(options: { clock?: () => number; jitter?: boolean; deduplicate?: boolean } = {}) {
  const clock = options.clock ?? (() => Date.now());
  const entries = new Map<number, LogEntry>();
  const ids = new Map<number, { claimedAt: number; ids: string[] }>();
  const objects = new Map<string, { bytes: Buffer; lastModified: number }>();
  const reads = { count: 0 };
  const tick = () =>
    options.jitter === false
      ? Promise.resolve()
      : new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));

  const pageSize = 3;
  const windows = new MessageIdWindows(async (_, range, newestFirst, start) => {
    await tick();
    const versions = [...ids.entries()]
      .filter(
        ([version]) =>
          (range.above === undefined || version > range.above) && (range.below === undefined || version < range.below),
      )
      .sort(([a], [b]) => (newestFirst ? b - a : a - b))
      .map(([version, held]) => ({ version, claimedAt: held.claimedAt, ids: held.ids }));
    const from = (start as number | undefined) ?? 0;
    return {
      versions: versions.slice(from, from + pageSize),
      next: from + pageSize < versions.length ? from + pageSize : undefined,
    };
  }, clock);
  const log: LogCoordinator = {
    async latestEntry() {
      await tick();
      const versions = [...entries.keys()];
      return versions.length ? structuredClone(entries.get(Math.max(...versions)) as LogEntry) : null;
    },
    async entriesAfter(_, version) {
      await tick();
      return [...entries.values()]
        .filter((entry) => entry.version > version)
        .sort((a, b) => a.version - b.version)
        .map((entry) => structuredClone(entry));
    },
    async claimVersion(_, entry) {
      await tick();
      if (entries.has(entry.version)) return false;
      entries.set(entry.version, structuredClone(entry));
      return true;
    },
    async recordMessageIds(_, entry, messageIds) {
      await tick();
      ids.set(entry.version, { claimedAt: entry.claimedAt, ids: [...messageIds] });
    },
    async markComplete(_, entry, now) {
      await tick();
      const stored = entries.get(entry.version) as LogEntry;
      if (stored.complete) return false;
      stored.complete = true;
      stored.completedAt = now.toISOString();
      return true;
    },
    async writtenMessageIds(tableId, messageIds, since) {
      await tick();
      if (options.deduplicate === false) return new Set();
      return windows.written(tableId, messageIds, since);
    },
  };

  const storage: TableStorage = {
    async put(key, body) {
      await tick();
      objects.set(key, {
        bytes: Buffer.from(typeof body === 'string' ? Buffer.from(body) : body),
        lastModified: clock(),
      });
    },
    async get(key) {
      await tick();
      reads.count++;
      const value = objects.get(key);
      if (!value) throw Object.assign(new Error(`NoSuchKey ${key}`), { name: 'NoSuchKey' });
      return value.bytes;
    },
    async getIfExists(key) {
      await tick();
      reads.count++;
      return objects.get(key)?.bytes ?? null;
    },
    async delete(keys) {
      await tick();
      for (const key of keys) objects.delete(key);
    },
    async list(prefix, listOptions = {}) {
      await tick();
      const found = [...objects.entries()]
        .filter(
          ([key]) => key.startsWith(prefix) && (listOptions.startAfter === undefined || key > listOptions.startAfter),
        )
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, value]) => ({ key, size: value.bytes.length, lastModified: value.lastModified }));
      return listOptions.limit === undefined ? found : found.slice(0, listOptions.limit);
    },
  };
  return { log, storage, entries, ids, objects, reads } satisfies MemoryTable;
}
