/**
 * The loss account (EnvelopesMissing: accepted − written − expired − lost − dead-lettered, less what
 * waits staged) after a committer that dies at any write of its path, and the retry that follows.
 * Through the staged commit's ports (shared/domain/ingest/commit-staged.ts and commit-table.ts): the
 * staging records and objects, the commits queue, a Delta table in memory written through the
 * adapter's envelope output and the real commit path, and the counters, in memory as DynamoDB keeps
 * them (a count made once by its key; counts held in the process until it settles them, and gone
 * with it). A crash is the N-th write of the path failing, and every call after it (the process is
 * gone): what it held in memory is dropped, its trigger comes back, and a new process retries.
 */
import { describe, expect, it } from 'vitest';
import type { AddFile } from '#delta/kernel/log.ts';
import { appendToTable } from '#delta/operations/append.ts';
import { committedView, envelopeOutput } from '#shared/adapters/delta-tables.ts';
import { parseStagedSlice } from '#shared/adapters/staged-rows.ts';
import { tableMetadataOf } from '#shared/adapters/table-storage.ts';
import { exactlyOncePerMessage } from '#shared/domain/datasets/exactly-once.ts';
import { type DataSet, envelopeSchema, newDataSet } from '#shared/domain/datasets/model.ts';
import type { CommittedVersion } from '#shared/domain/datasets/table.ts';
import { commitTriggered } from '#shared/domain/ingest/commit-staged.ts';
import type { StagedRow } from '#shared/domain/ingest/commit-table.ts';
import { type EnvelopeMessage, envelopeMessage, firstIngestMs } from '#shared/domain/ingest/envelope.ts';
import { StagedReads } from '#shared/domain/ingest/staged-reads.ts';
import { maxCommitAttempts } from '#shared/domain/ingest/staging.ts';
import {
  type BatchWriterDeps,
  type QueueRecord,
  SentTriggers,
  writeEnvelopeBatch,
} from '#shared/domain/ingest/write-batch.ts';
import { unaccounted } from '#shared/domain/observability/metric-catalogue.ts';
import { icebergUntouched } from '../support/iceberg-untouched.ts';
import { memoryStaging } from '../support/memory-staging.ts';
import { type MemoryTable, memoryTable, writerOf } from '../support/memory-table.ts';

const minute = 60_000;
const day = 86_400_000;
const A = 'da7a5e70-0000-4000-8000-0000000000a1';
const TENANT = '00000000-0000-4000-8000-000000000001';
const SOURCE = `s-${A}`;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The process: the N-th write it makes fails, and so does every call after it. */
class Process {
  writes: string[] = [];
  dead = false;
  constructor(private readonly crashAt: number | null) {}

  call(): void {
    if (this.dead) throw new Error('The process is gone');
  }

  write(step: string): void {
    this.call();
    this.writes.push(step);
    if (this.writes.length === this.crashAt) {
      this.dead = true;
      throw new Error(`The process ended at write ${this.crashAt} (${step})`);
    }
  }
}

interface Figures {
  written: number;
  expired: number;
  lost: number;
  deadLettered: number;
}

/**
 * A table of source SOURCE, staged by the batch writer; a retention of `retentionDays` (none unless given).
 * `store.broken` makes the table's store refuse every data file while true.
 */
function world(options: { retentionDays?: number } = {}) {
  const clock = { now: Date.UTC(2026, 10, 23, 12) };
  const staging = memoryStaging(() => clock.now);
  const table: MemoryTable = memoryTable({ jitter: false, clock: () => clock.now });
  let process = new Process(null);
  /** The counters as DynamoDB keeps them: what was counted once (by key) and what processes settled. */
  const stored = new Map<string, number>();
  const countedOnce = new Set<string>();
  /** What the process counted and has not settled yet: gone with it. */
  let held = new Map<string, number>();
  /** The ingest dead-letter queue, as its recorder counts it: each message id once. */
  const deadLetters = new Set<string>();
  const store = { broken: false };
  /** Claim-checked bodies in the platform bucket, by key. */
  const claims = new Set<string>();
  const add = (figures: Map<string, number>, series: string, by: number) =>
    figures.set(series, (figures.get(series) ?? 0) + by);

  const retentionMs = options.retentionDays === undefined ? null : options.retentionDays * day;

  // The ports of a process: each write a step of its path (where the crash may come), no call once it is gone.
  const reading =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      process.call();
      return call(...args);
    };
  const writing =
    <A extends unknown[], R>(step: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      process.write(step);
      return call(...args);
    };
  const records = staging.records;
  const ported = {
    ...records,
    head: reading(records.head),
    heads: reading(records.heads),
    pending: reading(records.pending),
    write: writing('records', records.write),
    listPending: writing('listing', records.listPending),
    replaceHead: writing('head', records.replaceHead),
    remove: writing('remove records', records.remove),
  };
  const objects = staging.objects;
  const portedObjects = {
    put: writing('put object', objects.put),
    read: reading(objects.read),
    remove: writing('remove objects', objects.remove),
  };
  const triggers = staging.triggers;
  const portedTriggers = { ...triggers, send: writing('trigger', triggers.send) };
  const storage = table.storage;
  const portedTable: MemoryTable = {
    ...table,
    storage: {
      ...storage,
      get: reading(storage.get),
      getIfExists: reading(storage.getIfExists),
      list: reading(storage.list),
      put: writing('data file', async (key: string, body: Uint8Array | string, contentType: string) => {
        if (store.broken) throw Object.assign(new Error('Injected fault'), { name: 'AccessDenied' });
        return storage.put(key, body, contentType);
      }),
      putIfAbsent: writing('log entry', storage.putIfAbsent),
      delete: writing('delete files', storage.delete),
    },
    records: {
      holdIds: writing('hold ids', table.records.holdIds),
      idsOf: reading(table.records.idsOf),
      record: writing('run history', table.records.record),
    },
  };
  // A process's own snapshot cache, as a function instance keeps one.
  let writer = writerOf(portedTable, {}, { now: () => new Date(clock.now) });
  let reads = new StagedReads(portedObjects, { wholeMaxBytes: 1024 * 1024, keptMaxBytes: 64 * 1024 * 1024 });

  const deps: BatchWriterDeps = {
    records: ported,
    objects: portedObjects,
    triggers: portedTriggers,
    sent: new SentTriggers(),
    parse: parseStagedSlice,
    freshness: async (ids) => new Map(ids.map((id) => [id, 5 * minute])),
    async getDataSet(tableId) {
      process.call();
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
      const committed: CommittedVersion[] = [];
      const hooks = {
        async onCompleted(...[entry, state]: Parameters<typeof writer.hooks.onCompleted>) {
          committed.push(committedView(entry, state, retentionMs));
        },
      };
      const output = envelopeOutput(
        { ...writer, hooks },
        {
          ids: portedTable.records,
          defaultRetentionMs: retentionMs,
          encode: (chunk) => ({
            bytes: Buffer.from(chunk.map((row) => row.message.message_id).join('\n')),
            stats: { numRecords: chunk.length, minValues: {}, maxValues: {}, nullCount: {} },
          }),
        },
      );
      return { ...(await output(dataSet, rows, request)), committed };
    },
    claimExists: async (ref) => {
      process.call();
      return claims.has(ref.key);
    },
    writtenAfterIngest: async (tableId, ids) => new Set(ids.filter((id) => rowsOf(tableId).includes(id))),
    async checkOut(keys) {
      process.write('check out');
      for (const key of keys) claims.delete(key);
    },
    markMaintenanceDue: async () => process.write('maintenance due'),
    count(figure, labels, by) {
      add(held, `${figure} ${JSON.stringify(labels)}`, by);
    },
    async countOnce(key, counts) {
      process.write(`count once ${key.slice(0, key.indexOf('#'))}`);
      if (countedOnce.has(key)) return false;
      countedOnce.add(key);
      for (const { metric, labels, by } of counts) add(stored, `${metric} ${JSON.stringify(labels)}`, by);
      return true;
    },
    async settleCounts() {
      process.write('settle counts');
      for (const [series, by] of held) add(stored, series, by);
      held.clear();
    },
    info: () => undefined,
    warn: () => undefined,
    mirrorLatest: icebergUntouched.mirrorLatest,
    recordIceberg: icebergUntouched.recordIceberg,
    markIcebergDue: icebergUntouched.markIcebergDue,
    failureCategory: icebergUntouched.failureCategory,
    async deadLetter(_, messages) {
      process.write('dead letter');
      for (const message of messages) deadLetters.add(message.message_id);
    },
    failed: () => undefined,
    describe: (error) => `${error.name}: ${error.message}`,
    dependencyFailed: () => false,
    now: () => clock.now,
    retryMs: 10 * minute,
    sizeTarget: 10_000,
    concurrency: 4,
    tableTimeMs: minute,
    recordMs: 10_000,
    parseEnvelope: (body) => envelopeMessage.parse(JSON.parse(body)),
    countReceipts: () => undefined,
    recordFailures: async () => undefined,
    backoffFirstSeconds: 30,
  };

  /** The message ids the table's live files hold, read from its log and files. */
  const rowsOf = (_tableId: string) => {
    const live = new Map<string, string[]>();
    for (let version = 0; ; version++) {
      const commit = table.objects.get(`_delta_log/${String(version).padStart(20, '0')}.json`);
      if (!commit) break;
      for (const line of commit.bytes.toString().trim().split('\n')) {
        const action = JSON.parse(line);
        if (action.add) live.set(action.add.path, String(table.objects.get(action.add.path)?.bytes).split('\n'));
        if (action.remove) live.delete(action.remove.path);
      }
    }
    return [...live.values()].flat().sort();
  };
  /** Rows of the table's records not yet done: what waits staged. */
  const stagedRows = () => {
    const through = staging.heads.get(A)?.through ?? null;
    return [...(staging.staged.get(A)?.values() ?? [])]
      .filter((record) => through === null || record.id > through)
      .reduce((sum, record) => sum + record.rows, 0);
  };
  const figure = (metric: string) => stored.get(`${metric} ${JSON.stringify({ source_id: SOURCE })}`) ?? 0;

  const deliver = async () => {
    await commitTriggered(deps, staging.arrived(), {
      deadline: clock.now + 2 * minute,
      holder: 'committer',
      read: (record) => reads.read(record),
      concurrency: 4,
    }).catch(() => undefined);
    if (process.dead) {
      // Gone with the process: its unsettled counts, its caches. Its trigger comes back (the queue
      // redelivers what the process never answered), to a new process.
      held = new Map();
      process = new Process(null);
      writer = writerOf(portedTable, {}, { now: () => new Date(clock.now) });
      reads = new StagedReads(portedObjects, { wholeMaxBytes: 1024 * 1024, keptMaxBytes: 64 * 1024 * 1024 });
      await triggers.send([{ tableId: A, at: clock.now + deps.retryMs }]);
    }
  };

  return {
    clock,
    table,
    claims,
    staging,
    store,
    deps,
    rowsOf,
    stagedRows,
    /** The next invocation's process: it crashes at its `crashAt`-th write (never: null). */
    crashAt(crashAt: number | null) {
      process = new Process(crashAt);
      return process;
    },
    deliver,
    /** Every trigger that arrives up to `until`, delivered as it arrives (the clock moved to each). */
    async deliverUntil(until: number) {
      for (;;) {
        const next = Math.min(...staging.queue.map((trigger) => trigger.at));
        if (!(next <= until)) break;
        clock.now = Math.max(clock.now, next);
        await deliver();
      }
      clock.now = Math.max(clock.now, until);
    },
    /** The shared counters, as /metrics reads them. */
    figures(): Figures {
      return {
        written: figure('envelopesWritten'),
        expired: figure('envelopesExpired'),
        lost: figure('envelopesLost'),
        deadLettered: deadLetters.size,
      };
    },
    /** The source's envelopes unaccounted for, less those that wait staged. */
    missing(accepted: number) {
      const { written, expired, lost, deadLettered } = this.figures();
      return unaccounted({ accepted, duplicates: 0, written, expired, lost, deadLettered, redriven: 0 }) - stagedRows();
    },
  };
}

type World = ReturnType<typeof world>;

function envelope(w: World, n: number, dt = '2026-11-23', claimChecked = false): QueueRecord {
  const message: EnvelopeMessage = {
    v: 1,
    message_id: uuid(n),
    data_set_id: A,
    dt,
    ingested_at_us: String(BigInt(w.clock.now) * 1000n),
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: 'application/json',
    payload_size: 100,
    ...(claimChecked ? { payload_ref: { bucket: 'platform', key: `claims/${n}` } } : { payload: 'e30=' }),
  };
  return { recordId: `record-${n}`, body: JSON.stringify(message), receiveCount: 1 };
}

/**
 * The writes of the path that `setUp` readies and one delivery runs, with no crash: the steps a
 * crash is tried at.
 */
async function stepsOf(setUp: () => Promise<World>): Promise<string[]> {
  const w = await setUp();
  const process = w.crashAt(null);
  await w.deliver();
  return process.writes;
}

/** Crashes the delivery at write `n`, then lets every retry run; answers whether it crashed. */
async function crashThenRetry(w: World, n: number): Promise<boolean> {
  const process = w.crashAt(n);
  await w.deliver();
  await w.deliverUntil(w.clock.now + 3 * 60 * minute);
  return process.writes.length === n;
}

/** Table A: two batches, 5 rows of which 2 of a day past a 30-day retention; due. */
async function stagedWithExpired(): Promise<World> {
  const w = world({ retentionDays: 30 });
  w.crashAt(null);
  await writeEnvelopeBatch(w.deps, [envelope(w, 1), envelope(w, 2), envelope(w, 3, '2026-09-01')]);
  await writeEnvelopeBatch(w.deps, [envelope(w, 4), envelope(w, 5, '2026-09-02')]);
  w.clock.now += 6 * minute;
  return w;
}

/** Table A: 3 rows whose bodies are claim-checked; due. */
async function stagedClaimChecked(): Promise<World> {
  const w = world();
  w.crashAt(null);
  for (const n of [1, 2, 3]) w.claims.add(`claims/${n}`);
  await writeEnvelopeBatch(w.deps, [envelope(w, 1, undefined, true), envelope(w, 2, undefined, true)]);
  await writeEnvelopeBatch(w.deps, [envelope(w, 3, undefined, true)]);
  w.clock.now += 6 * minute;
  return w;
}

/** Table A: two batches of 2 and 3 rows, the first's object gone; every attempt but the last made. */
async function lastAttemptWithLoss(): Promise<World> {
  const w = world();
  w.crashAt(null);
  await writeEnvelopeBatch(w.deps, [envelope(w, 1), envelope(w, 2)]);
  w.staging.stored.clear();
  await writeEnvelopeBatch(w.deps, [envelope(w, 3), envelope(w, 4), envelope(w, 5)]);
  w.clock.now += 6 * minute;
  for (let attempt = 1; attempt < maxCommitAttempts; attempt++) {
    await w.deliver();
    w.clock.now += 10 * minute;
  }
  return w;
}

/** Table A: 3 rows whose store refuses every file; every attempt but the last made. */
async function lastAttemptDeadLetters(): Promise<World> {
  const w = world();
  w.crashAt(null);
  await writeEnvelopeBatch(w.deps, [envelope(w, 1), envelope(w, 2), envelope(w, 3)]);
  w.store.broken = true;
  w.clock.now += 6 * minute;
  for (let attempt = 1; attempt < maxCommitAttempts; attempt++) {
    await w.deliver();
    w.clock.now += 10 * minute;
  }
  return w;
}

/**
 * The writes of each path, in order: the Delta commit (its data files, the ids its run holds, the log
 * entry, the run history), the counts made once (the run's rows, the expired rows by record and day,
 * a lost record's rows), the counts settled, the head, the staged objects let go.
 */
const withExpiredPath = [
  'data file',
  'hold ids',
  'log entry',
  'run history',
  'count once written',
  'count once expired',
  'count once expired',
  'settle counts',
  'head',
  'remove objects',
];
const withLossPath = [
  'data file',
  'hold ids',
  'log entry',
  'run history',
  'count once written',
  'count once lost',
  'settle counts',
  'head',
  'remove objects',
];
const deadLettersPath = ['data file', 'dead letter', 'settle counts', 'head', 'remove objects'];
/** Bodies are removed once their rows are counted: a retry takes a row whose body is gone as written, finding no commit to count. */
const claimCheckedPath = [
  'data file',
  'hold ids',
  'log entry',
  'run history',
  'count once written',
  'check out',
  'settle counts',
  'head',
  'remove objects',
];
/** Each write of a path, numbered from 1, as the cases of a crash at it. */
const stepsOfPath = (path: string[]) => path.map((step, i) => [i + 1, step] as const);

describe('the loss account after a committer dies at any write of its path', () => {
  it('a commit with rows past the retention: every write is a step a crash is tried at', async () => {
    expect(await stepsOf(stagedWithExpired)).toEqual(withExpiredPath);
  });

  it.each(stepsOfPath(withExpiredPath))(
    'a commit with rows past the retention, the process dying at write %i (%s): written 3, expired 2, none missing',
    async (n) => {
      const w = await stagedWithExpired();
      expect(await crashThenRetry(w, n)).toBe(true);
      expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2), uuid(4)]);
      expect(w.figures()).toEqual({ written: 3, expired: 2, lost: 0, deadLettered: 0 });
      expect(w.stagedRows()).toBe(0);
      expect(w.missing(5)).toBe(0);
    },
  );

  it('the last attempt with a staged object gone: its writes are the steps', async () => {
    expect(await stepsOf(lastAttemptWithLoss)).toEqual(withLossPath);
  });

  it.each(stepsOfPath(withLossPath))(
    'the last attempt with a staged object gone, the process dying at write %i (%s): written 3, lost 2, none missing',
    async (n) => {
      const w = await lastAttemptWithLoss();
      expect(await crashThenRetry(w, n)).toBe(true);
      expect(w.rowsOf(A)).toEqual([uuid(3), uuid(4), uuid(5)]);
      expect(w.figures()).toEqual({ written: 3, expired: 0, lost: 2, deadLettered: 0 });
      expect(w.stagedRows()).toBe(0);
      expect(w.missing(5)).toBe(0);
    },
  );

  it('the last attempt of a table whose store refuses: its writes are the steps', async () => {
    expect(await stepsOf(lastAttemptDeadLetters)).toEqual(deadLettersPath);
  });

  it.each(stepsOfPath(deadLettersPath))(
    'the last attempt of a table whose store refuses, the process dying at write %i (%s): dead-lettered 3, none missing',
    async (n) => {
      const w = await lastAttemptDeadLetters();
      expect(await crashThenRetry(w, n)).toBe(true);
      expect(w.rowsOf(A)).toEqual([]);
      expect(w.figures()).toEqual({ written: 0, expired: 0, lost: 0, deadLettered: 3 });
      expect(w.stagedRows()).toBe(0);
      expect(w.missing(3)).toBe(0);
    },
  );

  it('claim-checked rows: their writes are the steps', async () => {
    expect(await stepsOf(stagedClaimChecked)).toEqual(claimCheckedPath);
  });

  it.each(stepsOfPath(claimCheckedPath))(
    'claim-checked rows, the process dying at write %i (%s): written 3, none missing, bodies removed',
    async (n) => {
      const w = await stagedClaimChecked();
      expect(await crashThenRetry(w, n)).toBe(true);
      expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2), uuid(3)]);
      expect(w.figures()).toEqual({ written: 3, expired: 0, lost: 0, deadLettered: 0 });
      expect(w.stagedRows()).toBe(0);
      expect(w.missing(3)).toBe(0);
      expect([...w.claims]).toEqual([]);
    },
  );

  it('a real loss shows, exactly: a staged record deleted with its object, uncounted, after a crash and its retry', async () => {
    const w = await stagedWithExpired();
    await writeEnvelopeBatch(w.deps, [envelope(w, 6), envelope(w, 7)]);
    // The newest record goes, and its object, behind the committer's back: 2 rows nobody counts.
    const records = w.staging.staged.get(A) as Map<string, { id: string; key: string }>;
    const newest = [...records.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).at(-1) as { id: string; key: string };
    records.delete(newest.id);
    w.staging.stored.delete(newest.key);
    // The first commit dies right after its log entry; its retry commits.
    expect(await crashThenRetry(w, 3)).toBe(true);
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2), uuid(4)]);
    expect(w.figures()).toEqual({ written: 3, expired: 2, lost: 0, deadLettered: 0 });
    expect(w.missing(7)).toBe(2);
  });

  it('a message staged twice (the queue delivered it twice) counts as written once, whichever commit wrote it, across a crash', async () => {
    const w = world();
    w.crashAt(null);
    const first = envelope(w, 1);
    await writeEnvelopeBatch(w.deps, [first, envelope(w, 2)]);
    w.clock.now += 6 * minute;
    // The first commit dies right after its log entry: its rows are in the table, counted by nobody.
    expect(await crashThenRetry(w, 3)).toBe(true);
    // The queue delivers the first message again, with a new one: the first is skipped, found in the commit counted already.
    await writeEnvelopeBatch(w.deps, [{ ...first, recordId: 'again' }, envelope(w, 3)]);
    w.clock.now += 6 * minute;
    await w.deliverUntil(w.clock.now + 60 * minute);
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2), uuid(3)]);
    expect(w.figures()).toEqual({ written: 3, expired: 0, lost: 0, deadLettered: 0 });
    expect(w.missing(3)).toBe(0);
  });

  it('a commit made before commits were counted once per run is not counted again when a redelivery finds its rows', async () => {
    const w = world();
    const message = JSON.parse(envelope(w, 1).body) as EnvelopeMessage;
    // Written by the commit path as it was: no mark that its count is keyed by its run (counted in memory then).
    await appendToTable(writerOf(w.table), {
      tableId: A,
      metadata: { ...tableMetadataOf(await dataSetOf(w)), schema: envelopeSchema },
      rows: [{ batch: 'before', message }],
      deduplication: exactlyOncePerMessage(w.table.records, A, (row: StagedRow) => ({
        messageId: row.message.message_id,
        ingestedAt: firstIngestMs(row.message),
      })),
      attempt: 1,
      writeFiles: async (rows) => ({
        adds: [
          await fileOf(
            w,
            rows.map((row) => row.message.message_id),
          ),
        ],
        bytes: 1,
      }),
    });
    w.crashAt(null);
    await writeEnvelopeBatch(w.deps, [envelope(w, 1), envelope(w, 2)]);
    w.clock.now += 6 * minute;
    await w.deliverUntil(w.clock.now + 60 * minute);
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2)]);
    // Only the new commit's row: the earlier one's was counted when it was made.
    expect(w.figures()).toEqual({ written: 1, expired: 0, lost: 0, deadLettered: 0 });
  });
});

async function dataSetOf(w: World) {
  return (await w.deps.getDataSet(A)) as DataSet;
}

/** A data file of these ids, as the world's encoder writes them, added to the table's store. */
async function fileOf(w: World, ids: string[]): Promise<AddFile> {
  const path = `dt=2026-11-23/before-${ids.length}.parquet`;
  const bytes = Buffer.from(ids.join('\n'));
  await w.table.storage.put(path, bytes, 'application/octet-stream');
  return {
    path,
    partitionValues: { dt: '2026-11-23' },
    size: bytes.length,
    modificationTime: w.clock.now,
    dataChange: true,
    stats: JSON.stringify({ numRecords: ids.length }),
  };
}
