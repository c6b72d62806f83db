import { describe, expect, it } from 'vitest';
import { type AppendRequest, appendToTable, type CommitDeps, recoverTable } from '#shared/domain/delta/commit.ts';
import { logFileName } from '#shared/domain/delta/log.ts';
import { memoryTable } from '../support/memory-table.ts';

function commitDeps(table: ReturnType<typeof memoryTable>, completed: number[] = []): CommitDeps {
  return {
    log: table.log,
    storage: table.storage,
    hooks: {
      async onCompleted(entry) {
        completed.push(entry.version);
      },
    },
  };
}

const metadata = {
  tableId: 't',
  name: 't',
  schema: { type: 'struct' as const, fields: [] },
  partitionColumns: ['dt'],
  createdTime: 0,
};

interface Row {
  messageId: string;
  ingestedAt: number;
}

let fileNumber = 0;
function request(ids: string[], files: Map<string, string[]>, ingestedAt = Date.now()): AppendRequest<Row> {
  return {
    tableId: 't',
    metadata,
    rows: ids.map((messageId) => ({ messageId, ingestedAt })),
    identify: (row) => row,
    attempt: 1,
    async writeFiles(rows) {
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
            dataChange: true,
            stats: `{"numRecords":${rows.length}}`,
          },
        ],
        bytes: 1,
      };
    },
  };
}

/** Rows visible through the log: every file added by a version's JSON commit, in version order. */
function rowsInTable(table: ReturnType<typeof memoryTable>, files: Map<string, string[]>): string[] {
  const versions = [...table.entries.keys()].sort((a, b) => a - b);
  return versions.flatMap((version) => {
    const content = table.objects.get(logFileName(version))?.bytes.toString('utf8');
    if (!content) return [];
    return content
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((action) => action.add)
      .flatMap((action) => files.get(action.add.path) ?? []);
  });
}

const actionsOf = (table: ReturnType<typeof memoryTable>, version: number) =>
  (table.objects.get(logFileName(version))?.bytes.toString('utf8') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => Object.keys(JSON.parse(line))[0]);

describe('appending to a Delta table through the coordinator', () => {
  it('writes version 0 with protocol and metadata, then consecutive versions, keeping message ids out of the log', async () => {
    const table = memoryTable();
    const completed: number[] = [];
    const files = new Map<string, string[]>();
    await appendToTable(commitDeps(table, completed), request(['a', 'b'], files));
    await appendToTable(commitDeps(table, completed), request(['c'], files));
    expect(actionsOf(table, 0)).toEqual(['commitInfo', 'protocol', 'metaData', 'add']);
    expect(actionsOf(table, 1)).toEqual(['commitInfo', 'add']);
    expect(completed).toEqual([0, 1]);
    expect([...table.ids.values()].map((held) => held.ids)).toEqual([['a', 'b'], ['c']]);
    const temporary = [...table.objects.keys()].filter((key) => key.startsWith('_delta_log/.tmp/'));
    expect(temporary).toHaveLength(2);
    expect(table.objects.get(temporary[0] as string)?.bytes.toString()).toContain('tributaryMessageIds');
  });

  it('skips message ids already written and duplicates inside one batch', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await appendToTable(commitDeps(table), request(['a', 'b'], files));
    const again = await appendToTable(commitDeps(table), request(['b', 'c', 'c'], files));
    expect(again).toEqual({ version: 1, written: 1, skipped: 2 });
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b', 'c']);
  });

  it('finds a redelivery by looking only at versions claimed since it was ingested, however old', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const threeDaysAgo = Date.now() - 3 * 86_400_000;
    await appendToTable(commitDeps(table), request(['old'], files, threeDaysAgo));
    for (let i = 0; i < 5; i++) await appendToTable(commitDeps(table), request([`new-${i}`], files));
    const redriven = await appendToTable(commitDeps(table), request(['old', 'fresh'], files, threeDaysAgo));
    expect(redriven).toEqual({ version: 6, written: 1, skipped: 1 });
    expect(rowsInTable(table, files).filter((id) => id === 'old')).toHaveLength(1);
  });

  it('records claim times that never decrease, so "claimed since" is a suffix of the log', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await Promise.all(Array.from({ length: 6 }, (_, i) => appendToTable(commitDeps(table), request([`r${i}`], files))));
    const times = [...table.entries.values()].sort((a, b) => a.version - b.version).map((entry) => entry.claimedAt);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  const racingBatches = [
    ['w1-1', 'w1-2', 'shared-1'],
    ['w2-1', 'shared-1', 'shared-2'],
    ['w3-1', 'w3-2', 'shared-2'],
    ['w4-1', 'shared-1'],
  ];

  it('keeps every row exactly once and the versions consecutive with 4 writers racing, overlapping ids included', {
    timeout: 60_000,
  }, async () => {
    for (let round = 0; round < 20; round++) {
      const table = memoryTable();
      const completed: number[] = [];
      const files = new Map<string, string[]>();
      await Promise.all(racingBatches.map((ids) => appendToTable(commitDeps(table, completed), request(ids, files))));
      const rows = rowsInTable(table, files).sort();
      expect(rows).toEqual([...new Set(racingBatches.flat())].sort());
      const versions = [...table.entries.keys()].sort((a, b) => a - b);
      expect(versions).toEqual(versions.map((_, i) => i));
      expect(versions.every((version) => table.objects.has(logFileName(version)))).toBe(true);
      expect(completed.sort()).toEqual(versions);
    }
  });

  it('writes the shared ids more than once when the check is switched off (the race test can fail)', {
    timeout: 60_000,
  }, async () => {
    let duplicated = 0;
    for (let round = 0; round < 5; round++) {
      const table = memoryTable({ deduplicate: false });
      const files = new Map<string, string[]>();
      await Promise.all(racingBatches.map((ids) => appendToTable(commitDeps(table), request(ids, files))));
      const rows = rowsInTable(table, files);
      duplicated += rows.length - new Set(rows).size;
    }
    expect(duplicated).toBeGreaterThan(0);
  });

  it('finishes a commit whose writer stopped after claiming its version, without writing it twice', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const completed: number[] = [];
    const crashing: CommitDeps = {
      ...commitDeps(table),
      log: {
        ...table.log,
        markComplete: async () => {
          throw new Error('crash');
        },
      },
    };
    await expect(appendToTable(crashing, request(['a'], files))).rejects.toThrow('crash');
    expect(table.entries.get(0)?.complete).toBe(false);

    const redelivered = await appendToTable(commitDeps(table, completed), request(['a', 'b'], files));
    expect(redelivered.skipped).toBe(1);
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b']);
    expect(completed).toEqual([0, 1]);
  });

  it('finds its place in the store when the coordinator has no entries left (an idle table)', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await appendToTable(commitDeps(table), request(['a'], files));
    await appendToTable(commitDeps(table), request(['b'], files));
    table.entries.clear();
    table.ids.clear();
    expect(await recoverTable(commitDeps(table), 't')).toEqual({ version: 1, claimedAt: 0 });
    const next = await appendToTable(commitDeps(table), request(['c'], files));
    expect(next.version).toBe(2);
    expect(actionsOf(table, 2)).toEqual(['commitInfo', 'add']);
  });

  it('reports -1 for a table without commits', async () => {
    expect((await recoverTable(commitDeps(memoryTable()), 't')).version).toBe(-1);
  });
});

describe('appending with a txn (pipelines)', () => {
  const txnRequest = (files: Map<string, string[]>, txn: AppendRequest<Row>['txn']): AppendRequest<Row> => {
    const { identify: _identify, ...rest } = request(['x', 'y'], files);
    return { ...rest, ...(txn ? { txn } : {}) };
  };

  it('records the txn and gives up when a version after the run started already carries a later one', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const first = await appendToTable(
      commitDeps(table),
      txnRequest(files, { appId: 'p', version: 5, after: -1, readVersion: -1 }),
    );
    expect(first.version).toBe(0);
    expect(table.objects.get(logFileName(0))?.bytes.toString()).toContain('"txn":{"appId":"p","version":5');
    // A stale runner that started from the same place commits the same range again: refused.
    const stale = await appendToTable(
      commitDeps(table),
      txnRequest(files, { appId: 'p', version: 5, after: -1, readVersion: -1 }),
    );
    expect(stale).toEqual({ version: 0, written: 0, skipped: 2 });
    expect(rowsInTable(table, files)).toEqual(['x', 'y']);
  });
});
