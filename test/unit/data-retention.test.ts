/**
 * Data retention (`tributary.dataRetention`, the deployment's default): whole day partitions older
 * than it removed in one Delta version, their files vacuumed later, failed deliveries of expired
 * envelopes deleted, a clock the test controls. Real Parquet files in an in-memory store, the live
 * files found by replaying the JSON commits by hand and their rows counted by DuckDB.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFileName, metadataAction } from '#delta/kernel/log.ts';
import { type LogReader, openSnapshot } from '#delta/kernel/snapshot.ts';
import { appendToTable } from '#delta/operations/append.ts';
import { writePartitionedFiles } from '#delta/operations/data-files.ts';
import type { MaintenanceDeps } from '#delta/operations/maintenance.ts';
import { commitRearrangement } from '#delta/operations/optimize.ts';
import { commitMetadata } from '#delta/operations/set-metadata.ts';
import type { CommitDeps } from '#delta/operations/transaction.ts';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { rewriteFiles } from '#delta/parquet/compaction.ts';
import { type CellValue, writeParquet } from '#delta/parquet/parquet-files.ts';
import { maintainWithRetention } from '#shared/adapters/delta-tables.ts';
import { dataRetentionMs } from '#shared/config.ts';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import { exactlyOncePerMessage } from '#shared/domain/datasets/exactly-once.ts';
import { type DataSet, envelopeSchema } from '#shared/domain/datasets/model.ts';
import { firstDayKept, retentionKeeps } from '#shared/domain/datasets/retention.ts';
import { setTableProperties } from '#shared/domain/datasets/table-properties.ts';
import { checkTableProperties, tablePropertyRules, tableSettings } from '#shared/domain/datasets/table-settings.ts';
import { envelopeColumns } from '#shared/domain/ingest/envelope.ts';
import type { FailedDelivery } from '#shared/domain/ingest/kept-records.ts';
import { optimizePayload } from '#shared/domain/jobs/maintenance-jobs.ts';
import type { Job } from '#shared/domain/jobs/model.ts';
import { readJob } from '#shared/domain/jobs/run-job.ts';
import { runOptimize } from '#shared/domain/jobs/run-optimize.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { icebergUntouched } from '../support/iceberg-untouched.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';
import { memoryTable, writerOf } from '../support/memory-table.ts';

const day = 86_400_000;
const schema = { tableId: 't', name: 't', schema: envelopeSchema, partitionColumns: ['dt'], createdTime: 0 };

interface Envelope {
  messageId: string;
  dt: string;
  ingestedAt: number;
}

function encode(rows: Envelope[]) {
  return writeParquet([...envelopeColumns], [
    rows.map((row) => row.messageId),
    rows.map((row) => BigInt(row.ingestedAt) * 1000n),
    rows.map(() => 'source'),
    rows.map(() => 'tenant'),
    rows.map(() => 'application/json'),
    rows.map(() => 2n),
    rows.map(() => Buffer.from('{}').toString('base64')),
    rows.map(() => null),
  ] as CellValue[][]);
}

/** A webhook table in memory, written through the real commit path, on a clock the test moves. */
function harness(clock: { now: number }, defaultRetentionMs: number | null = null) {
  const table = memoryTable({ clock: () => clock.now, jitter: false });
  const reader: LogReader = { storage: table.storage, decodeCheckpoint };
  const writer = (): CommitDeps => writerOf(table, {}, { decodeCheckpoint, now: () => new Date(clock.now) });
  const commit = writer();
  const append = (rows: Envelope[], deps = commit) =>
    appendToTable(deps, {
      tableId: 't',
      metadata: schema,
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
  /** A maintenance run with the data set's rules (its retention's days expire), as the job runs it. */
  const maintain = (deps = maintenance(), options: { minFiles?: number } = {}) =>
    maintainWithRetention(deps, 't', { ...options, defaultRetentionMs });
  const setProperties = (properties: Record<string, string>) =>
    commitMetadata(commit, 't', async (current) => ({
      ...(current ?? metadataAction(schema)),
      configuration: { ...current?.configuration, ...properties },
    }));
  /** As the table-commits schedule appends staged envelopes: those of a day past the retention left out. */
  const appendStaged = (rows: Envelope[]) =>
    appendToTable(commit, {
      tableId: 't',
      metadata: schema,
      rows,
      deduplication: exactlyOncePerMessage(table.records, 't', (row: Envelope) => row),
      keeps: (state) => {
        const keepsDay = retentionKeeps(state, clock.now, defaultRetentionMs);
        return (row) => keepsDay(row.dt);
      },
      attempt: 1,
      writeFiles: (pending) =>
        writePartitionedFiles(table.storage, pending, {
          partitionOf: (row) => ({ dt: row.dt }),
          encode,
          maxRowsPerFile: 1000,
        }),
    });
  return { table, reader, writer, commit, append, appendStaged, maintenance, maintain, setProperties };
}

/** `count` envelopes of `dt`, received at noon that day. */
const envelopes = (count: number, dt: string): Envelope[] =>
  Array.from({ length: count }, () => ({ messageId: randomUUID(), dt, ingestedAt: Date.parse(`${dt}T12:00:00Z`) }));

/** The live files after replaying every JSON commit by hand (adds minus removes, by path). */
function replay(objects: Map<string, { bytes: Buffer }>): Set<string> {
  const live = new Set<string>();
  for (let version = 0; objects.has(logFileName(version)); version++)
    for (const line of (objects.get(logFileName(version))?.bytes.toString('utf8') ?? '').split('\n').filter(Boolean)) {
      const action = JSON.parse(line);
      if (action.add) live.add(action.add.path);
      if (action.remove) live.delete(action.remove.path);
    }
  return live;
}

const commitLines = (objects: Map<string, { bytes: Buffer }>, version: number) =>
  (objects.get(logFileName(version))?.bytes.toString('utf8') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>>;
let connection: Awaited<ReturnType<typeof duck.connect>>;
const directory = mkdtempSync(path.join(os.tmpdir(), 'data-retention-'));
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
  connection = await duck.connect();
});
afterAll(() => connection.closeSync());

/** DuckDB over the live files: the message ids it reads, sorted. */
async function liveMessageIds(objects: Map<string, { bytes: Buffer }>): Promise<string[]> {
  const files = [...replay(objects)].map((key) => {
    const file = path.join(directory, `${randomUUID()}.parquet`);
    writeFileSync(file, objects.get(key)?.bytes as Buffer);
    return `'${file}'`;
  });
  if (files.length === 0) return [];
  const reader = await connection.runAndReadAll(
    `SELECT message_id FROM read_parquet([${files.join(',')}]) ORDER BY message_id`,
  );
  return (reader.getRowObjectsJson() as { message_id: string }[]).map((row) => row.message_id);
}

const ids = (rows: Envelope[]) => rows.map((row) => row.messageId).sort();

describe('the retention property', () => {
  it('reads Delta intervals of at least a day, refuses the rest, and holds what another writer set to its bounds', () => {
    expect(() => checkTableProperties({ 'tributary.dataRetention': 'interval 30 days' })).not.toThrow();
    expect(() => checkTableProperties({ 'tributary.dataRetention': 'interval 2 weeks' })).not.toThrow();
    for (const bad of ['interval 23 hours', 'interval 0 days', 'forever', '30', 'interval 36501 days']) {
      expect(() => checkTableProperties({ 'tributary.dataRetention': bad }), bad).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_ERROR',
          details: [expect.objectContaining({ path: 'properties.tributary.dataRetention' })],
        }),
      );
    }
    expect(tableSettings({ 'tributary.dataRetention': 'interval 30 days' }).dataRetentionMs).toBe(30 * day);
    expect(tableSettings({ 'tributary.dataRetention': 'interval 1 hour' }).dataRetentionMs).toBe(day);
    expect(tableSettings({ 'tributary.dataRetention': 'a month' }).dataRetentionMs).toBeNull();
    expect(tableSettings({}).dataRetentionMs).toBeNull();
  });

  it('takes the deployment default in whole days, none when unset or 0, and refuses anything else at start', () => {
    expect(dataRetentionMs({})).toBeNull();
    expect(dataRetentionMs({ DATA_RETENTION_DAYS: '0' })).toBeNull();
    expect(dataRetentionMs({ DATA_RETENTION_DAYS: '30' })).toBe(30 * day);
    for (const bad of ['1.5', '-1', 'thirty', '36501'])
      expect(() => dataRetentionMs({ DATA_RETENTION_DAYS: bad })).toThrow();
  });

  it('keeps a day until every row of it is older than the retention (UTC days)', () => {
    const cases: [string, number, string][] = [
      ['2026-11-10T12:00:00.000Z', 3 * day, '2026-11-07'],
      // Day 11-06 ended exactly three days ago: all its rows are that old.
      ['2026-11-10T00:00:00.000Z', 3 * day, '2026-11-07'],
      ['2026-11-09T23:59:59.999Z', 3 * day, '2026-11-06'],
      ['2026-03-01T06:00:00.000Z', 1 * day, '2026-02-28'],
      ['2026-01-01T00:00:00.000Z', 30 * day, '2025-12-02'],
    ];
    for (const [now, retention, kept] of cases) expect(firstDayKept(Date.parse(now), retention), now).toBe(kept);
  });

  it('is shown in the table-properties answer, from the table or the deployment, and asks for a maintenance run when set', async () => {
    const store = memoryStore();
    const tenant = await createTenant(store, { name: 'Acme' });
    const { dataSet } = await createConnection(store, platformAdmin, tenant.tenant_id, { type: 'Webhook', name: 'h' });
    let current: Record<string, string> = {};
    const due: string[] = [];
    const asked: string[] = [];
    const deps = (defaultDataRetentionMs: number | null) => ({
      ...store,
      fixStorage: async (found: typeof dataSet) => found,
      // As the table's log does: each change builds on the properties before it.
      commitProperties: async (_: unknown, change: (properties: Record<string, string>) => Record<string, string>) => {
        current = change(current);
        return { version: 1, properties: current };
      },
      rules: tablePropertyRules,
      recordFreshnessTarget: async () => undefined,
      askCommitter: async (id: string) => {
        asked.push(id);
      },
      defaultFreshnessMs: 300_000,
      defaultDataRetentionMs,
      markMaintenanceDue: async (marked: typeof dataSet) => {
        due.push(marked.data_set_id);
      },
    });
    const set = (properties: Record<string, string>, fallback: number | null = null) =>
      setTableProperties(deps(fallback), platformAdmin, dataSet.data_set_id, properties);

    expect((await set({ 'delta.checkpointInterval': '20' })).effective.data_retention_seconds).toBeNull();
    expect(due).toEqual([]);
    expect((await set({ 'tributary.dataRetention': 'interval 30 days' })).effective.data_retention_seconds).toBe(
      30 * 86_400,
    );
    expect(due).toEqual([dataSet.data_set_id]);
    expect((await set({ 'tributary.dataRetention': '' }, 7 * day)).effective.data_retention_seconds).toBe(7 * 86_400);
    await expect(set({ 'tributary.dataRetention': 'interval 2 hours' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ path: 'properties.tributary.dataRetention' })],
    });
    // Only a freshness target set or removed brings the table's committer (a shorter one makes rows due sooner).
    expect(asked).toEqual([]);
    await set({ 'tributary.freshness': 'interval 2 seconds' });
    await set({ 'tributary.freshness': '' });
    expect(asked).toEqual([dataSet.data_set_id, dataSet.data_set_id]);

    // Another writer's property is theirs: neither set nor removed here. Names an object inherits are names like any other.
    current = { ...current, 'delta.columnMapping.mode': 'name', 'delta.appendOnly': 'true' };
    const before = { ...current };
    for (const properties of <Record<string, string>[]>[
      { 'delta.columnMapping.mode': '' },
      { 'delta.appendOnly': '' },
      { bogus: '' },
      { constructor: '1' },
      { constructor: '' },
      { toString: 'interval 2 days' },
      { hasOwnProperty: '1' },
      // As a request's JSON body holds it: an own key (a literal would set the prototype).
      JSON.parse('{"__proto__": "1"}') as Record<string, string>,
      { valueOf: '1', 'tributary.freshness': 'interval 5 seconds' },
    ]) {
      const name = Object.keys(properties).find((key) => !key.startsWith('tributary.')) as string;
      await expect(set(properties), JSON.stringify(properties)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ path: `properties.${name}` })],
      });
    }
    expect(current).toEqual(before);
  });
});

// Real Parquet encoding and DuckDB: seconds on a busy machine, not milliseconds.
describe('maintenance with a data retention', { timeout: 60_000 }, () => {
  it('removes every day older than the retention in one DELETE version, DuckDB reads exactly the days inside it, and the vacuum deletes the files a week later', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const { table, append, setProperties, reader, maintain } = harness(clock);
    const byDay = new Map<string, Envelope[]>();
    for (const [dt, count] of [
      ['2026-11-01', 1],
      ['2026-11-05', 2],
      ['2026-11-06', 3],
      ['2026-11-07', 4],
      ['2026-11-09', 5],
      ['2026-11-10', 6],
    ] as const) {
      // Two commits a day: two files in each partition.
      const rows = envelopes(count * 2, dt);
      byDay.set(dt, rows);
      await append(rows.slice(0, count));
      await append(rows.slice(count));
    }
    await setProperties({ 'tributary.dataRetention': 'interval 3 days' });
    const before = await openSnapshot(reader);
    const expiredFiles = [...before.state.files.values()].filter(
      (file) => (file.partitionValues.dt ?? '') < '2026-11-07',
    );
    expect(expiredFiles).toHaveLength(6);

    const report = await maintain();

    expect(report).toMatchObject({
      retentionMs: 3 * day,
      keptFrom: '2026-11-07',
      expiredVersion: before.state.version + 1,
      partitionsExpired: 3,
      filesExpired: 6,
      rowsExpired: 2 + 4 + 6,
      expirySkipped: null,
      versions: [],
    });
    const lines = commitLines(table.objects, report.expiredVersion as number);
    expect(lines[0].commitInfo).toMatchObject({
      operation: 'DELETE',
      operationParameters: { predicate: `["dt IN ('2026-11-01', '2026-11-05', '2026-11-06')"]` },
      isBlindAppend: false,
      engineInfo: 'Tributary',
    });
    expect(lines.filter((line) => line.add)).toEqual([]);
    const removes = lines.filter((line) => line.remove).map((line) => line.remove);
    expect(removes.map((remove) => remove.path).sort()).toEqual(expiredFiles.map((file) => file.path).sort());
    for (const remove of removes) {
      const file = expiredFiles.find((expired) => expired.path === remove.path);
      expect(remove).toEqual({
        path: file?.path,
        deletionTimestamp: clock.now,
        dataChange: true,
        extendedFileMetadata: true,
        partitionValues: file?.partitionValues,
        size: file?.size,
      });
    }
    const kept = ['2026-11-07', '2026-11-09', '2026-11-10'].flatMap((dt) => byDay.get(dt) ?? []);
    expect(await liveMessageIds(table.objects)).toEqual(ids(kept));
    // The next run: when day 11-07 expires (its end plus three days), or a tombstone's week is up.
    expect(report.nextDueAt).toBe(Date.parse('2026-11-11T00:00:00Z'));

    // Removed, not yet deleted: readers of older versions still read them for the deleted-file retention.
    expect(expiredFiles.every((file) => table.objects.has(file.path))).toBe(true);
    clock.now += 7 * day - 1;
    const early = await maintain();
    expect(early.filesVacuumed).toBe(0);
    // Meanwhile days 11-07 to 11-13 expired in turn: another DELETE version each run, here one for all.
    expect(early.partitionsExpired).toBe(3);
    clock.now += 2;
    const late = await maintain();
    expect(late.filesVacuumed).toBe(6);
    expect(expiredFiles.some((file) => table.objects.has(file.path))).toBe(false);
    expect(await liveMessageIds(table.objects)).toEqual([]);
  });

  it('applies the deployment default to a table that sets none, and the table’s own over it', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const { table, append, maintain } = harness(clock, 2 * day);
    const old = envelopes(3, '2026-11-07');
    const recent = envelopes(2, '2026-11-08');
    await append([...old, ...recent]);
    expect(await maintain()).toMatchObject({ keptFrom: '2026-11-08', rowsExpired: 3 });
    expect(await liveMessageIds(table.objects)).toEqual(ids(recent));

    const second = harness(clock, 2 * day);
    await second.append([...old, ...recent]);
    await second.setProperties({ 'tributary.dataRetention': 'interval 30 days' });
    expect(await second.maintain()).toMatchObject({
      retentionMs: 30 * day,
      expiredVersion: null,
      rowsExpired: 0,
    });
    expect(await liveMessageIds(second.table.objects)).toEqual(ids([...old, ...recent]));

    const none = harness(clock);
    await none.append(old);
    expect(await none.maintain()).toMatchObject({
      retentionMs: null,
      keptFrom: null,
      expiredVersion: null,
    });
    expect(await liveMessageIds(none.table.objects)).toEqual(ids(old));
  });

  it('leaves an append-only table whole and says why, without failing', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const { table, append, setProperties, reader, maintain } = harness(clock);
    const rows = envelopes(4, '2026-10-01');
    await append(rows);
    await setProperties({ 'tributary.dataRetention': 'interval 3 days', 'delta.appendOnly': 'true' });
    const version = (await openSnapshot(reader)).state.version;
    const report = await maintain();
    expect(report.expirySkipped).toMatch(/append-only \(delta\.appendOnly = true\)/);
    expect(report).toMatchObject({ expiredVersion: null, rowsExpired: 0 });
    expect((await openSnapshot(reader)).state.version).toBe(version);
    expect(await liveMessageIds(table.objects)).toEqual(ids(rows));
  });

  it('removes what is live when it commits: a file another commit removed first is not removed twice, one added to an expired day meanwhile goes too', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const { table, append, maintenance, setProperties, writer, maintain } = harness(clock);
    const expired = [envelopes(2, '2026-11-01'), envelopes(3, '2026-11-01')];
    const kept = envelopes(4, '2026-11-09');
    for (const rows of expired) await append(rows);
    await setProperties({ 'tributary.dataRetention': 'interval 3 days' });
    // The maintenance writer's snapshot is warm here, so it learns of the next commits only by losing a race.
    const deps = maintenance();
    await appendToTable(deps.commit, {
      tableId: 't',
      metadata: schema,
      rows: kept,
      deduplication: exactlyOncePerMessage(table.records, 't', (row: Envelope) => row),
      attempt: 1,
      writeFiles: (pending) =>
        writePartitionedFiles(table.storage, pending, {
          partitionOf: (row) => ({ dt: row.dt }),
          encode,
          maxRowsPerFile: 1000,
        }),
    });
    // Another writer: a compaction of the expired day (its two files into one), then a late envelope of that day.
    const other = writer();
    const state = (await openSnapshot({ storage: table.storage, decodeCheckpoint })).state;
    const sources = [...state.files.values()].filter((file) => file.partitionValues.dt === '2026-11-01');
    const [compacted] = await rewriteFiles(
      table.storage,
      sources,
      1 << 30,
      () => `dt=2026-11-01/part-${randomUUID()}.zstd.parquet`,
    );
    await commitRearrangement(other, {
      tableId: 't',
      readVersion: state.version,
      operation: 'OPTIMIZE',
      bytes: compacted?.size ?? 0,
      removes: sources.map((file) => ({
        path: file.path,
        deletionTimestamp: clock.now,
        dataChange: false,
        extendedFileMetadata: true,
        partitionValues: file.partitionValues,
        size: file.size,
      })),
      adds: [
        {
          path: compacted?.path as string,
          partitionValues: { dt: '2026-11-01' },
          size: compacted?.size ?? 0,
          modificationTime: clock.now,
          dataChange: false,
          stats: JSON.stringify({ numRecords: 5, minValues: {}, maxValues: {}, nullCount: {} }),
        },
      ],
    });
    const late = envelopes(1, '2026-11-01');
    await append(late, other);

    const report = await maintain(deps);
    const lines = commitLines(table.objects, report.expiredVersion as number);
    const removed = lines.filter((line) => line.remove).map((line) => line.remove.path);
    expect(removed).toHaveLength(2);
    expect(removed).toContain(compacted?.path);
    expect(removed.some((removedPath: string) => sources.some((source) => source.path === removedPath))).toBe(false);
    expect(report).toMatchObject({ filesExpired: 2, rowsExpired: 6 });
    expect(await liveMessageIds(table.objects)).toEqual(ids(kept));
  });
});

/** Every day partition any commit ever added a file to. */
function daysEverAdded(objects: Map<string, { bytes: Buffer }>): Set<string> {
  const days = new Set<string>();
  for (let version = 0; objects.has(logFileName(version)); version++)
    for (const line of commitLines(objects, version)) if (line.add) days.add(line.add.partitionValues.dt);
  return days;
}

describe('staged envelopes with a data retention', { timeout: 60_000 }, () => {
  it('are not committed into a day the retention no longer keeps: left out and counted, the rest written once', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const { table, append, appendStaged, setProperties } = harness(clock);
    const first = envelopes(2, '2026-11-09');
    await append(first);
    await setProperties({ 'tributary.dataRetention': 'interval 3 days' });
    // Staged while the table's commits kept failing: days 11-05 and 11-06 have since expired (kept from 11-07).
    const expired = [...envelopes(3, '2026-11-05'), ...envelopes(1, '2026-11-06')];
    const kept = [...envelopes(2, '2026-11-07'), ...envelopes(1, '2026-11-10')];

    expect(await appendStaged([...expired, ...kept])).toMatchObject({ written: 3, skipped: 0, expired: 4 });
    expect(await liveMessageIds(table.objects)).toEqual(ids([...first, ...kept]));
    expect([...daysEverAdded(table.objects)].sort()).toEqual(['2026-11-07', '2026-11-09', '2026-11-10']);

    // Delivered again: the kept ones are already in, the expired ones still left out.
    expect(await appendStaged([...kept, ...expired])).toMatchObject({
      version: null,
      written: 0,
      skipped: 3,
      expired: 4,
    });
    // Nothing but expired envelopes: no version at all.
    const versions = [...table.objects.keys()].filter((key) => key.startsWith('_delta_log/')).length;
    expect(await appendStaged(envelopes(2, '2026-11-01'))).toEqual({
      version: null,
      written: 0,
      skipped: 0,
      expired: 2,
    });
    expect([...table.objects.keys()].filter((key) => key.startsWith('_delta_log/')).length).toBe(versions);
    expect(await liveMessageIds(table.objects)).toEqual(ids([...first, ...kept]));
  });

  it('follow the deployment default from a table’s first commit, and are all written to a table without a retention or an append-only one', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const old = envelopes(2, '2026-11-01');
    const recent = envelopes(3, '2026-11-08');

    const fresh = harness(clock, 3 * day);
    expect(await fresh.appendStaged([...old, ...recent])).toMatchObject({ version: 0, written: 3, expired: 2 });
    expect(await liveMessageIds(fresh.table.objects)).toEqual(ids(recent));

    const none = harness(clock);
    expect(await none.appendStaged([...old, ...recent])).toMatchObject({ written: 5, expired: 0 });
    expect(await liveMessageIds(none.table.objects)).toEqual(ids([...old, ...recent]));

    // Maintenance leaves an append-only table's old days whole, so its staged envelopes of those days are written too.
    const whole = harness(clock);
    await whole.append(envelopes(1, '2026-11-09'));
    await whole.setProperties({ 'tributary.dataRetention': 'interval 3 days', 'delta.appendOnly': 'true' });
    expect(await whole.appendStaged([...old, ...recent])).toMatchObject({ written: 5, expired: 0 });
    expect(daysEverAdded(whole.table.objects).has('2026-11-01')).toBe(true);
  });
});

describe('an Optimize job with a data retention', { timeout: 60_000 }, () => {
  it('deletes the failed deliveries of expired envelopes with the table’s days, and is due again when the oldest day kept expires', async () => {
    const clock = { now: Date.parse('2026-11-10T12:00:00Z') };
    const { table, append, maintenance, setProperties, maintain } = harness(clock);
    await append([...envelopes(2, '2026-11-02'), ...envelopes(3, '2026-11-08')]);
    await setProperties({ 'tributary.dataRetention': 'interval 3 days' });
    const failure = (id: string, failedAt: string, dt?: string): FailedDelivery => ({
      message_id: id,
      data_set_id: 't',
      connection_id: 'c',
      source_id: 's',
      failed_at: failedAt,
      attempts: 5,
      last_error: 'STORE_UNREACHABLE: the store did not answer',
      body_key: `dead-letters/t/${id}.json`,
      ...(dt ? { dt } : {}),
    });
    let failed = [
      failure('old', '2026-11-06T00:10:00.000Z', '2026-11-05'),
      // Received the day before it failed: its own day decides.
      failure('received-earlier', '2026-11-07T00:10:00.000Z', '2026-11-06'),
      failure('inside', '2026-11-09T00:00:00.000Z', '2026-11-09'),
      // Kept before records had the envelope's day: the day it failed stands in for it.
      failure('legacy-old', '2026-11-06T23:00:00.000Z'),
      failure('legacy-inside', '2026-11-07T01:00:00.000Z'),
    ];
    const deleted: string[] = [];
    const finished: (Date | null)[] = [];
    const job = {
      job_id: randomUUID(),
      tenant_id: 'tenant',
      payload: { data_set_id: 't', min_files: null, trigger: 'schedule' },
    } as Job;
    const outcome = await runOptimize(
      {
        getDataSet: async () => ({ data_set_id: 't', tenant_id: 'tenant', origin: { type: 'Webhook' } }) as DataSet,
        maintain: async (_, minFiles, control) => ({
          ...(await maintain({ ...maintenance(), ...control }, minFiles === undefined ? {} : { minFiles })),
          committed: [],
        }),
        markMaintenanceDue: async () => undefined,
        warn: () => undefined,
        iceberg: icebergUntouched,
        failedDeliveries: {
          allFailedDeliveries: async () => [...failed],
          async forgetExpired(expired) {
            deleted.push(...expired.map((one) => one.message_id));
            failed = failed.filter((one) => !expired.includes(one));
          },
        },
        defaultRetentionMs: null,
        finish: async (_, next) => {
          finished.push(next);
        },
        now: () => new Date(clock.now),
      },
      readJob(optimizePayload, job),
      { throwIfCancelled: async () => undefined, beginCommit: async () => undefined },
    );
    expect(deleted.sort()).toEqual(['legacy-old', 'old', 'received-earlier']);
    expect(failed.map((one) => one.message_id).sort()).toEqual(['inside', 'legacy-inside']);
    expect(outcome.source).toMatchObject({
      retention: {
        seconds: 3 * 86_400,
        kept_from: '2026-11-07',
        partitions_removed: 1,
        files_removed: 1,
        rows_removed: 2,
        failed_deliveries_deleted: 3,
        skipped: null,
      },
    });
    // The oldest failed delivery kept (11-07, by the day it failed) expires first: 11-08 plus three days.
    expect(finished).toEqual([new Date('2026-11-11T00:00:00.000Z')]);
    expect(table.objects.size).toBeGreaterThan(0);
  });
});
