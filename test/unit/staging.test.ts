/**
 * Staging and staged commits (shared/domain/ingest/staging.ts, commit-staged.ts), the commit of one
 * table (commit-table.ts), the batch writer (write-batch.ts) and the overdue check
 * (staged-overdue.ts), through in-memory ports: each table's records and head, the staged objects
 * and the commits queue in Maps, each table a Delta log in memory written through the adapter's
 * envelope output and the real commit path, its data files written as JSON lines so that the test
 * reads back on its own what the log references. A clock the test moves decides what is due, and
 * which commit triggers have arrived.
 */
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it, vi } from 'vitest';
import { committedView, envelopeOutput } from '#shared/adapters/delta-tables.ts';
import { parseStagedSlice } from '#shared/adapters/staged-rows.ts';
import { ByteBudget } from '#shared/domain/at-most.ts';
import { newDataSet } from '#shared/domain/datasets/model.ts';
import type { CommittedVersion } from '#shared/domain/datasets/table.ts';
import { type CommitReport, commitTriggered } from '#shared/domain/ingest/commit-staged.ts';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { envelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { checkOverdue, overdueGraceMs } from '#shared/domain/ingest/staged-overdue.ts';
import { StagedReads } from '#shared/domain/ingest/staged-reads.ts';
import { type CommitTrigger, maxCommitAttempts, recordTime, writerLifetimeMs } from '#shared/domain/ingest/staging.ts';
import {
  type BatchWriterDeps,
  type QueueRecord,
  SentTriggers,
  writeEnvelopeBatch,
} from '#shared/domain/ingest/write-batch.ts';
import { icebergUntouched } from '../support/iceberg-untouched.ts';
import { type MemoryStaging, memoryStaging } from '../support/memory-staging.ts';
import { type MemoryTable, memoryTable, writerOf } from '../support/memory-table.ts';

const minute = 60_000;
const day = 86_400_000;

/** Data set ids (envelopes carry UUIDs). */
const A = 'da7a5e70-0000-4000-8000-000000000001';
const B = 'da7a5e70-0000-4000-8000-000000000002';
const BIG = 'da7a5e70-0000-4000-8000-000000000003';
const BROKEN = 'da7a5e70-0000-4000-8000-000000000004';
const C = 'da7a5e70-0000-4000-8000-000000000005';
const FINE = 'da7a5e70-0000-4000-8000-000000000006';
const GONE = 'da7a5e70-0000-4000-8000-000000000007';
const LATER = 'da7a5e70-0000-4000-8000-000000000008';
const NOW = 'da7a5e70-0000-4000-8000-000000000009';
const SMALL = 'da7a5e70-0000-4000-8000-000000000010';
const TENANT = '00000000-0000-4000-8000-000000000001';

interface World {
  deps: BatchWriterDeps;
  staging: MemoryStaging;
  clock: { now: number };
  tables: Map<string, MemoryTable>;
  /** Data sets whose store refuses every write. */
  failing: Set<string>;
  /** Data sets whose store answers no write until the promise settles. */
  holding: Map<string, Promise<void>>;
  /** Claim-checked bodies in the platform bucket, by key. */
  claims: Set<string>;
  deadLettered: { tableId: string; ids: string[]; error: string; attempts: number }[];
  /** The message ids whose receipts were raised, in the order they were. */
  raised: string[];
  /** The operator's figures: `<figure> <labels as JSON>` → total. */
  figures: Map<string, number>;
  /** Of those, what the committer has written to the shared counters before its invocation ends. */
  settled: Map<string, number>;
  /** Maintenance runs asked for: the data set and when. */
  due: { tableId: string; at: string }[];
  /** The warnings logged, with their fields. */
  warnings: { message: string; fields: Record<string, unknown> }[];
  rowsOf(tableId: string): string[];
  commitsOf(tableId: string): number;
  /** Delivers the commit triggers that have arrived to a committer (one invocation). */
  deliver(options?: { deadline?: number; holder?: string }): Promise<CommitReport>;
  /** Every trigger that arrives up to `until`, delivered as it arrives (the clock moved to each). */
  deliverUntil(until: number): Promise<CommitReport[]>;
  /** The table-commits schedule's run. */
  sweep(stopping?: boolean): ReturnType<typeof checkOverdue>;
}

/**
 * Tables with a freshness target each (5 minutes unless `freshness` says otherwise); a size target
 * of 10,000 payload bytes; the deployment's data retention `retentionMs` (none unless given).
 */
function world(
  options: {
    freshness?: Record<string, number>;
    gone?: string[];
    retentionMs?: number;
    /** How long each table's commit takes on the world's clock. */
    commitTakesMs?: number;
  } = {},
): World {
  const clock = { now: Date.UTC(2026, 10, 23, 12) };
  const staging = memoryStaging(() => clock.now);
  const tables = new Map<string, MemoryTable>();
  const failing = new Set<string>();
  const holding = new Map<string, Promise<void>>();
  const claims = new Set<string>();
  const deadLettered: World['deadLettered'] = [];
  const raised: string[] = [];
  const figures = new Map<string, number>();
  const settled = new Map<string, number>();
  const pending = new Map<string, number>();
  const countedOnce = new Set<string>();
  const due: World['due'] = [];
  const warnings: World['warnings'] = [];
  const tableOf = (tableId: string) => {
    let table = tables.get(tableId);
    if (!table) {
      table = memoryTable({ jitter: false, clock: () => clock.now });
      tables.set(tableId, table);
    }
    return table;
  };
  // One writer per table, as a warm function instance keeps its snapshot cache.
  const writers = new Map<string, ReturnType<typeof writerOf>>();
  const deps: BatchWriterDeps = {
    records: staging.records,
    objects: staging.objects,
    triggers: staging.triggers,
    sent: new SentTriggers(),
    parse: parseStagedSlice,
    async freshness(ids) {
      return new Map(ids.map((id) => [id, options.freshness?.[id] ?? 5 * minute]));
    },
    async getDataSet(tableId) {
      if (options.gone?.includes(tableId)) return null;
      return newDataSet(
        {
          data_set_id: tableId,
          tenant_id: TENANT,
          tenant_slug: 'acme',
          name: tableId,
          origin: { type: 'Webhook', connection_id: 'c', source_id: `s-${tableId}` },
          schema_json: { type: 'struct', fields: [] },
        },
        '2026-11-01T00:00:00.000Z',
      );
    },
    fixStorage: async (dataSet) => ({
      ...dataSet,
      object_store_id: 'store',
      storage_location: `s3://lake/${dataSet.data_set_id}`,
    }),
    async appendEnvelopes(dataSet, rows, request) {
      const tableId = dataSet.data_set_id;
      const table = tableOf(tableId);
      const writer = writers.get(tableId) ?? writerOf(table, {}, { now: () => new Date(clock.now) });
      writers.set(tableId, writer);
      const storage = {
        ...table.storage,
        async put(key: string, body: Uint8Array | string, contentType: string) {
          await holding.get(tableId);
          if (failing.has(tableId)) throw Object.assign(new Error('Injected fault'), { name: 'ServiceUnavailable' });
          return table.storage.put(key, body, contentType);
        },
      };
      const committed: CommittedVersion[] = [];
      const hooks = {
        async onCompleted(...[entry, state]: Parameters<typeof writer.hooks.onCompleted>) {
          committed.push(committedView(entry, state, options.retentionMs ?? null));
        },
      };
      const output = envelopeOutput(
        { ...writer, storage, hooks },
        {
          ids: table.records,
          defaultRetentionMs: options.retentionMs ?? null,
          encode: (chunk) => ({
            bytes: Buffer.from(chunk.map((row) => row.message.message_id).join('\n')),
            stats: { numRecords: chunk.length, minValues: {}, maxValues: {}, nullCount: {} },
          }),
        },
      );
      const result = await output(dataSet, rows, request);
      clock.now += options.commitTakesMs ?? 0;
      return { ...result, committed };
    },
    claimExists: async (ref) => claims.has(ref.key),
    // What the table holds, read from its files (the run history records every commit here).
    writtenAfterIngest: async (tableId, ids) => new Set(ids.filter((id) => rowsOf(tableId).includes(id))),
    async checkOut(keys) {
      for (const key of keys) claims.delete(key);
    },
    async markMaintenanceDue(dataSet, at) {
      due.push({ tableId: dataSet.data_set_id, at: at.toISOString() });
    },
    count(figure, labels, by) {
      const key = `${figure} ${JSON.stringify(labels)}`;
      figures.set(key, (figures.get(key) ?? 0) + by);
      if (labels.source_id) pending.set(key, (pending.get(key) ?? 0) + by);
    },
    async countOnce(key, counts) {
      if (countedOnce.has(key)) return false;
      countedOnce.add(key);
      for (const { metric, labels, by } of counts) {
        const series = `${metric} ${JSON.stringify(labels)}`;
        figures.set(series, (figures.get(series) ?? 0) + by);
        settled.set(series, (settled.get(series) ?? 0) + by);
      }
      return true;
    },
    async settleCounts() {
      for (const [key, by] of pending) settled.set(key, (settled.get(key) ?? 0) + by);
      pending.clear();
    },
    info: () => undefined,
    warn: (message, fields) => warnings.push({ message, fields }),
    mirrorLatest: icebergUntouched.mirrorLatest,
    recordIceberg: icebergUntouched.recordIceberg,
    markIcebergDue: icebergUntouched.markIcebergDue,
    failureCategory: icebergUntouched.failureCategory,
    async deadLetter(tableId, messages, error, attempts) {
      deadLettered.push({ tableId, ids: messages.map((m) => m.message_id), error: error.message, attempts });
    },
    failed: () => undefined,
    describe: (error) => `${error.name}: ${error.message}`,
    dependencyFailed: (error) => error.name === 'ProvisionedThroughputExceededException',
    now: () => clock.now,
    retryMs: 10 * minute,
    sizeTarget: 10_000,
    concurrency: 4,
    tableTimeMs: minute,
    recordMs: 10_000,
    parseEnvelope: (body) => envelopeMessage.parse(JSON.parse(body)),
    countReceipts: (messages) => raised.push(...messages.map((message) => message.message_id)),
    recordFailures: async () => undefined,
    backoffFirstSeconds: 30,
  };
  const rowsOf = (tableId: string) => {
    const table = tables.get(tableId);
    if (!table) return [];
    const live = new Map<string, string[]>();
    for (let version = 0; ; version++) {
      const commit = table.objects.get(`_delta_log/${String(version).padStart(20, '0')}.json`);
      if (!commit) break;
      for (const line of commit.bytes.toString().trim().split('\n')) {
        const action = JSON.parse(line);
        if (action.add) live.set(action.add.path, String(table.objects.get(action.add.path)?.bytes).split('\n'));
      }
    }
    return [...live.values()].flat().sort();
  };
  const commitsOf = (tableId: string) =>
    [...(tables.get(tableId)?.objects.keys() ?? [])].filter((key) => /^_delta_log\/\d{20}\.json$/.test(key)).length;
  const reads = new StagedReads(staging.objects, { wholeMaxBytes: 1024 * 1024, keptMaxBytes: 64 * 1024 * 1024 });
  const committerOptions = (over: { deadline?: number; holder?: string } = {}) => ({
    deadline: over.deadline ?? clock.now + 2 * minute,
    holder: over.holder ?? 'committer',
    read: (record: Parameters<StagedReads['read']>[0]) => reads.read(record),
    concurrency: 4,
  });
  const deliver: World['deliver'] = (over) => commitTriggered(deps, staging.arrived(), committerOptions(over));
  return {
    deps,
    staging,
    clock,
    tables,
    failing,
    holding,
    claims,
    deadLettered,
    raised,
    figures,
    settled,
    due,
    warnings,
    rowsOf,
    commitsOf,
    deliver,
    async deliverUntil(until) {
      const reports: CommitReport[] = [];
      for (;;) {
        const next = Math.min(...staging.queue.map((trigger) => trigger.at));
        if (!(next <= until)) break;
        clock.now = Math.max(clock.now, next);
        reports.push(await deliver());
      }
      clock.now = Math.max(clock.now, until);
      return reports;
    },
    sweep: (stopping = false) => checkOverdue(deps, { ...committerOptions(), stopping }),
  };
}

/** A committer's options in the world, as its deliveries use them. */
const optionsOf = (w: World) => ({
  deadline: w.clock.now + 2 * minute,
  holder: 'committer',
  read: (record: Parameters<StagedReads['read']>[0]) =>
    w.staging.objects.read(record.key, record.offset, record.length),
});

let recordNumber = 0;
function record(
  w: World,
  tableId: string,
  messageId: string,
  options: { dt?: string; bytes?: number; ingestedAt?: number; claimChecked?: boolean } = {},
): QueueRecord {
  const message: EnvelopeMessage = {
    v: 1,
    message_id: messageId,
    data_set_id: tableId,
    dt: options.dt ?? '2026-11-23',
    ingested_at_us: String(BigInt(options.ingestedAt ?? w.clock.now) * 1000n),
    source_id: `s-${tableId}`,
    tenant_id: TENANT,
    content_type: 'application/json',
    payload_size: options.bytes ?? 100,
    ...(options.claimChecked
      ? { payload_ref: { bucket: 'platform', key: `claims/${tableId}/${messageId}` } }
      : { payload: 'e30=' }),
  };
  return { recordId: `record-${recordNumber++}`, body: JSON.stringify(message), receiveCount: 1 };
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => uuid(from + i));

/** Rows of the table's records not yet done: what waits staged for it. */
const pendingRows = (w: World, tableId: string) => {
  const through = w.staging.heads.get(tableId)?.through ?? null;
  return [...(w.staging.staged.get(tableId)?.values() ?? [])]
    .filter((record) => through === null || record.id > through)
    .reduce((sum, record) => sum + record.rows, 0);
};

describe('staging a batch', () => {
  it("keeps a whole batch of many tables in one object and a small record of each table's slice, and commits none while fresh", async () => {
    const w = world();
    const batch = [
      ...ids(1, 3).map((id) => record(w, A, id)),
      ...ids(4, 2).map((id) => record(w, B, id)),
      record(w, C, uuid(6)),
    ];
    const outcome = await writeEnvelopeBatch(w.deps, batch);
    expect(outcome).toMatchObject({ failedRecordIds: [], staged: 6 });
    expect(w.staging.stored.size).toBe(1);
    expect(w.staging.requests).toMatchObject({ 'put object': 1, 'write records': 1, 'send triggers': 1 });
    expect([A, B, C].map((id) => pendingRows(w, id))).toEqual([3, 2, 1]);
    // One record per table: none holds another table's slice, and none grows with the batch.
    expect([A, B, C].map((id) => w.staging.staged.get(id)?.size)).toEqual([1, 1, 1]);
    // A trigger per table, due when its oldest row is 5 minutes old, and each listed as pending.
    expect(w.staging.queue.map((trigger) => [trigger.tableId, trigger.at - w.clock.now]).sort()).toEqual(
      [A, B, C].map((id) => [id, 5 * minute]).sort(),
    );
    expect([A, B, C].map((id) => w.staging.heads.get(id)?.dueAt)).toEqual(
      [1, 2, 3].map(() => w.clock.now + 5 * minute),
    );
    expect(await w.deliver()).toMatchObject({ committed: [] });
    expect([w.commitsOf(A), w.commitsOf(B), w.commitsOf(C)]).toEqual([0, 0, 0]);
  });

  it('writes no item that grows with tables or rows: a batch of 1,000 tables, and one of 1,000 rows of one table', async () => {
    const w = world();
    await writeEnvelopeBatch(
      w.deps,
      Array.from({ length: 1000 }, (_, i) =>
        record(w, `da7a5e71-0000-4000-8000-${String(i).padStart(12, '0')}`, uuid(i)),
      ),
    );
    await writeEnvelopeBatch(
      w.deps,
      ids(5000, 1000).map((id) => record(w, A, id, { bytes: 1 })),
    );
    expect(Math.max(...w.staging.written.map((item) => Buffer.byteLength(item)))).toBeLessThan(1024);
    expect(w.staging.written.length).toBe(1000 + 1000 + 2);
  });

  it("names each table's rows by source in its record, for the loss figure", async () => {
    const w = world();
    const other = { ...JSON.parse(record(w, A, uuid(4)).body), source_id: 'other-source' };
    await writeEnvelopeBatch(w.deps, [
      ...ids(1, 3).map((id) => record(w, A, id)),
      { recordId: 'other', body: JSON.stringify(other), receiveCount: 1 },
      record(w, B, uuid(5)),
    ]);
    const sourcesOf = (tableId: string) => [...(w.staging.staged.get(tableId)?.values() ?? [])].map((r) => r.sources);
    expect(sourcesOf(A)).toEqual([{ [`s-${A}`]: 3, 'other-source': 1 }]);
    expect(sourcesOf(B)).toEqual([{ [`s-${B}`]: 1 }]);
  });

  it("spreads a day's staged objects over 16 prefixes (S3's request rates are per prefix)", async () => {
    const w = world();
    for (let i = 0; i < 400; i++) await writeEnvelopeBatch(w.deps, [record(w, A, uuid(i))]);
    const day = new Date(w.clock.now).toISOString().slice(0, 10);
    const prefixes = new Set(
      [...w.staging.stored.keys()].map((key) => {
        const match = /^staging\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/[^/]+\.ndjson$/.exec(key);
        expect(match?.[1]).toBe(day);
        return match?.[2];
      }),
    );
    const sixteen = '00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15';
    expect([...prefixes].sort().join(' ')).toBe(sixteen);
  });

  it('commits a table when its trigger arrives, its oldest row at its freshness target, everything staged for it in one commit', async () => {
    const w = world();
    for (let i = 0; i < 4; i++) {
      await writeEnvelopeBatch(w.deps, [
        record(w, A, uuid(10 + i), { dt: i % 2 === 0 ? '2026-11-23' : '2026-11-22' }),
        record(w, B, uuid(20 + i)),
      ]);
      w.clock.now += minute;
    }
    // Two triggers per table for the four batches: the second and third batches' records are written
    // long before the first trigger arrives; the fourth is within a writer's lifetime of it.
    expect(w.staging.queue).toHaveLength(4);
    expect((await w.deliver()).committed).toEqual([]);
    w.clock.now += minute; // the first rows are now 5 minutes old
    const committed = await w.deliver();
    expect(committed.committed.sort()).toEqual([A, B]);
    expect([w.commitsOf(A), w.commitsOf(B)]).toEqual([1, 1]);
    expect(w.rowsOf(A)).toEqual(ids(10, 4));
    // One file per day partition, whichever batches the rows came from.
    const files = [...(w.tables.get(A)?.objects.keys() ?? [])].filter((key) => key.startsWith('dt='));
    expect(files.map((key) => key.slice(0, 14)).sort()).toEqual(['dt=2026-11-22/', 'dt=2026-11-23/']);
    expect([pendingRows(w, A), pendingRows(w, B)]).toEqual([0, 0]);
    // The later triggers arrive to nothing staged: no commit, and the tables are no longer listed.
    await w.deliverUntil(w.clock.now + 10 * minute);
    expect(w.staging.queue).toEqual([]);
    expect([w.commitsOf(A), w.commitsOf(B)]).toEqual([1, 1]);
    expect(w.staging.heads.get(A)).toMatchObject({ dueAt: null, triggerAt: null });
  });

  it('commits a table whose target is 2 s by its trigger, 2 s after its rows arrived', async () => {
    const w = world({ freshness: { [NOW]: 2000 } });
    await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1))]);
    expect(w.rowsOf(NOW)).toEqual([]);
    expect(w.staging.queue).toEqual([{ tableId: NOW, at: w.clock.now + 2000 }]);
    w.clock.now += 1999;
    expect((await w.deliver()).committed).toEqual([]);
    w.clock.now += 1;
    expect((await w.deliver()).committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(1)]);
    // Done, and newer than a writer's lifetime: deleted, not passed by the watermark.
    expect(w.staging.staged.get(NOW)?.size).toBe(0);
    expect(w.staging.heads.get(NOW)?.through).toBeNull();
  });

  it('commits at once, in the writer, a table whose target is 0 (no record of it), and leaves the others staged', async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    const outcome = await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1)), record(w, LATER, uuid(2))]);
    expect(outcome.committed?.committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(1)]);
    expect(w.rowsOf(LATER)).toEqual([]);
    expect(w.staging.staged.get(NOW)?.size ?? 0).toBe(0);
    expect(w.staging.queue.map((trigger) => trigger.tableId)).toEqual([LATER]);
    await w.deliverUntil(w.clock.now + 6 * minute);
    expect([w.commitsOf(NOW), w.commitsOf(LATER)]).toEqual([1, 1]);
    expect(pendingRows(w, LATER)).toBe(0);
  });

  it('commits a table at its size target before its freshness target, a size target per commit', async () => {
    const w = world();
    // The writer sends a trigger at once when it staged a sixteenth of the size target since its last.
    for (let i = 0; i < 5; i++)
      await writeEnvelopeBatch(w.deps, [
        record(w, BIG, uuid(100 + i), { bytes: 4000 }),
        record(w, SMALL, uuid(200 + i)),
      ]);
    const committed = await w.deliver();
    expect(committed.committed).toEqual([BIG]);
    // 20,000 bytes in three commits of at most 10,000 (two slices of 4,000 fit, a third does not).
    expect(w.commitsOf(BIG)).toBe(3);
    expect(w.rowsOf(BIG)).toEqual(ids(100, 5));
    expect(w.commitsOf(SMALL)).toBe(0);
    expect(pendingRows(w, SMALL)).toBe(5);
  });

  it('never writes a row twice: a batch staged twice (a redelivery), and a committer stopped after its commit', async () => {
    const w = world();
    const records = ids(1, 3).map((id) => record(w, A, id));
    await writeEnvelopeBatch(w.deps, records);
    await writeEnvelopeBatch(w.deps, [...records.slice(1), record(w, A, uuid(4))]);
    w.clock.now += 6 * minute;
    // The committer commits, then cannot record what it committed (as if it stopped there): its
    // trigger is sent again.
    const replaceHead = w.staging.records.replaceHead;
    w.staging.records.replaceHead = async () => {
      throw new Error('stopped');
    };
    const triggers = w.staging.arrived();
    expect(await commitTriggered(w.deps, triggers, { ...optionsOf(w), concurrency: 1 })).toMatchObject({
      retried: [A],
    });
    w.staging.records.replaceHead = replaceHead;
    expect(w.rowsOf(A)).toEqual(ids(1, 4));
    // Its staged objects (each of table A alone) stay while the commit is not recorded: the retry reads them.
    expect(w.staging.stored.size).toBe(2);
    // The queue delivers the trigger again (its message was never deleted).
    const again = await commitTriggered(w.deps, triggers, { ...optionsOf(w), concurrency: 1 });
    expect(again).toMatchObject({ written: 0, skipped: 6 });
    expect(w.rowsOf(A)).toEqual(ids(1, 4));
    expect(w.commitsOf(A)).toBe(1);
    expect(pendingRows(w, A)).toBe(0);
    expect(w.staging.stored.size).toBe(0);
  });

  it("never writes twice a deduplicated request, which carries the first request's id with a later ingest time", async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    const first = uuidv7({ msecs: w.clock.now });
    await writeEnvelopeBatch(w.deps, [record(w, NOW, first), record(w, NOW, uuidv7({ msecs: w.clock.now }))]);
    // Well past the clocks' margin, and past the first commit's ingest times.
    w.clock.now += 20 * minute;
    const repeated = record(w, NOW, first);
    expect(JSON.parse(repeated.body).ingested_at_us).toBe(String(BigInt(w.clock.now) * 1000n));
    const outcome = await writeEnvelopeBatch(w.deps, [repeated, record(w, NOW, uuidv7({ msecs: w.clock.now }))]);
    expect(outcome.committed).toMatchObject({ written: 1, skipped: 1 });
    expect(w.rowsOf(NOW).filter((id) => id === first)).toHaveLength(1);
    expect(w.rowsOf(NOW)).toHaveLength(3);
  });

  it('never writes twice a deduplicated request stamped before the first one claimed the key (it lost the race to claim)', async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    const claimedAt = w.clock.now;
    const first = uuidv7({ msecs: claimedAt });
    // The copy that lost: its ingest time taken 1 ms before the winner's, its claim answered with the winner's id.
    const lost = record(w, NOW, first, { ingestedAt: claimedAt - 1 });
    await writeEnvelopeBatch(w.deps, [record(w, NOW, first)]);
    // Committed on its own a moment later: its rows' ingest times are its own alone.
    w.clock.now += 5_000;
    const outcome = await writeEnvelopeBatch(w.deps, [lost]);
    expect(outcome.committed).toMatchObject({ written: 0, skipped: 1 });
    expect(w.rowsOf(NOW)).toEqual([first]);
  });

  it("holds back only a failing store's own table, tries it again later, and dead-letters it after the last attempt", async () => {
    const w = world();
    w.failing.add(BROKEN);
    await writeEnvelopeBatch(w.deps, [record(w, BROKEN, uuid(1)), record(w, FINE, uuid(2))]);
    w.clock.now += 5 * minute;
    const first = await w.deliver();
    expect(first).toMatchObject({ committed: [FINE], failed: [BROKEN] });
    expect(w.staging.heads.get(BROKEN)?.failure).toMatchObject({
      attempts: 1,
      lastError: 'ServiceUnavailable: Injected fault',
    });
    // Its trigger comes back after the retry delay, not before; the table stays listed due since its rows were.
    expect(w.staging.queue).toEqual([{ tableId: BROKEN, at: w.clock.now + 10 * minute }]);
    expect(w.staging.heads.get(BROKEN)?.dueAt).toBe(w.clock.now);
    for (let attempt = 2; attempt < maxCommitAttempts; attempt++) {
      const [report] = await w.deliverUntil(w.clock.now + 10 * minute);
      expect(report?.failed).toEqual([BROKEN]);
    }
    expect(w.deadLettered).toEqual([]);
    const [last] = await w.deliverUntil(w.clock.now + 10 * minute);
    expect(last?.deadLettered).toEqual([BROKEN]);
    expect(w.deadLettered).toEqual([{ tableId: BROKEN, ids: [uuid(1)], error: 'Injected fault', attempts: 5 }]);
    expect(w.staging.heads.get(BROKEN)).toMatchObject({ failure: null, dueAt: null });
    expect(pendingRows(w, BROKEN)).toBe(0);
    expect(w.staging.queue).toEqual([]);
    expect(w.rowsOf(FINE)).toEqual([uuid(2)]);
  });

  it('counts no attempt for the platform’s own table throttling: a slowdown longer than five retry delays dead-letters nothing', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    w.clock.now += 5 * minute;
    const getDataSet = w.deps.getDataSet;
    const throttled = Object.assign(new Error('Throughput exceeds the current capacity'), {
      name: 'ProvisionedThroughputExceededException',
    });
    w.deps.getDataSet = async () => {
      throw throttled;
    };
    const reports = [await w.deliver()];
    for (let i = 0; i < 2 * maxCommitAttempts; i++) reports.push(...(await w.deliverUntil(w.clock.now + 10 * minute)));
    expect(reports.map((report) => report.failed)).toEqual(Array(reports.length).fill([A]));
    expect(w.deadLettered).toEqual([]);
    expect(w.staging.heads.get(A)?.failure).toMatchObject({
      attempts: 0,
      lastError: 'ProvisionedThroughputExceededException: Throughput exceeds the current capacity',
    });

    w.deps.getDataSet = getDataSet;
    const [after] = await w.deliverUntil(w.clock.now + 10 * minute);
    expect(after).toMatchObject({ committed: [A], deadLettered: [] });
    expect(w.rowsOf(A)).toEqual([uuid(1)]);
  });

  it("goes on with a batch's other tables when one table's staging fails, and sends that one's trigger again for the retry delay", async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, B, uuid(2))]);
    w.clock.now += 5 * minute;
    // The staging table answers an error for A's head, once (a throttle past the SDK's retries).
    const head = w.staging.records.head.bind(w.staging.records);
    let faults = 1;
    w.staging.records.head = async (tableId) => {
      if (tableId === A && faults-- > 0) throw new Error('ProvisionedThroughputExceededException');
      return head(tableId);
    };
    const report = await w.deliver();
    expect(report).toMatchObject({ committed: [B], failed: [], retried: [A] });
    expect(w.rowsOf(B)).toEqual([uuid(2)]);
    expect(w.rowsOf(A)).toEqual([]);
    // A's rows stay staged, its trigger back for 10 minutes on (the world's retry delay); then it commits.
    expect(w.staging.queue).toEqual([{ tableId: A, at: w.clock.now + 10 * minute }]);
    expect(pendingRows(w, A)).toBe(1);
    const [again] = await w.deliverUntil(w.clock.now + 10 * minute);
    expect(again).toMatchObject({ committed: [A], retried: [] });
    expect(w.rowsOf(A)).toEqual([uuid(1)]);
  });

  it('defers a batch it could not stage, each record by a wait that grows with its receives, and stages it when it comes back', async () => {
    const w = world();
    const write = w.staging.records.write.bind(w.staging.records);
    w.staging.records.write = async () => {
      throw new Error('ProvisionedThroughputExceededException: Throughput exceeds the current capacity');
    };
    const batch = [1, 2, 3, 4, 5, 6].map((receives, i) => ({ ...record(w, A, uuid(i)), receiveCount: receives }));
    const unreadable = { recordId: 'not-an-envelope', body: '{"v":1}', receiveCount: 1 };
    const outcome = await writeEnvelopeBatch(w.deps, [...batch, unreadable]);
    expect(outcome.failedRecordIds.sort()).toEqual([...batch.map((r) => r.recordId), 'not-an-envelope'].sort());
    // 30 s after the first receive, doubling to at most 240 s: the fifth receive comes 450 s after the first.
    expect(outcome.deferred).toEqual(
      batch.map((r, i) => ({ recordId: r.recordId, seconds: [30, 60, 120, 240, 240, 240][i] })),
    );
    expect(outcome.staged).toBe(0);
    expect(w.warnings.map((warning) => warning.message)).toContain(
      'The batch could not be staged; its records come back after a wait that grows with their receives',
    );

    w.staging.records.write = write;
    const again = await writeEnvelopeBatch(w.deps, batch);
    expect(again).toMatchObject({ failedRecordIds: [], deferred: [], staged: 6 });
    expect(pendingRows(w, A)).toBe(6);
  });

  it('dead-letters at once the envelopes of a data set that no longer exists', async () => {
    const w = world({ gone: [GONE] });
    await writeEnvelopeBatch(w.deps, [record(w, GONE, uuid(1))]);
    w.clock.now += 6 * minute;
    expect((await w.deliver()).deadLettered).toEqual([GONE]);
    expect(w.deadLettered).toMatchObject([{ tableId: GONE, ids: [uuid(1)], attempts: 1 }]);
  });

  it('dead-letters on their own the envelopes whose claim-checked body is gone, and removes the claim checks of those written', async () => {
    const w = world();
    w.claims.add(`claims/${A}/${uuid(2)}`);
    await writeEnvelopeBatch(w.deps, [
      record(w, A, uuid(1)),
      record(w, A, uuid(2), { claimChecked: true }),
      record(w, A, uuid(3), { claimChecked: true }),
    ]);
    w.clock.now += 6 * minute;
    const committed = await w.deliver();
    expect(committed).toMatchObject({ committed: [A], failed: [], deadLettered: [], written: 2 });
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2)]);
    expect(w.deadLettered).toEqual([
      { tableId: A, ids: [uuid(3)], error: 'The claim-checked payload no longer exists', attempts: 1 },
    ]);
    expect(w.claims.size).toBe(0);
    expect(pendingRows(w, A)).toBe(0);
  });

  it('skips, and does not dead-letter, a claim-checked envelope another committer wrote (and checked out) while this one read it', async () => {
    const w = world();
    w.claims.add(`claims/${A}/${uuid(4)}`);
    // One object for two tables: it stays after A's commit, and the late committer reads A's slice from it.
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(4), { claimChecked: true }), record(w, B, uuid(5))]);
    w.clock.now += 6 * minute;
    const triggers = w.staging.arrived().filter((trigger) => trigger.tableId === A);
    const late = await committerReading(w, triggers);
    expect(await commitTriggered(w.deps, triggers, { ...optionsOf(w), holder: 'first', concurrency: 1 })).toMatchObject(
      { committed: [A], written: 1 },
    );
    expect(w.claims.size).toBe(0);
    expect(await late.finish()).toMatchObject({ deadLettered: [], failed: [], written: 0, skipped: 1 });
    expect(w.deadLettered).toEqual([]);
    expect(w.rowsOf(A)).toEqual([uuid(4)]);
  });

  it('leaves out the envelopes of days the data retention no longer keeps, and counts what it writes and leaves out per source', async () => {
    const w = world({ retentionMs: 7 * day });
    await writeEnvelopeBatch(w.deps, [
      // A week ago and more: before 2026-11-16, the first day a 7-day retention keeps on 2026-11-23.
      record(w, A, uuid(1), { dt: '2026-11-15' }),
      record(w, A, uuid(2), { dt: '2026-11-16' }),
      record(w, A, uuid(3)),
      record(w, B, uuid(4), { dt: '2026-11-01' }),
    ]);
    w.clock.now += 6 * minute;
    const committed = await w.deliver();
    expect(committed).toMatchObject({ written: 2, expired: 2, skipped: 0 });
    expect(committed.committed.sort()).toEqual([A, B]);
    expect([w.rowsOf(A), w.rowsOf(B)]).toEqual([[uuid(2), uuid(3)], []]);
    expect(Object.fromEntries(w.figures)).toEqual({
      [`envelopesWritten {"source_id":"s-${A}"}`]: 2,
      'batchesCommitted {}': 1,
      [`envelopesExpired {"source_id":"s-${A}"}`]: 1,
      [`envelopesExpired {"source_id":"s-${B}"}`]: 1,
    });
    // Nothing was committed for B: its envelopes are answered all the same.
    expect(pendingRows(w, B)).toBe(0);
  });

  it('asks for a maintenance run at a checkpoint version, for when its oldest day outlives the retention', async () => {
    const w = world({ freshness: { [NOW]: 0 }, retentionMs: 7 * day });
    // Versions 0 to 9 ask nothing; version 10 is the table's first checkpoint (every 10 versions).
    for (let i = 0; i < 10; i++) await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(i), { dt: '2026-11-20' })]);
    expect(w.due).toEqual([]);
    await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(10))]);
    expect(w.commitsOf(NOW)).toBe(11);
    // 2026-11-20 ends on the 21st; its rows outlive 7 days on the 28th.
    expect(w.due).toEqual([{ tableId: NOW, at: '2026-11-28T00:00:00.000Z' }]);
  });

  it('stages, with a trigger due at once, a table its writer has no time left to commit, and answers its batch', async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    // A minute for the commit and 10 s to record it are a millisecond more than the writer has left.
    const short = await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1))], w.clock.now + minute + 11_000 - 1);
    expect(short).toMatchObject({ failedRecordIds: [], staged: 1, committed: { committed: [] } });
    expect(w.rowsOf(NOW)).toEqual([]);
    expect(pendingRows(w, NOW)).toBe(1);
    expect(w.staging.queue).toEqual([{ tableId: NOW, at: w.clock.now }]);
    const enough = await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(2))], w.clock.now + minute + 11_000);
    expect(enough.committed?.committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(2)]);
    // The first batch's envelope is committed by its trigger.
    expect((await w.deliver()).committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(1), uuid(2)]);
  });

  it('leaves what a committer has no time left for to its trigger, sent again at once, neither failed nor half-recorded', async () => {
    const w = world({ commitTakesMs: 40_000, freshness: { [A]: minute } });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1), { bytes: 6000 })]);
    w.clock.now += 1000;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(2), { bytes: 6000 })]);
    w.clock.now += minute;
    // Two commits of 6,000 bytes (the size target is 10,000); 100 s left: the first starts at once and
    // takes 40 s, after which a minute for the second and 10 s to record it no longer fit.
    const report = await w.deliver({ deadline: w.clock.now + 100_000 });
    expect(report).toMatchObject({ committed: [A], failed: [], deadLettered: [] });
    expect(w.rowsOf(A)).toEqual([uuid(1)]);
    expect(w.staging.heads.get(A)).toMatchObject({ failure: null, triggerAt: w.clock.now });
    expect(await w.deliver()).toMatchObject({ committed: [A] });
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2)]);
  });

  it('gives up a commit its committer stopped waiting for before it writes a version, even if its store answers later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const w = world();
      let answer: (() => void) | undefined;
      w.holding.set(A, new Promise<void>((resolve) => (answer = resolve)));
      await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
      w.clock.now += 6 * minute;
      const delivered = w.deliver();
      await vi.advanceTimersByTimeAsync(minute);
      expect(await delivered).toMatchObject({ committed: [], failed: [A] });
      expect(w.staging.heads.get(A)?.failure).toMatchObject({
        attempts: 1,
        lastError: expect.stringMatching(/^CommitTimedOut/),
      });
      // The store answers at last (a frozen function thawed): the abandoned commit goes no further.
      answer?.();
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(w.commitsOf(A)).toBe(0);
      expect([...(w.tables.get(A)?.objects.keys() ?? [])].filter((key) => key.startsWith('dt='))).toEqual([]);
      // The next attempt commits the envelope, once.
      w.holding.delete(A);
      await w.deliverUntil(w.clock.now + 10 * minute);
      expect(w.rowsOf(A)).toEqual([uuid(1)]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the memory of a commit its committer stopped waiting for until that commit ends: the next waits for it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const w = world();
      let answer: (() => void) | undefined;
      w.holding.set(A, new Promise<void>((resolve) => (answer = resolve)));
      await writeEnvelopeBatch(w.deps, [
        record(w, A, uuid(1), { bytes: 1_000 }),
        record(w, B, uuid(2), { bytes: 1_000 }),
      ]);
      w.clock.now += 6 * minute;
      const reads: string[] = [];
      const options = {
        ...optionsOf(w),
        // Room for one table's commit at a time.
        memory: new ByteBudget(1_000),
        concurrency: 2,
        read: async (record: Parameters<StagedReads['read']>[0]) => {
          reads.push(record.key);
          return w.staging.objects.read(record.key, record.offset, record.length);
        },
      };
      const delivered = commitTriggered(w.deps, w.staging.arrived(), options);
      // A's store hangs; its committer stops waiting after a minute, its commit still holding its rows.
      await vi.advanceTimersByTimeAsync(minute + 1_000);
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(reads).toHaveLength(1);
      // A's store answers: its commit sees the abort and ends, and B's commit gets the memory.
      answer?.();
      expect(await delivered).toMatchObject({ committed: [B], failed: [A] });
      expect(reads).toHaveLength(2);
      expect(w.rowsOf(B)).toEqual([uuid(2)]);
      expect(w.commitsOf(A)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("raises the door's receipts as envelopes leave staging, and at staging for a target longer than half an hour", async () => {
    const w = world({ freshness: { [NOW]: 0, [LATER]: 31 * minute, [BROKEN]: 30 * minute } });
    w.failing.add(BROKEN);
    await writeEnvelopeBatch(w.deps, [
      record(w, A, uuid(1)),
      record(w, NOW, uuid(2)),
      record(w, LATER, uuid(3)),
      record(w, BROKEN, uuid(4)),
    ]);
    // Staged: only the table that may hold its envelopes past 30 minutes is raised now; the table
    // with a target of 0 was committed by the writer at once.
    expect(w.raised.sort()).toEqual([uuid(2), uuid(3)]);
    w.raised.length = 0;
    await w.deliverUntil(w.clock.now + 5 * minute);
    expect(w.raised).toEqual([uuid(1)]);
    // The failing table is raised when its envelopes are dead-lettered after the last attempt.
    await w.deliverUntil(w.clock.now + 3 * 60 * minute);
    expect(w.deadLettered.map((entry) => entry.ids)).toEqual([[uuid(4)]]);
    expect(w.raised.sort()).toEqual([uuid(1), uuid(3), uuid(4)]);
  });

  it("writes a table's counts once it is committed, so that an invocation ended during a later table's commit loses none", async () => {
    const w = world();
    const written = (tableId: string) => w.settled.get(`envelopesWritten {"source_id":"s-${tableId}"}`);
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, A, uuid(2)), record(w, B, uuid(3))]);
    w.clock.now += 6 * minute;
    let answer: (() => void) | undefined;
    w.holding.set(B, new Promise<void>((resolve) => (answer = resolve)));
    const delivered = w.deliver();
    // A is committed while B's store holds its write: the invocation could end here (its memory, a crash),
    // and a retry would find A's rows in the table and skip them, uncounted.
    await vi.waitFor(() => expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2)]));
    await vi.waitFor(() => expect(written(A)).toBe(2));
    expect(written(B)).toBeUndefined();
    answer?.();
    expect(await delivered).toMatchObject({ committed: [A, B] });
    expect(written(B)).toBe(1);
  });

  it("writes a table's counts once the writer has committed it at once, before it commits the next", async () => {
    const w = world({ freshness: { [NOW]: 0, [SMALL]: 0 } });
    const written = (tableId: string) => w.settled.get(`envelopesWritten {"source_id":"s-${tableId}"}`);
    let answer: (() => void) | undefined;
    w.holding.set(SMALL, new Promise<void>((resolve) => (answer = resolve)));
    const writing = writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1)), record(w, SMALL, uuid(2))]);
    await vi.waitFor(() => expect(written(NOW)).toBe(1));
    expect(written(SMALL)).toBeUndefined();
    answer?.();
    await writing;
    expect(written(SMALL)).toBe(1);
    expect([w.rowsOf(NOW), w.rowsOf(SMALL)]).toEqual([[uuid(1)], [uuid(2)]]);
  });

  it('reads a small staged object once for all the tables a warm committer commits from it', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, B, uuid(2)), record(w, C, uuid(3))]);
    w.clock.now += minute;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(4)), record(w, B, uuid(5))]);
    const before = w.staging.requests['read object'] ?? 0;
    // Each table's trigger arrives on its own (C's first), to the same warm committer.
    await w.deliverUntil(w.clock.now + 5 * minute);
    expect([w.rowsOf(A), w.rowsOf(B), w.rowsOf(C)]).toEqual([[uuid(1), uuid(4)], [uuid(2), uuid(5)], [uuid(3)]]);
    // Two objects, five slices: two reads.
    expect((w.staging.requests['read object'] ?? 0) - before).toBe(2);
  });

  it("holds at most the invocation's memory budget in commits at once: a table's commit waits for its share", async () => {
    const overlapping = async (memory?: ByteBudget) => {
      const w = world();
      // Three tables of 4,000 payload bytes each, due together.
      await writeEnvelopeBatch(
        w.deps,
        [A, B, C].flatMap((tableId, t) => ids(10 * t, 4).map((id) => record(w, tableId, id, { bytes: 1_000 }))),
      );
      w.clock.now += 6 * minute;
      let reading = 0;
      let most = 0;
      const options = {
        ...optionsOf(w),
        concurrency: 3,
        ...(memory ? { memory } : {}),
        read: async (record: Parameters<StagedReads['read']>[0]) => {
          reading++;
          most = Math.max(most, reading);
          await new Promise((resolve) => setTimeout(resolve, 5));
          reading--;
          return w.staging.objects.read(record.key, record.offset, record.length);
        },
      };
      const report = await commitTriggered(w.deps, w.staging.arrived(), options);
      expect(report.committed.sort()).toEqual([A, C, B].sort());
      expect([w.rowsOf(A), w.rowsOf(B), w.rowsOf(C)]).toEqual([ids(0, 4), ids(10, 4), ids(20, 4)]);
      return most;
    };
    // Room for two tables' 4,000 bytes, not three; none: all three read side by side.
    expect(await overlapping(new ByteBudget(8_000))).toBe(2);
    expect(await overlapping(new ByteBudget(5_000))).toBe(1);
    expect(await overlapping()).toBe(3);
  });

  it('fails only the records that are not envelopes, and stages the rest', async () => {
    const w = world();
    const good = record(w, A, uuid(1));
    const bad = { recordId: 'bad', body: '{"message_id":"x","data_set_id":"ds-a","v":2}', receiveCount: 3 };
    const outcome = await writeEnvelopeBatch(w.deps, [
      good,
      bad,
      { recordId: 'junk', body: 'not json', receiveCount: 1 },
    ]);
    expect(outcome).toMatchObject({ failedRecordIds: ['bad', 'junk'], staged: 1 });
  });
});

/**
 * A committer handling these triggers that has read its tables' records, its read of a slice held
 * until `finish`, which lets it go on and answers its report.
 */
async function committerReading(w: World, triggers: CommitTrigger[]) {
  let reading: (() => void) | undefined;
  const gate = new Promise<void>((resolve) => (reading = resolve));
  let asked = false;
  const report = commitTriggered(w.deps, triggers, {
    ...optionsOf(w),
    holder: 'late',
    concurrency: 1,
    read: async (slice) => {
      asked = true;
      await gate;
      return w.staging.objects.read(slice.key, slice.offset, slice.length);
    },
  });
  await vi.waitFor(() => expect(asked).toBe(true));
  return {
    finish() {
      reading?.();
      return report;
    },
  };
}

/** The writer stages an envelope of the table right after the next commit's rows are written. */
function stageDuringCommit(w: World, tableId: string, messageId: string): void {
  const append = w.deps.appendEnvelopes;
  w.deps.appendEnvelopes = async (...args) => {
    w.deps.appendEnvelopes = append;
    const result = await append(...args);
    await writeEnvelopeBatch(w.deps, [record(w, tableId, messageId)]);
    return result;
  };
}

describe('staged objects', () => {
  const objectsOf = (w: World) => [...w.staging.stored.keys()];

  it("are removed once the records of the one table they held are committed; one holding several tables' slices stays", async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, A, uuid(2))]);
    const [alone] = objectsOf(w);
    await writeEnvelopeBatch(w.deps, [record(w, B, uuid(3)), record(w, C, uuid(4))]);
    const shared = objectsOf(w).find((key) => key !== alone);
    expect(objectsOf(w)).toHaveLength(2);
    await w.deliverUntil(w.clock.now + 6 * minute);
    expect([w.rowsOf(A), w.rowsOf(B), w.rowsOf(C)]).toEqual([[uuid(1), uuid(2)], [uuid(3)], [uuid(4)]]);
    // Both tables of the shared object are committed: it stays for the bucket's lifecycle rule all the same.
    expect(objectsOf(w)).toEqual([shared]);
  });

  it('removed by one committer while another was about to read them count as committed by the first, not as a failure', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    w.clock.now += 6 * minute;
    const triggers = w.staging.arrived();
    const late = await committerReading(w, triggers);
    expect(await commitTriggered(w.deps, triggers, { ...optionsOf(w), holder: 'first', concurrency: 1 })).toMatchObject(
      {
        committed: [A],
      },
    );
    expect(objectsOf(w)).toEqual([]);
    expect(await late.finish()).toMatchObject({ failed: [], written: 0 });
    expect(w.staging.heads.get(A)?.failure).toBeNull();
    expect(w.rowsOf(A)).toEqual([uuid(1)]);
    expect(w.commitsOf(A)).toBe(1);
  });

  it('gone while their records wait (the lifecycle rule) fail the attempt, as any unreadable slice does', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    w.staging.stored.clear();
    w.clock.now += 6 * minute;
    expect(await w.deliver()).toMatchObject({ failed: [A], committed: [] });
    expect(w.staging.heads.get(A)?.failure).toMatchObject({
      attempts: 1,
      lastError: expect.stringMatching(/^StagedObjectGone/),
    });
  });

  it('gone while their records wait are set aside at the last attempt, loudly, and the rest of the table goes on', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, A, uuid(2))]);
    const [lostKey] = objectsOf(w);
    w.staging.stored.clear();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(3))]);
    w.clock.now += 6 * minute;
    const attempts: string[][] = [];
    for (let attempt = 1; attempt <= maxCommitAttempts; attempt++) {
      const report = await w.deliver();
      attempts.push([...report.failed, ...report.committed.map((id) => `${id} committed`)]);
      w.clock.now += 10 * minute;
    }
    // Four attempts fail, and hold back the object that is still there; the fifth sets the lost one aside.
    expect(attempts).toEqual([[A], [A], [A], [A], [`${A} committed`]]);
    expect(w.rowsOf(A)).toEqual([uuid(3)]);
    expect(w.deadLettered).toEqual([]);
    expect(w.warnings.filter((warning) => warning.message.startsWith('Staged envelopes lost'))).toEqual([
      {
        message: 'Staged envelopes lost: their object is gone; set aside so that the table goes on',
        fields: { data_set_id: A, key: lostKey, envelopes: 2, attempts: maxCommitAttempts },
      },
    ]);
    expect(pendingRows(w, A)).toBe(0);
    expect(w.staging.heads.get(A)?.failure).toBeNull();
    // Counted as lost, by source, once, and written before the committer answers.
    expect(w.figures.get(`envelopesLost {"source_id":"s-${A}"}`)).toBe(2);
    expect(w.settled.get(`envelopesLost {"source_id":"s-${A}"}`)).toBe(2);
    w.clock.now += 10 * minute;
    await w.deliverUntil(w.clock.now + 30 * minute);
    expect(w.figures.get(`envelopesLost {"source_id":"s-${A}"}`)).toBe(2);
  });

  it('that cannot be read fail four attempts and are set aside as lost at the last, counted, the rest written', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, A, uuid(2))]);
    const [brokenKey] = objectsOf(w);
    // The object is there, at its size, but what it holds is no envelope.
    const stored = w.staging.stored.get(brokenKey as string) as Buffer;
    w.staging.stored.set(brokenKey as string, Buffer.alloc(stored.length, 'x'));
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(3))]);
    w.clock.now += 6 * minute;
    const attempts: string[][] = [];
    for (let attempt = 1; attempt <= maxCommitAttempts; attempt++) {
      const report = await w.deliver();
      attempts.push([...report.failed, ...report.committed.map((id) => `${id} committed`)]);
      w.clock.now += 10 * minute;
    }
    expect(attempts).toEqual([[A], [A], [A], [A], [`${A} committed`]]);
    expect({
      rows: w.rowsOf(A),
      pending: pendingRows(w, A),
      lost: w.figures.get(`envelopesLost {"source_id":"s-${A}"}`),
      deadLettered: w.deadLettered,
    }).toEqual({ rows: [uuid(3)], pending: 0, lost: 2, deadLettered: [] });
    expect(w.warnings.filter((warning) => warning.message.startsWith('Staged envelopes lost'))).toEqual([
      {
        message: 'Staged envelopes lost: their slice cannot be read; set aside so that the table goes on',
        fields: { data_set_id: A, key: brokenKey, envelopes: 2, attempts: maxCommitAttempts },
      },
    ]);
  });

  it.each([
    ['its count', 'countOnce'],
    ["its head's write", 'replaceHead'],
  ] as const)(
    'gone and set aside count once when the committer ends at %s and a retry finds them again',
    async (_, step) => {
      const w = world();
      await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, A, uuid(2))]);
      w.staging.stored.clear();
      await writeEnvelopeBatch(w.deps, [record(w, A, uuid(3))]);
      w.clock.now += 6 * minute;
      for (let attempt = 1; attempt < maxCommitAttempts; attempt++) {
        await w.deliver();
        w.clock.now += 10 * minute;
      }
      // The last attempt sets the lost record aside; the port of `step` fails once on the way (the
      // invocation ends there), and the table's trigger comes again.
      let crashes = 1;
      const crash = () => {
        if (crashes-- > 0) throw new Error(`The invocation ended at ${step}`);
      };
      if (step === 'countOnce') {
        const countOnce = w.deps.countOnce.bind(w.deps);
        w.deps.countOnce = async (key, counts) => {
          crash();
          return countOnce(key, counts);
        };
      } else {
        const replaceHead = w.staging.records.replaceHead.bind(w.staging.records);
        w.staging.records.replaceHead = async (tableId, expected, head) => {
          crash();
          return replaceHead(tableId, expected, head);
        };
      }
      await w.deliver();
      await w.deliverUntil(w.clock.now + 60 * minute);

      const lost = w.figures.get(`envelopesLost {"source_id":"s-${A}"}`);
      const missing = (accepted: number) =>
        accepted - w.rowsOf(A).length - (lost ?? 0) - pendingRows(w, A) - w.deadLettered.length;
      expect({ crashed: crashes < 0, lost, rows: w.rowsOf(A), missing: missing(3) }).toEqual({
        crashed: true,
        lost: 2,
        rows: [uuid(3)],
        missing: 0,
      });

      // A loss nobody counted (a staged record gone with its object, its row never committed) shows.
      await writeEnvelopeBatch(w.deps, [record(w, A, uuid(4))]);
      for (const id of w.staging.staged.get(A)?.keys() ?? []) w.staging.staged.get(A)?.delete(id);
      await w.deliverUntil(w.clock.now + 60 * minute);
      expect(missing(4)).toBe(1);
    },
  );

  it("gone and set aside count as lost by the sources their record names, or as their table's source when it names none", async () => {
    const w = world();
    const other = { ...JSON.parse(record(w, A, uuid(3)).body), source_id: 'other-source' };
    await writeEnvelopeBatch(w.deps, [
      record(w, A, uuid(1)),
      record(w, A, uuid(2)),
      { recordId: 'other', body: JSON.stringify(other), receiveCount: 1 },
    ]);
    await writeEnvelopeBatch(
      w.deps,
      ids(4, 4).map((id) => record(w, A, id)),
    );
    // The second record was staged before records named their sources.
    const [, old] = [...(w.staging.staged.get(A)?.values() ?? [])];
    delete old?.sources;
    w.staging.stored.clear();
    w.clock.now += 6 * minute;
    for (let attempt = 1; attempt <= maxCommitAttempts; attempt++) {
      await w.deliver();
      w.clock.now += 10 * minute;
    }
    const lost = [...w.figures].filter(([key]) => key.startsWith('envelopesLost'));
    expect(lost.sort()).toEqual([
      ['envelopesLost {"source_id":"other-source"}', 1],
      [`envelopesLost {"source_id":"s-${A}"}`, 6],
    ]);
    expect(pendingRows(w, A)).toBe(0);
  });

  it('are removed by the writer when every table of its batch was committed at once, and kept when one was staged', async () => {
    const w = world({ freshness: { [NOW]: 0, [SMALL]: 0 } });
    await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1)), record(w, SMALL, uuid(2))]);
    expect(objectsOf(w)).toEqual([]);
    await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(3)), record(w, A, uuid(4))]);
    expect(objectsOf(w)).toHaveLength(1);
    expect([w.rowsOf(NOW), w.rowsOf(SMALL)]).toEqual([[uuid(1), uuid(3)], [uuid(2)]]);
  });
});

describe('commit triggers', () => {
  it('are sent once per table by a writer instance while one of its own arrives in time, and again when it would not', async () => {
    const w = world({ freshness: { [A]: 10 * minute } });
    for (let i = 0; i < 8; i++) {
      await writeEnvelopeBatch(w.deps, [record(w, A, uuid(i), { bytes: 1 })]);
      w.clock.now += minute;
    }
    // The first trigger arrives at 10 minutes: batches up to 8 minutes in are written long before it
    // arrives; the batch at 8 minutes is within a writer's lifetime of it and sends its own.
    expect(8 * minute).toBeGreaterThan(10 * minute - writerLifetimeMs - minute);
    expect(w.staging.queue.length).toBe(1);
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(8), { bytes: 1 })]);
    expect(w.staging.queue.length).toBe(2);
    // Another writer instance knows nothing of the first's trigger, and sends its own.
    await writeEnvelopeBatch({ ...w.deps, sent: new SentTriggers() }, [record(w, A, uuid(9), { bytes: 1 })]);
    expect(w.staging.queue.length).toBe(3);
    // All of them commit the table once it is due; those arriving later find it not due and drop.
    await w.deliverUntil(w.clock.now + 60 * minute);
    expect(w.rowsOf(A)).toEqual(ids(0, 10));
    expect(w.staging.queue).toEqual([]);
  });

  it('that arrive early send themselves again for when the table is due, or drop when one is on its way', async () => {
    const w = world({ freshness: { [A]: 40 * minute } });
    const start = w.clock.now;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    // The queue delays a trigger 15 minutes at most.
    expect(w.staging.queue).toEqual([{ tableId: A, at: start + 15 * minute }]);
    const reports = await w.deliverUntil(start + 39 * minute);
    expect(reports.map((report) => report.waiting)).toEqual([1, 1]);
    expect(w.staging.queue).toEqual([{ tableId: A, at: start + 40 * minute }]);
    expect(w.rowsOf(A)).toEqual([]);
    // A duplicate arriving early is dropped: the table's head names the trigger that comes in time.
    w.staging.queue.push({ tableId: A, at: w.clock.now });
    expect(await w.deliver()).toMatchObject({ waiting: 1 });
    expect(w.staging.queue).toEqual([{ tableId: A, at: start + 40 * minute }]);
    await w.deliverUntil(start + 40 * minute);
    expect(w.rowsOf(A)).toEqual([uuid(1)]);
  });

  it("may arrive as early as their queue's precision, and commit a table due within it", async () => {
    const w = world({ freshness: { [A]: 10_000 } });
    // A queue that delays by whole seconds, rounded down: a trigger arrives up to a second early.
    w.staging.triggers.earlyMs = 1000;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    const [trigger] = w.staging.queue;
    w.staging.queue.length = 0;
    w.clock.now += 8_999;
    expect(
      await commitTriggered(w.deps, [trigger as CommitTrigger], { ...optionsOf(w), concurrency: 1 }),
    ).toMatchObject({
      committed: [],
      waiting: 1,
    });
    w.clock.now += 1;
    expect(
      await commitTriggered(w.deps, [trigger as CommitTrigger], { ...optionsOf(w), concurrency: 1 }),
    ).toMatchObject({
      committed: [A],
    });
    // The writer commits at once a table due within that second, rather than send it a trigger.
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(2), { ingestedAt: w.clock.now - 9_000 })]);
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2)]);
  });

  it('try a table two committers failed at once again within the retry delay, though every trigger arrives early', async () => {
    const w = world({ freshness: { [SMALL]: 2000 } });
    w.deps.retryMs = 5000;
    w.staging.triggers.earlyMs = 1000;
    const start = w.clock.now;
    // The commits queue delays by whole seconds, rounded down, from when the send reaches it (5 ms on).
    const arrivals: { trigger: CommitTrigger; arrives: number }[] = [];
    w.staging.triggers.send = async (sent) => {
      w.clock.now += 5;
      for (const trigger of sent)
        arrivals.push({ trigger, arrives: w.clock.now + Math.floor((trigger.at - w.clock.now) / 1000) * 1000 });
    };
    const attempts: string[] = [];
    const append = w.deps.appendEnvelopes;
    const logged: typeof append = (dataSet, rows, request) => {
      attempts.push(`attempt ${request.attempt} at ${w.clock.now - start}`);
      return append(dataSet, rows, request);
    };
    w.deps.appendEnvelopes = logged;
    const held = gated(w);
    const handle = (trigger: CommitTrigger, holder: string) =>
      commitTriggered(w.deps, [trigger], { ...optionsOf(w), holder, concurrency: 1 });
    // Two writer instances stage a row each, ingested 300 ms before: both triggers (due at 1,700 ms) arrive at 1,005 ms.
    await writeEnvelopeBatch(w.deps, [record(w, SMALL, uuid(1), { ingestedAt: start - 300 })]);
    await writeEnvelopeBatch({ ...w.deps, sent: new SentTriggers() }, [
      record(w, SMALL, uuid(2), { ingestedAt: start - 300 }),
    ]);
    expect(arrivals.map(({ arrives }) => arrives - start)).toEqual([1005, 1010]);
    // Both arrive together in two invocations; the store is down; their commits fail 38 ms apart.
    w.failing.add(SMALL);
    w.clock.now = start + 1010;
    const [first, second] = arrivals.splice(0).map(({ trigger }, i) => handle(trigger, `c${i}`));
    await quiet();
    expect(held.length).toBe(2);
    w.clock.now = start + 1100;
    held[0]?.go();
    expect(await first).toMatchObject({ failed: [SMALL] });
    w.clock.now = start + 1138;
    held[1]?.go();
    expect(await second).toMatchObject({ failed: [SMALL] });
    // The head names the earlier retry, and waits for the later failure's.
    expect(w.staging.heads.get(SMALL)).toMatchObject({
      triggerAt: start + 6100,
      failure: { attempts: 1, nextAttemptAt: start + 6138 },
    });
    // The store is back. Each trigger is handled as it arrives: the earlier retry, 33 ms short of
    // the later failure's wait, is sent again; the later one commits, within the retry delay.
    w.failing.delete(SMALL);
    w.deps.appendEnvelopes = logged;
    const handled: string[] = [];
    while (arrivals.length > 0 && handled.length < 10) {
      arrivals.sort((a, b) => a.arrives - b.arrives);
      const { trigger, arrives } = arrivals.shift() as (typeof arrivals)[number];
      w.clock.now = Math.max(w.clock.now, arrives);
      const report = await handle(trigger, `c${handled.length + 2}`);
      handled.push(
        `${trigger.at - start} at ${arrives - start}: ${report.committed.length > 0 ? 'committed' : report.waiting > 0 ? 'waiting' : 'idle'}`,
      );
    }
    expect(attempts).toEqual(['attempt 1 at 1100', 'attempt 1 at 1138', 'attempt 2 at 5143']);
    expect(handled).toEqual(['6100 at 5105: waiting', '6138 at 5143: committed', '6138 at 6110: idle']);
    expect(w.rowsOf(SMALL)).toEqual([uuid(1), uuid(2)]);
  });
});

/** Holds every commit until the test lets it go: the message ids each commit holds, as it starts. */
function gated(w: World) {
  const held: { ids: string[]; go: () => void }[] = [];
  const append = w.deps.appendEnvelopes;
  w.deps.appendEnvelopes = async (dataSet, rows, request) => {
    await new Promise<void>((go) => held.push({ ids: rows.map((row) => row.message.message_id), go }));
    return append(dataSet, rows, request);
  };
  return held;
}

/** Lets every committer go as far as it can without the test. */
const quiet = async () => {
  for (let i = 0; i < 100; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The staged records of a table the watermark has not passed (done ones are deleted). */
const recordsLeft = (w: World, tableId: string) => {
  const through = w.staging.heads.get(tableId)?.through ?? null;
  return [...(w.staging.staged.get(tableId)?.keys() ?? [])].filter((id) => through === null || id > through);
};

/** The most leases any write of the table's head held. */
const mostLeases = (w: World, tableId: string) =>
  Math.max(
    0,
    ...w.staging.written
      .map((item) => JSON.parse(item))
      .filter((item) => item.tableId === tableId && item.head)
      .map((item) => item.head.leases.length),
  );

/**
 * Batches of the large table (5,000 bytes each, two to a size target), a millisecond apart (records
 * sort by when they were written), their triggers dropped, and `wait` later: due.
 */
async function batchesDue(count: number, wait = minute) {
  const w = world({ freshness: { [BIG]: minute } });
  for (let i = 0; i < count; i++) {
    await writeEnvelopeBatch(w.deps, [record(w, BIG, uuid(i), { bytes: 5000 })]);
    w.clock.now += 1;
  }
  w.staging.queue.length = 0;
  w.clock.now += wait;
  return { w, trigger: [{ tableId: BIG, at: w.clock.now }] };
}

describe("a large table's committers", () => {
  it('commit up to four runs of it at once, each its own: every row once, the watermark past everything, nothing left', async () => {
    // Twelve batches: six runs. Older than a writer's lifetime: the watermark may pass them.
    const { w } = await batchesDue(12, 3 * minute);
    const held = gated(w);
    const trigger = [{ tableId: BIG, at: w.clock.now }];
    const committer = (holder: string) => commitTriggered(w.deps, trigger, { ...optionsOf(w), holder, concurrency: 1 });
    // The first takes the first run and, with four more size targets free, brings another at once.
    const first = committer('c1');
    await quiet();
    expect(held.map((commit) => commit.ids)).toEqual([ids(0, 2)]);
    expect(w.staging.arrived()).toEqual(trigger);
    const others = ['c2', 'c3', 'c4'].map((holder) => committer(holder));
    await quiet();
    expect(held.map((commit) => commit.ids)).toEqual([ids(0, 2), ids(2, 2), ids(4, 2), ids(6, 2)]);
    expect(w.staging.heads.get(BIG)?.leases.map((lease) => lease.holder)).toEqual(['c1', 'c2', 'c3', 'c4']);
    // A fifth finds every lease taken, and drops its trigger; so does one for a batch staged meanwhile.
    expect(await committer('c5')).toMatchObject({ committed: [], waiting: 1 });
    await writeEnvelopeBatch({ ...w.deps, sent: new SentTriggers() }, [record(w, BIG, uuid(12), { bytes: 5000 })]);
    expect(
      await commitTriggered(w.deps, w.staging.arrived(), { ...optionsOf(w), holder: 'c6', concurrency: 1 }),
    ).toMatchObject({ committed: [], waiting: 1 });
    // The later runs finish first: their records are deleted, and the watermark waits for the first run.
    for (const commit of held.slice(1).reverse()) commit.go();
    await quiet();
    expect(w.staging.heads.get(BIG)?.through).toBeNull();
    // Two of them take the runs left; one then takes the batch staged meanwhile too (its read found a size target's worth free).
    expect(held.map((commit) => commit.ids).slice(4)).toEqual([ids(8, 2), ids(10, 2)]);
    for (const commit of held.slice(4)) commit.go();
    await quiet();
    expect(held.map((commit) => commit.ids).slice(6)).toEqual([[uuid(12)]]);
    held[6]?.go();
    await quiet();
    expect(w.staging.heads.get(BIG)?.through).toBeNull();
    held[0]?.go();
    const reports = await Promise.all([first, ...others]);
    expect(reports.flatMap((report) => report.committed)).toEqual([BIG, BIG, BIG, BIG]);
    expect(mostLeases(w, BIG)).toBe(4);
    expect(w.staging.heads.get(BIG)?.leases).toEqual([]);
    expect(w.rowsOf(BIG)).toEqual(ids(0, 13));
    expect(w.commitsOf(BIG)).toBe(7);
    // The watermark passed the first run, the others' records are deleted: nothing is left, and
    // the triggers still to come find nothing to commit.
    const kept = [...(w.staging.staged.get(BIG)?.keys() ?? [])].sort();
    expect(kept.length).toBe(2);
    expect(w.staging.heads.get(BIG)?.through).toBe(kept[1]);
    expect(recordsLeft(w, BIG)).toEqual([]);
    await w.deliverUntil(w.clock.now + 10 * minute);
    expect(w.commitsOf(BIG)).toBe(7);
    expect(w.staging.heads.get(BIG)).toMatchObject({ dueAt: null, triggerAt: null, leases: [] });
  });

  it('leave a run whose committer stopped after committing it until its lease ends; the next writes none of it twice', async () => {
    const { w, trigger } = await batchesDue(4);
    const held = gated(w);
    const stopping = commitTriggered(w.deps, trigger, { ...optionsOf(w), holder: 'stopping', concurrency: 1 });
    await quiet();
    const steady = commitTriggered(w.deps, trigger, { ...optionsOf(w), holder: 'steady', concurrency: 1 });
    await quiet();
    expect(held.map((commit) => commit.ids)).toEqual([ids(0, 2), ids(2, 2)]);
    // The first committer's run is committed, then its instance stops before it records anything.
    const records = { ...w.staging.records };
    const stopped = async () => {
      throw new Error('stopped');
    };
    Object.assign(w.staging.records, { head: stopped, pending: stopped, replaceHead: stopped, remove: stopped });
    held[0]?.go();
    expect(await stopping).toMatchObject({ committed: [], retried: [BIG] });
    Object.assign(w.staging.records, records);
    expect(w.rowsOf(BIG)).toEqual(ids(0, 2));
    // The other finishes its own run and lets go of its own lease only.
    held[1]?.go();
    expect(await steady).toMatchObject({ committed: [BIG] });
    expect(w.staging.heads.get(BIG)?.leases.map((lease) => lease.holder)).toEqual(['stopping']);
    // While the stopped committer's lease lasts, its run is left alone.
    const during = commitTriggered(w.deps, trigger, { ...optionsOf(w), holder: 'third', concurrency: 1 });
    expect(await during).toMatchObject({ committed: [], waiting: 1 });
    // Once it ends, the next committer commits the run again, and the table skips every row of it.
    w.clock.now += 2 * minute + 1;
    const after = commitTriggered(w.deps, trigger, { ...optionsOf(w), holder: 'third', concurrency: 1 });
    await quiet();
    held.at(-1)?.go();
    expect(await after).toMatchObject({ committed: [BIG], written: 0, skipped: 2 });
    expect(w.rowsOf(BIG)).toEqual(ids(0, 4));
    expect(recordsLeft(w, BIG)).toEqual([]);
    expect(w.staging.heads.get(BIG)?.leases).toEqual([]);
  });

  it("keep a failure one of them met on its run while another's run goes well, and try the failed run again after the retry delay", async () => {
    const { w, trigger } = await batchesDue(4);
    const append = w.deps.appendEnvelopes;
    const held = gated(w);
    const failing = commitTriggered(w.deps, trigger, { ...optionsOf(w), holder: 'failing', concurrency: 1 });
    await quiet();
    const fine = commitTriggered(w.deps, trigger, { ...optionsOf(w), holder: 'fine', concurrency: 1 });
    await quiet();
    expect(held.map((commit) => commit.ids)).toEqual([ids(0, 2), ids(2, 2)]);
    w.failing.add(BIG);
    held[0]?.go();
    expect(await failing).toMatchObject({ failed: [BIG] });
    w.failing.delete(BIG);
    held[1]?.go();
    expect(await fine).toMatchObject({ committed: [BIG] });
    expect(w.staging.heads.get(BIG)?.failure).toMatchObject({ attempts: 1, nextAttemptAt: w.clock.now + 10 * minute });
    expect(w.rowsOf(BIG)).toEqual(ids(2, 2));
    // Nothing more before the retry delay; then the failed run, as the second attempt.
    w.deps.appendEnvelopes = append;
    await w.deliverUntil(w.clock.now + 10 * minute - 1);
    expect(w.rowsOf(BIG)).toEqual(ids(2, 2));
    await w.deliverUntil(w.clock.now + 1);
    expect(w.rowsOf(BIG)).toEqual(ids(0, 4));
    expect(w.staging.heads.get(BIG)).toMatchObject({ failure: null, leases: [] });
    expect(recordsLeft(w, BIG)).toEqual([]);
  });

  it('honour a lease written before leases held runs (one holder, every record) until it ends', async () => {
    const { w } = await batchesDue(2);
    // As the staging heads' adapter reads an item with `lease_holder` and `lease_until`.
    const head = w.staging.heads.get(BIG);
    if (!head) throw new Error('no head');
    head.leases = [{ holder: 'earlier', until: w.clock.now + minute, first: '', last: '\uffff' }];
    const trigger = [{ tableId: BIG, at: w.clock.now }];
    expect(await commitTriggered(w.deps, trigger, { ...optionsOf(w), concurrency: 1 })).toMatchObject({
      committed: [],
      waiting: 1,
    });
    expect(w.rowsOf(BIG)).toEqual([]);
    w.clock.now += minute;
    expect(await commitTriggered(w.deps, trigger, { ...optionsOf(w), concurrency: 1 })).toMatchObject({
      committed: [BIG],
    });
    expect(w.rowsOf(BIG)).toEqual(ids(0, 2));
    expect(w.staging.heads.get(BIG)?.leases).toEqual([]);
  });
});

describe('the watermark', () => {
  it('passes only done records older than a writer lifetime before the read; a record written late within its lifetime is read', async () => {
    const w = world({ freshness: { [A]: 10 * minute } });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    w.clock.now += 10 * minute;
    // A writer took its record's id just before the committer read the table, and writes it after.
    const lateId = `${String(w.clock.now - 1).padStart(13, '0')}-late0001`;
    const pending = w.staging.records.pending;
    let readAt = 0;
    w.staging.records.pending = async (tableId, through) => {
      const records = await pending(tableId, through);
      readAt = w.clock.now;
      const objectKey = [...w.staging.stored.keys()][0] as string;
      w.staging.staged.get(A)?.set(lateId, {
        id: lateId,
        key: objectKey,
        objectSize: 1,
        offset: 0,
        length: 0,
        rows: 1,
        oldest: w.clock.now,
        bytes: 1,
      });
      w.staging.records.pending = pending;
      return records;
    };
    await w.deliver();
    expect(recordTime(lateId)).toBeGreaterThan(readAt - writerLifetimeMs);
    const through = w.staging.heads.get(A)?.through ?? null;
    // The first record is older than a writer's lifetime before the read: passed.
    expect(through).not.toBeNull();
    expect(lateId > (through as string)).toBe(true);
    expect(pendingRows(w, A)).toBe(1);
  });

  it('never passes a record that is not done: a failed commit of the newer records holds it below them', async () => {
    const w = world({ freshness: { [A]: 10 * minute, [B]: 10 * minute } });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1), { bytes: 6000 })]);
    w.clock.now += 5 * minute;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(2), { bytes: 6000 })]);
    w.clock.now += 10 * minute;
    // The first commit (the first record) succeeds, the second fails.
    let commits = 0;
    const append = w.deps.appendEnvelopes;
    w.deps.appendEnvelopes = async (...args) => {
      if (commits++ === 1) throw Object.assign(new Error('Injected fault'), { name: 'ServiceUnavailable' });
      return append(...args);
    };
    expect(await w.deliver()).toMatchObject({ failed: [A] });
    const [first, second] = [...(w.staging.staged.get(A)?.keys() ?? [])].sort();
    expect(w.staging.heads.get(A)?.through).toBe(first);
    expect(second && second > (w.staging.heads.get(A)?.through as string)).toBe(true);
    expect(pendingRows(w, A)).toBe(1);
  });
});

describe('the overdue check', () => {
  it('reports how far past its due time the most overdue table is, and sends another trigger for one whose trigger was lost', async () => {
    const w = world();
    expect(await w.sweep()).toMatchObject({ overdueMs: 0, triggered: 0 });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    // The trigger is lost (a committer crashed on it five times).
    w.staging.queue.length = 0;
    w.clock.now += 5 * minute + overdueGraceMs;
    expect(await w.sweep()).toMatchObject({ overdueMs: 0, triggered: 0 });
    w.clock.now += 1;
    expect(await w.sweep()).toMatchObject({ overdueMs: overdueGraceMs + 1, overdue: 1, triggered: 1 });
    expect(w.staging.queue).toEqual([{ tableId: A, at: w.clock.now }]);
    // Once sent, not again while it is on time.
    expect(await w.sweep()).toMatchObject({ triggered: 0 });
    await w.deliver();
    expect(w.rowsOf(A)).toEqual([uuid(1)]);
    expect(await w.sweep()).toMatchObject({ overdueMs: 0, overdue: 0 });
  });

  it('leaves a table listed when its trigger cannot be sent at any receive: the overdue check sends one, the row written once', async () => {
    const w = world();
    const failing = {
      ...w.deps,
      triggers: {
        ...w.deps.triggers,
        send: async () => {
          throw new Error('The commits queue refused the message');
        },
      },
    };
    // Every receive stages the envelope again and fails on its trigger: the queue then dead-letters it, and the
    // recorder finds it staged (nothing to record).
    for (let receive = 1; receive <= 5; receive++) {
      expect((await writeEnvelopeBatch(failing, [record(w, A, uuid(60))])).failedRecordIds).toHaveLength(1);
      w.clock.now += minute;
    }
    expect(w.staging.queue).toEqual([]);
    w.clock.now += 5 * minute + overdueGraceMs;
    expect(await w.sweep()).toMatchObject({ triggered: 1 });
    await w.deliver();
    expect({ rows: w.rowsOf(A), pending: pendingRows(w, A) }).toEqual({ rows: [uuid(60)], pending: 0 });
  });

  it('reports no figure, rather than fail, when the platform’s own table is slow for the overdue check; anything else fails', async () => {
    const w = world();
    const failing = (name: string) => ({
      ...w.deps,
      records: {
        ...w.deps.records,
        listed: async () => {
          throw Object.assign(new Error('The index did not answer'), { name });
        },
      },
    });
    const options = { deadline: w.clock.now + minute, holder: 'h', read: async () => Buffer.alloc(0), concurrency: 1 };
    expect(
      await checkOverdue(failing('ProvisionedThroughputExceededException'), { ...options, stopping: false }),
    ).toEqual({ overdueMs: null, overdue: 0, triggered: 0, committed: null });
    await expect(checkOverdue(failing('ValidationException'), { ...options, stopping: false })).rejects.toThrow(
      'The index did not answer',
    );
    // At a graceful stop, everything must be committed: a failure there is the stop's to report.
    await expect(
      checkOverdue(failing('ProvisionedThroughputExceededException'), { ...options, stopping: true }),
    ).rejects.toThrow('The index did not answer');
  });

  it('lists a table as pending again when its rows arrive after a commit took it off, its writer trigger still on its way', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(40))]);
    // A stop commits the table before the writer's trigger arrives, and takes it off the index.
    expect((await w.sweep(true)).committed?.committed).toEqual([A]);
    expect(w.staging.heads.get(A)?.dueAt).toBeNull();
    w.clock.now += minute;
    // The same writer instance stages more of it: no new trigger (its first arrives in time), but listed.
    const sent = w.staging.queue.length;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(41))]);
    expect(w.staging.queue.length).toBe(sent);
    expect(w.staging.heads.get(A)?.dueAt).toBe(w.clock.now + 5 * minute);
    expect((await w.sweep(true)).committed?.committed).toEqual([A]);
    expect(w.rowsOf(A)).toEqual([uuid(40), uuid(41)]);
  });

  it('reads a table again after taking it off the index: rows staged meanwhile get a trigger and the listing back', async () => {
    const w = world({ freshness: { [A]: 10 * minute } });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(50))]);
    w.clock.now += minute;
    // While a stop commits the table, its writer stages more of it: the table is still listed and the
    // writer's own trigger is 9 minutes away, so the writer neither sends one nor lists it again.
    stageDuringCommit(w, A, uuid(51));
    expect((await w.sweep(true)).committed?.committed).toEqual([A]);
    expect(w.rowsOf(A)).toEqual([uuid(50)]);
    expect(w.staging.heads.get(A)?.dueAt).toBe(w.clock.now + 10 * minute);
    await w.deliverUntil(w.clock.now + 10 * minute);
    expect(w.rowsOf(A)).toEqual([uuid(50), uuid(51)]);
    expect(w.staging.heads.get(A)?.dueAt).toBeNull();
  });

  it('lists a table back for rows staged during its commit before it removes the staged objects it committed, which may stall', async () => {
    const w = world({ freshness: { [A]: 10 * minute } });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(52))]);
    w.clock.now += minute;
    stageDuringCommit(w, A, uuid(53));
    // The removal of the committed object gets no answer until the test lets it.
    let answer: (() => void) | undefined;
    const removal = new Promise<void>((resolve) => (answer = resolve));
    const remove = w.staging.objects.remove;
    w.staging.objects.remove = async (keys) => {
      await removal;
      await remove(keys);
    };
    const sweep = w.sweep(true);
    await vi.waitFor(() => expect(w.staging.heads.get(A)?.dueAt).toBe(w.clock.now + 10 * minute));
    answer?.();
    expect((await sweep).committed?.committed).toEqual([A]);
    // The committed batch's object is gone; the batch staged during the commit keeps its own.
    expect(w.staging.stored.size).toBe(1);
  });

  it('commits every staged table at a graceful stop, whatever its target', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(30)), record(w, B, uuid(31))]);
    expect(await w.deliver()).toMatchObject({ committed: [] });
    const stop = await w.sweep(true);
    expect(stop.committed?.committed.sort()).toEqual([A, B]);
    expect([w.rowsOf(A), w.rowsOf(B)]).toEqual([[uuid(30)], [uuid(31)]]);
    expect([pendingRows(w, A), pendingRows(w, B)]).toEqual([0, 0]);
    // Their triggers arrive after the next start, and find nothing to commit.
    await w.deliverUntil(w.clock.now + 10 * minute);
    expect([w.commitsOf(A), w.commitsOf(B)]).toEqual([1, 1]);
  });
});

describe('the functions that commit staged tables', () => {
  it('have the time for a whole table commit and for recording it', async () => {
    const { stagingDeps } = await import('#functions/ingest/wiring.ts');
    const { consumers } = await import('#shared/topology.ts');
    const { tableTimeMs, recordMs } = stagingDeps;
    for (const name of ['ingest-writer', 'table-committer'] as const)
      expect(tableTimeMs + recordMs).toBeLessThan((consumers[name]?.function.timeoutSeconds ?? 0) * 1000);
  });
});
