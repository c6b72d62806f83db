import { describe, expect, it } from 'vitest';
import { TableNotWritable } from '#delta/errors.ts';
import { logFileName } from '#delta/kernel/log.ts';
import { openSnapshot } from '#delta/kernel/snapshot.ts';
import type { TableStorage } from '#delta/kernel/storage.ts';
import { conditionalArbiter, probeConditionalWrites } from '#delta/log-store/arbiter.ts';
import { coordinatedArbiter } from '#delta/log-store/coordinated.ts';
import { type AppendRequest, appendToTable as appendRows } from '#delta/operations/append.ts';
import { commitMetadata } from '#delta/operations/set-metadata.ts';
import type { CommitDeps } from '#delta/operations/transaction.ts';
import { exactlyOncePerMessage, type MessageIdentity } from '#shared/domain/datasets/exactly-once.ts';
import { type MemoryTable, memoryTable, writerOf } from '../support/memory-table.ts';

const schema = {
  type: 'struct' as const,
  fields: [
    { name: 'id', type: 'string' as const, nullable: false, metadata: {} },
    { name: 'dt', type: 'string' as const, nullable: false, metadata: {} },
  ],
};
/** An append with a message-id `identify` is exactly once per message id (the domain's rule), on the writer's records. */
type OnceRequest = AppendRequest<Row> & { identify?: (row: Row) => MessageIdentity };
function appendToTable(deps: CommitDeps, { identify, ...request }: OnceRequest) {
  const ids = deps.records as MemoryTable['records'];
  return appendRows(
    deps,
    identify ? { ...request, deduplication: exactlyOncePerMessage(ids, request.tableId, identify) } : request,
  );
}

const metadata = { tableId: 't', name: 't', schema, partitionColumns: ['dt'], createdTime: 0 };

interface Row {
  messageId: string;
  ingestedAt: number;
  batch?: string;
}

let fileNumber = 0;
/** When the rows were ingested, unless a test says otherwise: one time for a message id wherever it comes again. */
const ingestTime = Date.now();
function request(ids: string[], files: Map<string, string[]>, ingestedAt = ingestTime): OnceRequest {
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

const linesOf = (table: MemoryTable, version: number) =>
  (table.objects.get(logFileName(version))?.bytes.toString('utf8') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);

const actionsOf = (table: MemoryTable, version: number) => linesOf(table, version).map((line) => Object.keys(line)[0]);

/** The versions in the store's log, from 0, as any reader finds them. */
function logVersions(table: MemoryTable): number[] {
  const versions: number[] = [];
  while (table.objects.has(logFileName(versions.length))) versions.push(versions.length);
  return versions;
}

/** Rows visible through the log: every file added by a version's JSON commit (removes applied). */
function rowsInTable(table: MemoryTable, files: Map<string, string[]>): string[] {
  const live = new Map<string, string[]>();
  for (const version of logVersions(table))
    for (const line of linesOf(table, version)) {
      if (line.add) live.set(String(line.add.path), files.get(String(line.add.path)) ?? ['(another writer)']);
      if (line.remove) live.delete(String(line.remove.path));
    }
  return [...live.values()].flat();
}

/** Another engine's commit (Spark, delta-rs): commitInfo first, an add of its own file. */
function externalCommit(table: MemoryTable, version: number, extra: Record<string, unknown>[] = []) {
  const lines = [
    { commitInfo: { timestamp: Date.now(), operation: 'WRITE', engineInfo: 'Apache-Spark/3.5.1 Delta-Lake/3.2.0' } },
    ...extra,
    {
      add: {
        path: `dt=2026-01-01/spark-${version}.parquet`,
        partitionValues: { dt: '2026-01-01' },
        size: 10,
        modificationTime: Date.now(),
        dataChange: true,
        stats: '{"numRecords":3}',
      },
    },
  ];
  table.objects.set(logFileName(version), {
    bytes: Buffer.from(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`),
    lastModified: Date.now(),
  });
}

const sparkFile = (version: number) => `dt=2026-01-01/spark-${version}.parquet`;

async function liveFiles(table: MemoryTable): Promise<string[]> {
  const { state } = await openSnapshot({
    storage: table.storage,
    decodeCheckpoint: async () => [],
  });
  return [...state.files.keys()];
}

describe('appending to a Delta table whose store arbitrates versions', () => {
  it('writes version 0 with protocol and metadata, then consecutive versions, each naming its run', async () => {
    const table = memoryTable();
    const completed: number[] = [];
    const files = new Map<string, string[]>();
    await appendToTable(writerOf(table, { completed }), request(['a', 'b'], files));
    await appendToTable(writerOf(table, { completed }), request(['c'], files));
    expect(actionsOf(table, 0)).toEqual(['commitInfo', 'protocol', 'metaData', 'add']);
    expect(actionsOf(table, 1)).toEqual(['commitInfo', 'add']);
    expect(completed).toEqual([0, 1]);
    const runOf = (version: number) => String(linesOf(table, version)[0]?.commitInfo?.txnId);
    expect(runOf(1)).toBe(table.entries.get(1)?.runId);
    expect([0, 1].map((version) => table.runs.get(runOf(version)))).toEqual([['a', 'b'], ['c']]);
    // The store decides: no temporary object, no copy.
    expect([...table.objects.keys()].filter((key) => key.startsWith('_delta_log/.tmp/'))).toEqual([]);
  });

  it('skips message ids already written and duplicates inside one batch', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await appendToTable(writerOf(table), request(['a', 'b'], files));
    const again = await appendToTable(writerOf(table), request(['b', 'c', 'c'], files));
    expect(again).toEqual({ version: 1, written: 1, skipped: 2, expired: 0 });
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b', 'c']);
  });

  it('finds a redelivery by looking only at versions committed since it was ingested, however old', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const threeDaysAgo = Date.now() - 3 * 86_400_000;
    const writer = writerOf(table);
    await appendToTable(writer, request(['old'], files, threeDaysAgo));
    for (let i = 0; i < 5; i++) await appendToTable(writer, request([`new-${i}`], files));
    const redriven = await appendToTable(writer, request(['old', 'fresh'], files, threeDaysAgo));
    expect(redriven).toEqual({ version: 6, written: 1, skipped: 1, expired: 0 });
    expect(rowsInTable(table, files).filter((id) => id === 'old')).toHaveLength(1);
  });

  it("names the ingest times of its rows, and reads the ids only of commits whose times meet its rows'", async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    const minute = 60_000;
    const at = Date.now() - 10 * minute;
    await appendToTable(writer, request(['a', 'b'], files, at));
    await appendToTable(writer, request(['c'], files, at + minute));
    expect(linesOf(table, 0)[0]?.commitInfo?.['tributary.ingested']).toEqual([at, at]);
    expect(linesOf(table, 1)[0]?.commitInfo?.['tributary.ingested']).toEqual([at + minute, at + minute]);
    // Every commit is within the clock margin of these rows; only version 1's times meet theirs.
    const asked: string[][] = [];
    const counting: CommitDeps & { records: MemoryTable['records'] } = {
      ...writerOf(table),
      records: {
        ...table.records,
        async idsOf(tableId, runs) {
          asked.push(runs);
          return table.records.idsOf(tableId, runs);
        },
      },
    };
    const rows = {
      ...request([], files),
      rows: [
        { messageId: 'c', ingestedAt: at + minute },
        { messageId: 'd', ingestedAt: at + 2 * minute },
      ],
    };
    expect(await appendToTable(counting, rows)).toEqual({ version: 2, written: 1, skipped: 1, expired: 0 });
    const runOf = (version: number) => linesOf(table, version)[0]?.commitInfo?.txnId;
    expect(asked).toEqual([[runOf(1)]]);
    // A commit made before commits named their rows' times (no tributary.ingested) is always read.
    const lines = linesOf(table, 0);
    delete lines[0]?.commitInfo?.['tributary.ingested'];
    table.objects.set(logFileName(0), {
      bytes: Buffer.from(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`),
      lastModified: Date.now(),
    });
    asked.length = 0;
    const late = { ...request([], files), rows: [{ messageId: 'b', ingestedAt: at + 3 * minute }] };
    expect(await appendToTable({ ...counting, snapshots: writerOf(table).snapshots }, late)).toMatchObject({
      written: 0,
      skipped: 1,
    });
    expect(asked.flat()).toContain(runOf(0));
  });

  it("finds a copy of an id that carries no time, ingested later than the first (its own time, within the rows' reach)", async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    const at = Date.now() - 60_000;
    const untimed = (ids: string[], ingestedAt: number) => ({
      ...request(ids, files, ingestedAt),
      identify: (row: Row) => ({ ...row, withinMs: 5 * 60_000 }),
    });
    await appendToTable(writer, untimed(['shared', 'a'], at));
    // The second copy's own time is 3 s later: no range of exact times would meet the first commit's.
    expect(await appendToTable(writer, untimed(['shared', 'b'], at + 3000))).toEqual({
      version: 1,
      written: 1,
      skipped: 1,
      expired: 0,
    });
    expect(rowsInTable(table, files).filter((id) => id === 'shared')).toHaveLength(1);
  });

  it('gives versions timestamps that never decrease, so "committed since" is a suffix of the log', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    await Promise.all(Array.from({ length: 6 }, (_, i) => appendToTable(writerOf(table), request([`r${i}`], files))));
    const times = logVersions(table).map((version) => Number(linesOf(table, version)[0]?.commitInfo?.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect([...table.entries.values()].map((entry) => entry.claimedAt)).toEqual(
      logVersions(table).map((version) => Number(linesOf(table, version)[0]?.commitInfo?.timestamp)),
    );
  });

  const racingBatches = [
    ['w1-1', 'w1-2', 'shared-1'],
    ['w2-1', 'shared-1', 'shared-2'],
    ['w3-1', 'w3-2', 'shared-2'],
    ['w4-1', 'shared-1'],
  ];

  for (const coordinated of [false, true])
    it(`keeps every row exactly once and the versions consecutive with 4 writers racing (${coordinated ? 'claims in DynamoDB' : 'conditional writes'})`, {
      timeout: 60_000,
    }, async () => {
      for (let round = 0; round < 20; round++) {
        const table = memoryTable();
        const completed: number[] = [];
        const files = new Map<string, string[]>();
        await Promise.all(
          racingBatches.map((ids) =>
            appendToTable(writerOf(table, { completed }, { coordinated }), request(ids, files)),
          ),
        );
        expect(rowsInTable(table, files).sort()).toEqual([...new Set(racingBatches.flat())].sort());
        const versions = logVersions(table);
        expect(versions).toEqual([...table.entries.keys()].sort((a, b) => a - b));
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
      await Promise.all(racingBatches.map((ids) => appendToTable(writerOf(table), request(ids, files))));
      const rows = rowsInTable(table, files);
      duplicated += rows.length - new Set(rows).size;
    }
    expect(duplicated).toBeGreaterThan(0);
  });

  it("never overwrites another writer's commit: it reads it, keeps its file live and commits after it", async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    await appendToTable(writer, request(['a'], files));
    await appendToTable(writer, request(['b'], files));
    externalCommit(table, 2);
    const third = await appendToTable(writer, request(['c'], files));
    expect(third.version).toBe(3);
    expect(linesOf(table, 2)[0]?.commitInfo?.engineInfo).toMatch(/Spark/);
    expect((await liveFiles(table)).filter((path) => path.startsWith('dt=2026-01-01/spark'))).toEqual([sparkFile(2)]);
    expect(rowsInTable(table, files).sort()).toEqual(['(another writer)', 'a', 'b', 'c']);
  });

  it("overwrites another writer's commit on a store that ignores conditional writes (why stores are probed)", async () => {
    const table = memoryTable({ conditionalWrites: 'ignored' });
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    await appendToTable(writer, request(['a'], files));
    await appendToTable(writer, request(['b'], files));
    externalCommit(table, 2);
    await appendToTable(writer, request(['c'], files));
    expect(await liveFiles(table)).not.toContain(sparkFile(2));
    expect(await probeConditionalWrites(table.storage)).toBe(false);
    expect(await probeConditionalWrites(memoryTable({ conditionalWrites: 'refused' }).storage)).toBe(false);
    expect(await probeConditionalWrites(memoryTable().storage)).toBe(true);
  });

  it('recognises its own commit when the store wrote it but the answer was lost (the SDK asked again)', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const losing: TableStorage = {
      ...table.storage,
      async putIfAbsent(key, body, contentType) {
        const written = await table.storage.putIfAbsent(key, body, contentType);
        // The first answer was lost; the repeated request finds the object.
        return written && key.endsWith('.json') ? false : written;
      },
    };
    const result = await appendToTable(
      { ...writerOf(table), storage: losing, arbiter: conditionalArbiter(losing) },
      request(['a'], files),
    );
    expect(result).toEqual({ version: 0, written: 1, skipped: 0, expired: 0 });
    expect(logVersions(table)).toEqual([0]);
  });

  it('refuses a table whose protocol needs a writer feature it does not implement, writing nothing', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    await appendToTable(writer, request(['a'], files));
    externalCommit(table, 1, [
      {
        protocol: {
          minReaderVersion: 3,
          minWriterVersion: 7,
          readerFeatures: [],
          writerFeatures: ['appendOnly', 'futureFeature'],
        },
      },
    ]);
    const refused = appendToTable(writer, request(['b'], files));
    await expect(refused).rejects.toBeInstanceOf(TableNotWritable);
    await expect(refused).rejects.toMatchObject({ code: 'TABLE_PROTOCOL_UNSUPPORTED', unsupported: ['futureFeature'] });
    expect(logVersions(table)).toEqual([0, 1]);
    // Once the feature is dropped (a newer protocol without it), the same rows go in.
    externalCommit(table, 2, [{ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }]);
    const accepted = await appendToTable(writer, request(['b'], files));
    expect(accepted).toEqual({ version: 3, written: 1, skipped: 0, expired: 0 });
  });

  it('refuses rows the table no longer accepts after another writer changed its schema', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    await appendToTable(writer, request(['a'], files));
    const changed = {
      type: 'struct',
      fields: [
        { name: 'id', type: 'long', nullable: false, metadata: {} },
        { name: 'dt', type: 'string', nullable: false, metadata: {} },
        { name: 'region', type: 'string', nullable: false, metadata: {} },
      ],
    };
    externalCommit(table, 1, [
      {
        metaData: {
          id: 't',
          format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify(changed),
          partitionColumns: ['dt'],
          configuration: {},
        },
      },
    ]);
    await expect(appendToTable(writer, request(['b'], files))).rejects.toMatchObject({
      code: 'TABLE_SCHEMA_INCOMPATIBLE',
      message: expect.stringMatching(/column id is "long" in the table.*column region is required/),
    });
    expect(logVersions(table)).toEqual([0, 1]);
  });

  it('finds the rows of a commit whose writer stopped right after it, before recording anything else', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const stopping: CommitDeps = {
      ...writerOf(table),
      records: {
        ...table.records,
        record: async () => {
          throw new Error('stopped');
        },
      },
    };
    await expect(appendToTable(stopping, request(['a', 'b'], files))).rejects.toThrow('stopped');
    expect(table.entries.size).toBe(0);
    // The same envelopes again, from a writer that has never seen the table (a fresh instance).
    const again = await appendToTable(writerOf(table), request(['a', 'b', 'c'], files));
    expect(again).toEqual({ version: 1, written: 1, skipped: 2, expired: 0 });
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b', 'c']);
  });

  it('keeps the properties another writer set when it commits its own', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const writer = writerOf(table);
    await appendToTable(writer, request(['a'], files));
    externalCommit(table, 1, [
      {
        metaData: {
          id: 't',
          format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify(schema),
          partitionColumns: ['dt'],
          configuration: { 'delta.enableChangeDataFeed': 'false', 'spark.owner': 'analytics' },
        },
      },
    ]);
    const set = await commitMetadata(writer, 't', async (current) => ({
      ...(current as NonNullable<typeof current>),
      configuration: { ...current?.configuration, 'delta.checkpointInterval': '20' },
    }));
    expect(set.version).toBe(2);
    expect(set.metadata.configuration).toEqual({
      'delta.enableChangeDataFeed': 'false',
      'spark.owner': 'analytics',
      'delta.checkpointInterval': '20',
    });
  });
});

describe('appending through claims in DynamoDB (stores without conditional writes)', () => {
  it('finishes a commit whose writer stopped after claiming its version, without writing it twice', async () => {
    const table = memoryTable({ conditionalWrites: 'refused' });
    const files = new Map<string, string[]>();
    const stopping: CommitDeps = {
      ...writerOf(table, {}, { coordinated: true }),
      storage: {
        ...table.storage,
        async put(key, body, contentType) {
          if (key === logFileName(0)) throw new Error('stopped');
          await table.storage.put(key, body, contentType);
        },
      },
    };
    stopping.arbiter = coordinatedArbiter(stopping.storage, table.claims);
    await expect(appendToTable(stopping, request(['a'], files))).rejects.toThrow('stopped');
    expect(table.claimed.get(0)?.complete).toBe(false);
    expect(table.objects.has(logFileName(0))).toBe(false);

    const next = await appendToTable(writerOf(table, {}, { coordinated: true }), request(['b'], files));
    expect(next.version).toBe(1);
    expect(logVersions(table)).toEqual([0, 1]);
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b']);
  });
});

describe('appending through claims in DynamoDB, beside an engine that knows nothing of them', () => {
  it('answers a version another engine wrote as lost to it, though the claim was free, and commits after it', async () => {
    const table = memoryTable({ conditionalWrites: 'refused' });
    const files = new Map<string, string[]>();
    await appendToTable(writerOf(table, {}, { coordinated: true }), request(['a'], files));
    // Spark writes version 1 straight to the log: no claim for it.
    await table.storage.put(
      logFileName(1),
      `${JSON.stringify({ commitInfo: { timestamp: 1, operation: 'WRITE', engineInfo: 'Apache-Spark' } })}\n`,
      'application/json',
    );
    // A writer whose snapshot is still at version 0 claims 1 (free in the database), and must not take Spark's commit
    // for its own.
    const stale = writerOf(table, {}, { coordinated: true });
    const arbiter = coordinatedArbiter(stale.storage, table.claims);
    expect(await arbiter.write('t', 1, '{"commitInfo":{}}\n', 'run-1')).toBe(false);
    expect(table.objects.get(logFileName(1))?.bytes.toString()).toContain('Apache-Spark');
    const next = await appendToTable(writerOf(table, {}, { coordinated: true }), request(['b'], files));
    expect(next.version).toBe(2);
    expect(rowsInTable(table, files).sort()).toEqual(['a', 'b']);
  });
});

describe('appending with a txn (pipelines)', () => {
  const txnRequest = (files: Map<string, string[]>, txn: AppendRequest<Row>['txn']): OnceRequest => {
    const { identify: _identify, ...rest } = request(['x', 'y'], files);
    return { ...rest, ...(txn ? { txn } : {}) };
  };

  it('records the txn and gives up when a version after the run started already carries a later one', async () => {
    const table = memoryTable();
    const files = new Map<string, string[]>();
    const first = await appendToTable(
      writerOf(table),
      txnRequest(files, { appId: 'p', version: 5, after: -1, readVersion: -1 }),
    );
    expect(first.version).toBe(0);
    expect(table.objects.get(logFileName(0))?.bytes.toString()).toContain('"txn":{"appId":"p","version":5');
    // A stale runner that started from the same place commits the same range again: refused.
    const stale = await appendToTable(
      writerOf(table),
      txnRequest(files, { appId: 'p', version: 5, after: -1, readVersion: -1 }),
    );
    expect(stale).toEqual({ version: null, written: 0, skipped: 2, expired: 0 });
    expect(rowsInTable(table, files)).toEqual(['x', 'y']);
  });
});
