/**
 * Checkpoints, compaction, vacuum and log clean-up on real Parquet files in an in-memory store,
 * checked by an independent reader: DuckDB reads the checkpoint (`read_parquet`) and the data
 * files, and the JSON commits are replayed here by hand, not by the code under test.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionNotFound } from '#delta/errors.ts';
import { checkpointFileName, logFileName, metadataAction } from '#delta/kernel/log.ts';
import { type LogReader, openSnapshot } from '#delta/kernel/snapshot.ts';
import { appendToTable } from '#delta/operations/append.ts';
import { checkpointDue, writeCheckpoint } from '#delta/operations/checkpoint.ts';
import { writePartitionedFiles } from '#delta/operations/data-files.ts';
import { type MaintenanceDeps, maintainTable } from '#delta/operations/maintenance.ts';
import { commitMetadata } from '#delta/operations/set-metadata.ts';
import type { CommitDeps } from '#delta/operations/transaction.ts';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { encodeCheckpoint } from '#delta/parquet/checkpoint-writer.ts';
import { rewriteFiles } from '#delta/parquet/compaction.ts';
import { type CellValue, writeParquet } from '#delta/parquet/parquet-files.ts';
import { exactlyOncePerMessage } from '#shared/domain/datasets/exactly-once.ts';
import { envelopeSchema } from '#shared/domain/datasets/model.ts';
import { envelopeColumns } from '#shared/domain/ingest/envelope.ts';
import { memoryTable, writerOf } from '../support/memory-table.ts';

const day = 86_400_000;

interface Envelope {
  messageId: string;
  dt: string;
  ingestedAt: number;
}

function encode(rows: Envelope[]) {
  const columns: CellValue[][] = [
    rows.map((row) => row.messageId),
    rows.map((row) => BigInt(row.ingestedAt) * 1000n),
    rows.map(() => 'source'),
    rows.map(() => 'tenant'),
    rows.map(() => 'application/json'),
    rows.map(() => 700n),
    rows.map((row) => Buffer.from(`{"id":"${row.messageId}","pad":"${'x'.repeat(640)}"}`).toString('base64')),
    rows.map(() => null),
  ];
  return writeParquet([...envelopeColumns], columns);
}

/** A table in memory, written through the real commit path, with a checkpoint hook like the writer's. */
function harness(clock: { now: number }) {
  const table = memoryTable({ clock: () => clock.now });
  const reader: LogReader = { storage: table.storage, decodeCheckpoint };
  const commit: CommitDeps = writerOf(
    table,
    {
      async onCompleted(entry, state) {
        if (checkpointDue(entry.version, state))
          await writeCheckpoint(table.storage, encodeCheckpoint, state, clock.now);
      },
    },
    { decodeCheckpoint, now: () => new Date(clock.now) },
  );
  const append = (rows: Envelope[]) =>
    appendToTable(commit, {
      tableId: 't',
      metadata: { tableId: 't', name: 't', schema: envelopeSchema, partitionColumns: ['dt'], createdTime: 0 },
      rows,
      deduplication: exactlyOncePerMessage(table.records, 't', (row: Envelope) => row),
      attempt: 1,
      writeFiles: (pending) =>
        writePartitionedFiles(table.storage, pending, {
          partitionOf: (row) => ({ dt: row.dt }),
          encode,
          maxRowsPerFile: 1000,
        }),
    });
  const maintenance = (): MaintenanceDeps => ({
    commit,
    reader,
    rewrite: (sources, targetSize, newPath) => rewriteFiles(table.storage, sources, targetSize, newPath),
    now: () => new Date(clock.now),
  });
  const setProperties = (properties: Record<string, string>) =>
    commitMetadata(commit, 't', async () => ({
      ...metadataAction({ tableId: 't', name: 't', schema: envelopeSchema, partitionColumns: ['dt'], createdTime: 0 }),
      configuration: properties,
    }));
  return { table, reader, commit, append, maintenance, setProperties };
}

const envelopes = (count: number, dt: string, at: number) =>
  Array.from({ length: count }, () => ({ messageId: randomUUID(), dt, ingestedAt: at }));

/** The live files after replaying JSON commits (by hand) from `from` over a starting set. */
function replayJson(
  objects: Map<string, { bytes: Buffer }>,
  from: number,
  live = new Set<string>(),
): { live: Set<string>; version: number } {
  let version = from - 1;
  for (;;) {
    const commit = objects.get(logFileName(version + 1));
    if (!commit) return { live, version };
    version++;
    for (const line of commit.bytes.toString('utf8').split('\n').filter(Boolean)) {
      const action = JSON.parse(line);
      if (action.add) live.add(action.add.path);
      if (action.remove) live.delete(action.remove.path);
    }
  }
}

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>>;
let connection: Awaited<ReturnType<typeof duck.connect>>;
const directory = mkdtempSync(path.join(os.tmpdir(), 'delta-maintenance-'));
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
  connection = await duck.connect();
});
afterAll(() => connection.closeSync());

async function duckRows(sql: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

function spill(objects: Map<string, { bytes: Buffer }>, keys: Iterable<string>): string[] {
  return [...keys].map((key) => {
    const file = path.join(directory, `${randomUUID()}.parquet`);
    writeFileSync(file, objects.get(key)?.bytes as Buffer);
    return file;
  });
}

/** message_id counted by DuckDB over the live files only: total and distinct. */
async function countLive(objects: Map<string, { bytes: Buffer }>, live: Set<string>) {
  const files = spill(objects, live);
  const [row] = await duckRows(
    `SELECT count(*) AS total, count(DISTINCT message_id) AS distinct_ids FROM read_parquet([${files.map((file) => `'${file}'`).join(',')}])`,
  );
  return { total: Number(row?.total), distinct: Number(row?.distinct_ids) };
}

// Real Parquet encoding and DuckDB: seconds on a busy machine, not milliseconds.
describe('checkpoints', { timeout: 60_000 }, () => {
  it('are written every 10 versions, read by DuckDB, and with the commits after them give the full replay', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const { table, append } = harness(clock);
    const sent: Envelope[] = [];
    for (let i = 0; i < 25; i++) {
      const batch = envelopes(3, i < 12 ? '2026-11-20' : '2026-11-21', clock.now);
      sent.push(...batch);
      await append(batch);
      clock.now += 1000;
    }
    await append(sent.slice(0, 6)); // a redelivery: no new version

    const pointer = JSON.parse(table.objects.get('_delta_log/_last_checkpoint')?.bytes.toString() as string);
    expect(pointer).toMatchObject({ version: 20, numOfAddFiles: 21 });
    expect([...table.objects.keys()].filter((key) => key.endsWith('.checkpoint.parquet')).sort()).toEqual([
      checkpointFileName(10),
      checkpointFileName(20),
    ]);

    const [checkpointFile] = spill(table.objects, [checkpointFileName(20)]);
    const columns = await duckRows(`DESCRIBE SELECT * FROM read_parquet('${checkpointFile}')`);
    expect(Object.fromEntries(columns.map((column) => [column.column_name, column.column_type]))).toMatchObject({
      add: expect.stringContaining('partitionValues MAP(VARCHAR, VARCHAR)'),
      metaData: expect.stringContaining('"configuration" MAP(VARCHAR, VARCHAR)'),
      protocol: 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)',
    });
    const adds = await duckRows(
      `SELECT add.path AS path, add.partitionValues['dt'] AS dt, json_extract(add.stats, '$.numRecords')::INT AS n FROM read_parquet('${checkpointFile}') WHERE add IS NOT NULL`,
    );
    const [protocol] = await duckRows(
      `SELECT protocol.minReaderVersion AS r, protocol.minWriterVersion AS w FROM read_parquet('${checkpointFile}') WHERE protocol IS NOT NULL`,
    );
    expect(protocol).toEqual({ r: 1, w: 2 });
    expect(adds.every((add) => String(add.path).startsWith(`dt=${add.dt}/`) && add.n === 3)).toBe(true);

    const fromCheckpoint = replayJson(table.objects, 21, new Set(adds.map((add) => String(add.path))));
    const full = replayJson(table.objects, 0);
    expect(fromCheckpoint.version).toBe(24);
    expect([...fromCheckpoint.live].sort()).toEqual([...full.live].sort());
    expect(await countLive(table.objects, full.live)).toEqual({ total: 75, distinct: 75 });
  });

  it('of thousands of actions read back whole, in our row groups and in the one row group DuckDB writes', async () => {
    const days = ['2026-11-19', '2026-11-20'];
    const adds = Array.from({ length: 2500 }, (_, i) => ({
      path: `dt=${days[i % 2]}/part-a${i}.zstd.parquet`,
      partitionValues: { dt: days[i % 2] as string },
      size: 1000 + i,
      modificationTime: 1_795_000_000_000 + i,
      dataChange: true,
      stats: `{"numRecords":${i % 7},"minValues":{},"maxValues":{},"nullCount":{}}`,
    }));
    const removes = Array.from({ length: 1500 }, (_, i) => ({
      path: `dt=${days[i % 2]}/part-r${i}.zstd.parquet`,
      deletionTimestamp: 1_795_000_000_000 + i,
      dataChange: false,
      extendedFileMetadata: true,
      partitionValues: { dt: days[i % 2] as string },
      size: 2000 + i,
    }));
    const txns = [
      { appId: 'pipeline-a', version: 3, lastUpdated: 1_795_000_000_000 },
      { appId: 'pipeline-b', version: 9, lastUpdated: null },
    ];
    const metadata = {
      ...metadataAction({ tableId: 't', name: 't', schema: envelopeSchema, partitionColumns: ['dt'], createdTime: 5 }),
      configuration: { 'delta.checkpointInterval': '20' },
    };
    const bytes = encodeCheckpoint({
      protocol: { minReaderVersion: 1, minWriterVersion: 2 },
      metadata,
      checkpointMetadata: null,
      domainMetadata: [],
      txns,
      adds,
      removes,
    });
    const [ours] = spill(new Map([['c', { bytes: Buffer.from(bytes) }]]), ['c']);
    const [groups] = await duckRows(`SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('${ours}')`);
    expect(Number(groups?.n)).toBeGreaterThan(1);
    const theirs = path.join(directory, `${randomUUID()}.parquet`);
    await connection.run(`COPY (SELECT * FROM read_parquet('${ours}')) TO '${theirs}' (FORMAT parquet)`);
    const [theirGroups] = await duckRows(`SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('${theirs}')`);
    expect(Number(theirGroups?.n)).toBe(1);

    for (const file of [ours, theirs] as string[]) {
      const actions = await decodeCheckpoint(readFileSync(file));
      expect(actions.filter((action) => 'add' in action)).toEqual(adds.map((add) => ({ add })));
      expect(actions.filter((action) => 'remove' in action)).toEqual(removes.map((remove) => ({ remove })));
      expect(actions.filter((action) => 'txn' in action)).toEqual(txns.map((txn) => ({ txn })));
      expect(actions.filter((action) => 'metaData' in action)).toEqual([{ metaData: metadata }]);
      expect(actions.filter((action) => 'protocol' in action)).toEqual([
        { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      ]);
      expect(actions).toHaveLength(2500 + 1500 + 2 + 2);
    }
  });

  it('open a table reading at most 12 log objects, and equal to a replay from version 0', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const { table, append, reader } = harness(clock);
    for (let i = 0; i < 39; i++) await append(envelopes(1, '2026-11-20', clock.now));
    table.reads.count = 0;
    const opened = await openSnapshot(reader);
    expect(opened.checkpoint).toBe(30);
    expect(opened.objectsRead).toBe(table.reads.count);
    expect(opened.objectsRead).toBeLessThanOrEqual(12);
    expect([...opened.state.files.keys()].sort()).toEqual([...replayJson(table.objects, 0).live].sort());
  });
});

describe('compaction', { timeout: 60_000 }, () => {
  it('rewrites a day of small files into files near the target, with every row exactly once', async () => {
    const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
    const { table, append, maintenance, setProperties, reader } = harness(clock);
    await append(envelopes(5, '2026-11-20', clock.now));
    await setProperties({ 'delta.targetFileSize': '40000' });
    const sent = 5 + 30 * 5;
    for (let i = 0; i < 30; i++) await append(envelopes(5, '2026-11-20', clock.now));
    const before = await openSnapshot(reader);
    const bytesBefore = [...before.state.files.values()].reduce((sum, file) => sum + file.size, 0);

    const report = await maintainTable(maintenance(), 't', () => ({ minFiles: 2, expiry: null }));
    expect(report.conflicts).toBe(0);
    expect(report.filesRemoved).toBe(31);
    const after = await openSnapshot(reader);
    const live = [...after.state.files.values()];
    const bytesAfter = live.reduce((sum, file) => sum + file.size, 0);
    expect(live.length).toBeLessThanOrEqual(Math.ceil(bytesAfter / 40_000) + 1);
    expect(live.length).toBeLessThan(before.state.files.size);
    expect(bytesAfter).toBeLessThan(bytesBefore * 1.2);

    const lines = table.objects
      .get(logFileName(report.versions[0] as number))
      ?.bytes.toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines?.[0].commitInfo.operation).toBe('OPTIMIZE');
    expect(lines?.filter((line) => line.remove).every((line) => line.remove.dataChange === false)).toBe(true);
    expect(lines?.filter((line) => line.add).every((line) => line.add.dataChange === false)).toBe(true);
    expect(new Set(live.map((file) => file.path))).toEqual(replayJson(table.objects, 0).live);
    expect(await countLive(table.objects, replayJson(table.objects, 0).live)).toEqual({ total: sent, distinct: sent });
    expect(live.reduce((sum, file) => sum + JSON.parse(file.stats ?? 'null').numRecords, 0)).toBe(sent);
  });

  it('never loses or duplicates a row while appends race it, and gives up when another compaction took its files', async () => {
    for (let round = 0; round < 3; round++) {
      const clock = { now: Date.parse('2026-11-20T10:00:00Z') };
      const { table, append, maintenance } = harness(clock);
      let sent = 0;
      for (let i = 0; i < 12; i++) {
        await append(envelopes(4, '2026-11-20', clock.now));
        sent += 4;
      }
      const racing = Array.from({ length: 6 }, async () => {
        const batch = envelopes(4, '2026-11-20', clock.now);
        sent += 4;
        return append(batch);
      });
      const [first, second] = await Promise.all([
        maintainTable(maintenance(), 't', () => ({ minFiles: 2, expiry: null })),
        maintainTable(maintenance(), 't', () => ({ minFiles: 2, expiry: null })),
        ...racing,
      ]);
      // Both planned from the same files: exactly one of them may commit them.
      expect((first?.versions.length ?? 0) + (second?.versions.length ?? 0)).toBeGreaterThanOrEqual(1);
      expect((first?.conflicts ?? 0) + (second?.conflicts ?? 0)).toBeLessThanOrEqual(1);
      const { live } = replayJson(table.objects, 0);
      expect(await countLive(table.objects, live)).toEqual({ total: sent, distinct: sent });
    }
  });
});

describe('vacuum and log clean-up', { timeout: 60_000 }, () => {
  it('delete removed files after their retention and old log files only behind a checkpoint, keeping time travel within retention', async () => {
    const clock = { now: Date.parse('2026-10-01T10:00:00Z') };
    const { table, append, maintenance, reader } = harness(clock);
    for (let i = 0; i < 12; i++) await append(envelopes(2, '2026-10-01', clock.now));
    const compacted = await maintainTable(maintenance(), 't', () => ({ minFiles: 2, expiry: null }));
    const removed = replayJson(table.objects, 0, new Set()).live;
    expect(compacted.filesRemoved).toBe(12);
    const tombstoned = [...(await openSnapshot(reader)).state.tombstones.keys()];
    expect(tombstoned.every((key) => table.objects.has(key))).toBe(true);
    expect(compacted.nextDueAt).toBe(clock.now + 7 * day);

    clock.now += 6 * day;
    expect((await maintainTable(maintenance(), 't', () => ({ minFiles: 2, expiry: null }))).filesVacuumed).toBe(0);
    clock.now += 2 * day;
    // A run stopped before its vacuum (a job cancelled, nothing to commit) deletes nothing.
    const stopped = new Error('cancelled');
    await expect(
      maintainTable(
        {
          ...maintenance(),
          checkpoint: async () => {
            throw stopped;
          },
        },
        't',
        () => ({ minFiles: 2, expiry: null }),
      ),
    ).rejects.toBe(stopped);
    expect(tombstoned.every((key) => table.objects.has(key))).toBe(true);
    const vacuumed = await maintainTable(maintenance(), 't', () => ({ minFiles: 2, expiry: null }));
    expect(vacuumed.filesVacuumed).toBe(12);
    expect(tombstoned.some((key) => table.objects.has(key))).toBe(false);
    expect([...removed].every((key) => table.objects.has(key))).toBe(true);

    // A month later, with more versions and checkpoints: the old commits go, the covering checkpoint stays.
    const oldVersion = (await openSnapshot(reader)).state.version;
    clock.now += 31 * day;
    for (let i = 0; i < 20; i++) await append(envelopes(1, '2026-11-10', clock.now));
    const recent = (await openSnapshot(reader)).state.version - 5;
    const cleaned = await maintainTable(maintenance(), 't', () => ({ minFiles: 50, expiry: null }));
    expect(cleaned.logFilesRemoved).toBeGreaterThan(0);
    expect(table.objects.has(logFileName(0))).toBe(false);
    const remaining = [...table.objects.keys()].filter((key) => /\d{20}\.(json|checkpoint\.parquet)$/.test(key)).sort();
    expect(remaining[0]).toMatch(/\.checkpoint\.parquet$|\.json$/);
    const oldestCheckpoint = remaining.find((key) => key.endsWith('.checkpoint.parquet')) as string;
    const oldestKept = Number(/(\d{20})/.exec(remaining[0] as string)?.[1]);
    expect(Number(/(\d{20})/.exec(oldestCheckpoint)?.[1])).toBe(oldestKept);

    // Time travel inside the retention works; before the clean-up point it says so.
    const travelled = await openSnapshot(reader, { version: recent });
    expect(travelled.state.version).toBe(recent);
    expect([...travelled.state.files.keys()].every((key) => table.objects.has(key))).toBe(true);
    await expect(openSnapshot(reader, { version: Math.min(oldVersion, oldestKept - 1) })).rejects.toBeInstanceOf(
      VersionNotFound,
    );
  });
});
