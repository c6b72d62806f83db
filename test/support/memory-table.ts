/**
 * In-memory stand-ins for a Delta table's ports: its object store (keys in order, modification
 * times from an injectable clock, conditional writes honoured or ignored as a store may do), the
 * records Tributary keeps of its commits (the ids each run holds, the run history) and the version
 * claims of stores without conditional writes. Every call yields to the event loop first, so concurrent writers interleave at every
 * await, as they do against real services. Each writer gets commit dependencies of its own (its
 * own snapshot cache, as a separate function instance has).
 */

import { ConditionalWritesUnsupported } from '#delta/errors.ts';
import { type CheckpointDecoder, SnapshotCache } from '#delta/kernel/snapshot.ts';
import type { TableStorage } from '#delta/kernel/storage.ts';
import { conditionalArbiter } from '#delta/log-store/arbiter.ts';
import { type Claim, coordinatedArbiter, type VersionClaims } from '#delta/log-store/coordinated.ts';
import type { CommitDeps, CommitHooks, CommitRecords, LogEntry } from '#delta/operations/transaction.ts';
import { type MessageIdRecords, tributaryEngine } from '#shared/domain/datasets/exactly-once.ts';

export interface MemoryTable {
  /** The table's store, which also reads byte ranges (as the tenant store does for the events view). */
  storage: TableStorage & { getRange(key: string, start: number, end: number): Promise<Buffer> };
  records: CommitRecords & MessageIdRecords;
  claims: VersionClaims;
  /** Tributary's records of its commits, by version. */
  entries: Map<number, LogEntry>;
  /** The message ids each run's commit holds, by run id. */
  runs: Map<string, string[]>;
  claimed: Map<number, Claim>;
  objects: Map<string, { bytes: Buffer; lastModified: number }>;
  /** Object reads (get, getIfExists, found or not), for counting what opening a table costs. */
  reads: { count: number };
}

export interface MemoryTableOptions {
  clock?: () => number;
  jitter?: boolean;
  deduplicate?: boolean;
  /** How the store treats If-None-Match: honour it (S3 since 2024), ignore it, or refuse it (501). */
  conditionalWrites?: 'honoured' | 'ignored' | 'refused';
}

export function memoryTable(options: MemoryTableOptions = {}): MemoryTable {
  const clock = options.clock ?? (() => Date.now());
  const entries = new Map<number, LogEntry>();
  const runs = new Map<string, string[]>();
  const claimed = new Map<number, Claim>();
  const objects = new Map<string, { bytes: Buffer; lastModified: number }>();
  const reads = { count: 0 };
  const tick = () =>
    options.jitter === false
      ? Promise.resolve()
      : new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));

  const records: MemoryTable['records'] = {
    async holdIds(_, runId, messageIds) {
      await tick();
      runs.set(runId, [...messageIds]);
    },
    async idsOf(_, runIds) {
      await tick();
      if (options.deduplicate === false) return new Map();
      return new Map(runIds.filter((runId) => runs.has(runId)).map((runId) => [runId, runs.get(runId) as string[]]));
    },
    async record(_, entry) {
      await tick();
      entries.set(entry.version, structuredClone(entry));
    },
  };

  const claims: VersionClaims = {
    async latest() {
      await tick();
      const versions = [...claimed.keys()];
      return versions.length ? structuredClone(claimed.get(Math.max(...versions)) as Claim) : null;
    },
    async claimAt(_, version) {
      await tick();
      const claim = claimed.get(version);
      return claim ? structuredClone(claim) : null;
    },
    async claim(_, claim) {
      await tick();
      if (claimed.has(claim.version)) return false;
      claimed.set(claim.version, structuredClone(claim));
      return true;
    },
    async markComplete(_, version) {
      await tick();
      const claim = claimed.get(version);
      if (claim) claim.complete = true;
    },
  };

  const write = (key: string, body: Uint8Array | string) =>
    objects.set(key, {
      bytes: Buffer.from(typeof body === 'string' ? Buffer.from(body) : body),
      lastModified: clock(),
    });
  const storage: MemoryTable['storage'] = {
    async put(key, body) {
      await tick();
      write(key, body);
    },
    async putIfAbsent(key, body) {
      await tick();
      if (options.conditionalWrites === 'refused') throw new ConditionalWritesUnsupported();
      if (objects.has(key) && options.conditionalWrites !== 'ignored') return false;
      write(key, body);
      return true;
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
    async getRange(key, start, end) {
      await tick();
      reads.count++;
      const value = objects.get(key);
      if (!value) throw Object.assign(new Error(`NoSuchKey ${key}`), { name: 'NoSuchKey' });
      return value.bytes.subarray(start, end);
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
  return { storage, records, claims, entries, runs, claimed, objects, reads };
}

const noCheckpoints: CheckpointDecoder = async () => {
  throw new Error('This table has no checkpoint decoder');
};

/**
 * One writer's commit dependencies for the table (a function instance of its own: its own snapshot
 * cache). `coordinated`: the store's conditional writes are not used; claims decide.
 */
export function writerOf(
  table: MemoryTable,
  hooks: Partial<CommitHooks> & { completed?: number[] } = {},
  options: { coordinated?: boolean; decodeCheckpoint?: CheckpointDecoder; now?: () => Date } = {},
): CommitDeps {
  const cache = new SnapshotCache();
  return {
    storage: table.storage,
    arbiter: options.coordinated ? coordinatedArbiter(table.storage, table.claims) : conditionalArbiter(table.storage),
    records: table.records,
    snapshots: cache.source({ storage: table.storage, decodeCheckpoint: options.decodeCheckpoint ?? noCheckpoints }),
    engine: tributaryEngine,
    hooks: {
      async onCompleted(entry, state) {
        hooks.completed?.push(entry.version);
        await hooks.onCompleted?.(entry, state);
      },
    },
    ...(options.now ? { now: options.now } : {}),
  };
}
