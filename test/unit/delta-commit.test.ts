import { describe, expect, it } from 'vitest';
import {
  appendToTable,
  type CommitDeps,
  type LogCoordinator,
  type LogEntry,
  recoverTable,
} from '#shared/domain/delta/commit.ts';
import { logFileName } from '#shared/domain/delta/log.ts';

/** In-memory ports with a scheduler hook, so tests can interleave writers at every await. */
function memoryTable() {
  const entries = new Map<number, LogEntry>();
  const markers = new Set<string>();
  const objects = new Map<string, string>();
  const completed: number[] = [];
  const tick = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
  const log: LogCoordinator = {
    async latestEntry() {
      await tick();
      const versions = [...entries.keys()];
      return versions.length ? structuredClone(entries.get(Math.max(...versions)) as LogEntry) : null;
    },
    async entriesAfter(_, version) {
      await tick();
      return [...entries.values()].filter((entry) => entry.version > version).map((entry) => structuredClone(entry));
    },
    async claimVersion(_, entry) {
      await tick();
      if (entries.has(entry.version)) return false;
      entries.set(entry.version, structuredClone(entry));
      return true;
    },
    async markComplete(_, version) {
      await tick();
      const entry = entries.get(version) as LogEntry;
      if (entry.complete) return false;
      entry.complete = true;
      return true;
    },
    async writtenMessageIds(_, ids) {
      await tick();
      return new Set(ids.filter((id) => markers.has(id)));
    },
    async recordWrittenMessageIds(_, ids) {
      await tick();
      for (const id of ids) markers.add(id);
    },
  };
  const deps: CommitDeps = {
    log,
    storage: {
      async put(key, body) {
        await tick();
        objects.set(key, typeof body === 'string' ? body : Buffer.from(body).toString());
      },
      async get(key) {
        await tick();
        const value = objects.get(key);
        if (value === undefined) throw new Error(`NoSuchKey ${key}`);
        return Buffer.from(value);
      },
      async delete(keys) {
        for (const key of keys) objects.delete(key);
      },
    },
    hooks: {
      async onCompleted(entry) {
        completed.push(entry.version);
      },
    },
  };
  return { deps, entries, markers, objects, completed };
}

const metadata = {
  tableId: 't',
  name: 't',
  schema: { type: 'struct' as const, fields: [] },
  partitionColumns: ['dt'],
  createdTime: 0,
};

let fileNumber = 0;
function request(ids: string[], files: Map<string, string[]>) {
  return {
    tableId: 't',
    metadata,
    rows: ids.map((messageId) => ({ messageId })),
    deduplicate: true,
    attempt: 1,
    async writeFiles(rows: { messageId: string }[]) {
      const path = `dt=2026-01-01/part-${fileNumber++}.parquet`;
      files.set(
        path,
        rows.map((row) => row.messageId),
      );
      return {
        adds: [
          {
            path,
            partitionValues: { dt: '2026-01-01' },
            size: 1,
            modificationTime: 0,
            dataChange: true as const,
            stats: { numRecords: rows.length, minValues: {}, maxValues: {}, nullCount: {} },
          },
        ],
        bytes: 1,
      };
    },
  };
}

/** Rows visible through the log: every file referenced by an add of a finalised version. */
function rowsInTable(table: ReturnType<typeof memoryTable>, files: Map<string, string[]>): string[] {
  const versions = [...table.entries.keys()].sort((a, b) => a - b);
  return versions.flatMap((version) => {
    const content = table.objects.get(logFileName(version));
    if (!content) return [];
    return content
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((action) => action.add)
      .flatMap((action) => files.get(action.add.path) ?? []);
  });
}

describe('appending to a Delta table through the coordinator', () => {
  it('writes version 0 with protocol and metadata, then consecutive versions', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await appendToTable(table.deps, request(['a', 'b'], files));
    await appendToTable(table.deps, request(['c'], files));
    const first = (table.objects.get(logFileName(0)) as string)
      .split('\n')
      .filter(Boolean)
      .map((line) => Object.keys(JSON.parse(line))[0]);
    expect(first).toEqual(['commitInfo', 'protocol', 'metaData', 'add']);
    const second = (table.objects.get(logFileName(1)) as string)
      .split('\n')
      .filter(Boolean)
      .map((line) => Object.keys(JSON.parse(line))[0]);
    expect(second).toEqual(['commitInfo', 'add']);
    expect(table.completed).toEqual([0, 1]);
    expect([...table.objects.keys()].filter((key) => key.startsWith('_delta_log/.tmp/'))).toHaveLength(2);
  });

  it('skips message ids already written and duplicates inside one batch', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await appendToTable(table.deps, request(['a', 'b'], files));
    const again = await appendToTable(table.deps, request(['b', 'c', 'c'], files));
    expect(again).toEqual({ version: 1, written: 1, skipped: 2 });
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b', 'c']);
  });

  it('keeps every row exactly once and the versions consecutive with 4 writers racing, overlapping ids included', async () => {
    for (let round = 0; round < 20; round++) {
      const table = memoryTable();
      const files = new Map<string, string[]>();
      const batches = [
        ['w1-1', 'w1-2', 'shared-1'],
        ['w2-1', 'shared-1', 'shared-2'],
        ['w3-1', 'w3-2', 'shared-2'],
        ['w4-1', 'shared-1'],
      ];
      await Promise.all(batches.map((ids) => appendToTable(table.deps, request(ids, files))));
      const rows = rowsInTable(table, files).sort();
      expect(rows).toEqual([...new Set(batches.flat())].sort());
      const versions = [...table.entries.keys()].sort((a, b) => a - b);
      expect(versions).toEqual(versions.map((_, i) => i));
      expect(versions.every((version) => table.objects.has(logFileName(version)))).toBe(true);
      expect(table.completed.sort()).toEqual(versions);
    }
  });

  it('finishes a commit whose writer stopped after claiming its version, without writing it twice', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const crashing = {
      ...table.deps,
      log: {
        ...table.deps.log,
        markComplete: async () => {
          throw new Error('crash');
        },
      },
    };
    await expect(appendToTable(crashing, request(['a'], files))).rejects.toThrow('crash');
    expect(table.entries.get(0)?.complete).toBe(false);

    const redelivered = await appendToTable(table.deps, request(['a', 'b'], files));
    expect(redelivered.skipped).toBe(1);
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b']);
    expect(table.completed).toEqual([0, 1]);
  });

  it('reports -1 for a table without commits and recovers the latest entry otherwise', async () => {
    const table = memoryTable();
    expect(await recoverTable(table.deps, 't')).toBe(-1);
  });
});
