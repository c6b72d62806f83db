/**
 * Staging and staged commits (shared/domain/ingest/staging.ts), the commit of one table
 * (shared/domain/ingest/commit-table.ts) and the batch writer's use case
 * (shared/domain/ingest/write-batch.ts), through in-memory ports: the ledger and the staged objects
 * in Maps, each table a Delta log in memory written through the adapter's envelope output and the
 * real commit path, its data files written as JSON lines so that the test reads back on its own what
 * the log references. A clock the test moves decides what is due.
 */
import { describe, expect, it, vi } from 'vitest';
import { committedView, envelopeOutput } from '#shared/adapters/delta-tables.ts';
import { parseStagedSlice } from '#shared/adapters/staged-rows.ts';
import { newDataSet } from '#shared/domain/datasets/model.ts';
import type { CommittedVersion } from '#shared/domain/datasets/table.ts';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { envelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { commitStaged, maxCommitAttempts } from '#shared/domain/ingest/staging.ts';
import { type BatchWriterDeps, type QueueRecord, writeEnvelopeBatch } from '#shared/domain/ingest/write-batch.ts';
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
  /** Maintenance runs asked for: the data set and when. */
  due: { tableId: string; at: string }[];
  rowsOf(tableId: string): string[];
  commitsOf(tableId: string): number;
}

/**
 * Tables with a freshness target each (5 minutes unless `freshness` says otherwise); a size target
 * of 1,000 payload bytes; the deployment's data retention `retentionMs` (none unless given).
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
  const due: World['due'] = [];
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
    ledger: staging.ledger,
    objects: staging.objects,
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
    async checkOut(keys) {
      for (const key of keys) claims.delete(key);
    },
    async markMaintenanceDue(dataSet, at) {
      due.push({ tableId: dataSet.data_set_id, at: at.toISOString() });
    },
    count(figure, labels, by) {
      const key = `${figure} ${JSON.stringify(labels)}`;
      figures.set(key, (figures.get(key) ?? 0) + by);
    },
    info: () => undefined,
    warn: () => undefined,
    async deadLetter(tableId, messages, error, attempts) {
      deadLettered.push({ tableId, ids: messages.map((m) => m.message_id), error: error.message, attempts });
    },
    failed: () => undefined,
    describe: (error) => `${error.name}: ${error.message}`,
    now: () => clock.now,
    retryMs: 10 * minute,
    sizeTarget: 1000,
    passBudget: 1_000_000,
    concurrency: 4,
    inFlightBytes: 1_000_000,
    passTimeMs: 60 * minute,
    tableTimeMs: minute,
    recordMs: 10_000,
    parseEnvelope: (body) => envelopeMessage.parse(JSON.parse(body)),
    countReceipts: (messages) => raised.push(...messages.map((message) => message.message_id)),
    recordFailures: async () => undefined,
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
    due,
    rowsOf,
    commitsOf,
  };
}

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

describe('staging a batch', () => {
  it('keeps a whole batch of many data sets in one object and one ledger item, and commits none while fresh', async () => {
    const w = world();
    const batch = [
      ...ids(1, 3).map((id) => record(w, A, id)),
      ...ids(4, 2).map((id) => record(w, B, id)),
      record(w, C, uuid(6)),
    ];
    const outcome = await writeEnvelopeBatch(w.deps, batch);
    expect(outcome).toMatchObject({ failedRecordIds: [], staged: 6 });
    expect(w.staging.requests).toMatchObject({ put: 1, addBatch: 1 });
    expect(w.staging.stored.size).toBe(1);
    const staged = [...w.staging.batches.values()][0];
    expect(Object.fromEntries(Object.entries(staged?.tables ?? {}).map(([id, slice]) => [id, slice.rows]))).toEqual({
      [A]: 3,
      [B]: 2,
      [C]: 1,
    });
    expect([w.commitsOf(A), w.commitsOf(B), w.commitsOf(C)]).toEqual([0, 0, 0]);
  });

  it('commits every staged table at once when asked for everything (a graceful stop), whatever its target', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(30)), record(w, B, uuid(31))]);
    expect((await commitStaged(w.deps)).committed).toEqual([]);
    // A pass killed earlier still holds the lease: the stop's pass does not wait for it.
    await w.staging.ledger.acquire('a killed pass', w.clock.now + minute);
    const pass = await commitStaged(w.deps, { everything: true });
    expect(pass.committed.sort()).toEqual([A, B]);
    expect([w.rowsOf(A), w.rowsOf(B)]).toEqual([[uuid(30)], [uuid(31)]]);
    expect(w.staging.batches.size).toBe(0);
  });

  it('commits a table once its oldest staged row reaches its freshness target, everything staged for it in one commit', async () => {
    const w = world();
    for (let i = 0; i < 4; i++) {
      await writeEnvelopeBatch(w.deps, [
        record(w, A, uuid(10 + i), { dt: i % 2 === 0 ? '2026-11-23' : '2026-11-22' }),
        record(w, B, uuid(20 + i)),
      ]);
      w.clock.now += minute;
    }
    expect((await commitStaged(w.deps)).committed).toEqual([]);
    w.clock.now += minute; // the first rows are now 5 minutes old
    const pass = await commitStaged(w.deps);
    expect(pass.committed.sort()).toEqual([A, B]);
    expect([w.commitsOf(A), w.commitsOf(B)]).toEqual([1, 1]);
    expect(w.rowsOf(A)).toEqual(ids(10, 4));
    // One file per day partition, whichever batches the rows came from.
    const files = [...(w.tables.get(A)?.objects.keys() ?? [])].filter((key) => key.startsWith('dt='));
    expect(files.map((key) => key.slice(0, 14)).sort()).toEqual(['dt=2026-11-22/', 'dt=2026-11-23/']);
    expect(w.staging.batches.size).toBe(0);
    expect(w.staging.stored.size).toBe(0);
  });

  it('commits at once, in the writer, a table whose target is 0, and leaves the others staged', async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    const outcome = await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1)), record(w, LATER, uuid(2))]);
    expect(outcome.committed?.committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(1)]);
    expect(w.rowsOf(LATER)).toEqual([]);
    // The batch stays for ds-later; a pass must not commit ds-now's rows again.
    expect(w.staging.batches.size).toBe(1);
    w.clock.now += 6 * minute;
    const pass = await commitStaged(w.deps);
    expect(pass.committed).toEqual([LATER]);
    expect([w.commitsOf(NOW), w.commitsOf(LATER)]).toEqual([1, 1]);
    expect(w.staging.batches.size).toBe(0);
    expect(w.staging.coverage.size).toBe(0);
  });

  it('commits a table at its size target before its freshness target, a size target per commit', async () => {
    const w = world();
    for (let i = 0; i < 5; i++)
      await writeEnvelopeBatch(w.deps, [
        record(w, BIG, uuid(100 + i), { bytes: 400 }),
        record(w, SMALL, uuid(200 + i)),
      ]);
    const pass = await commitStaged(w.deps);
    expect(pass.committed).toEqual([BIG]);
    // 2,000 bytes in three commits of at most 1,000 (two slices of 400 fit, a third does not).
    expect(w.commitsOf(BIG)).toBe(3);
    expect(w.rowsOf(BIG)).toEqual(ids(100, 5));
    expect(w.commitsOf(SMALL)).toBe(0);
    expect(pass.staged.get(SMALL)).toMatchObject({ rows: 5, bytes: 500 });
  });

  it('never writes a row twice: a batch staged twice (a redelivery), and a pass stopped after its commits', async () => {
    const w = world();
    const records = ids(1, 3).map((id) => record(w, A, id));
    await writeEnvelopeBatch(w.deps, records);
    await writeEnvelopeBatch(w.deps, [...records.slice(1), record(w, A, uuid(4))]);
    w.clock.now += 6 * minute;
    // The pass commits, then stops before it can record what it committed.
    const retire = w.staging.ledger.retire;
    w.staging.ledger.retire = async () => {
      throw new Error('stopped');
    };
    await expect(commitStaged(w.deps)).rejects.toThrow('stopped');
    w.staging.ledger.retire = retire;
    w.staging.lease = null;
    expect(w.rowsOf(A)).toEqual(ids(1, 4));
    const again = await commitStaged(w.deps);
    expect(again).toMatchObject({ written: 0, skipped: 6 });
    expect(w.rowsOf(A)).toEqual(ids(1, 4));
    expect(w.commitsOf(A)).toBe(1);
    expect(w.staging.batches.size).toBe(0);
  });

  it("holds back only a failing store's own table, tries it again later, and dead-letters it after the last attempt", async () => {
    const w = world();
    w.failing.add(BROKEN);
    await writeEnvelopeBatch(w.deps, [record(w, BROKEN, uuid(1)), record(w, FINE, uuid(2))]);
    w.clock.now += 6 * minute;
    const first = await commitStaged(w.deps);
    expect(first).toMatchObject({ committed: [FINE], failed: [BROKEN] });
    expect(w.staging.failures.get(BROKEN)).toMatchObject({
      attempts: 1,
      lastError: 'ServiceUnavailable: Injected fault',
    });
    // Not before the retry interval.
    expect((await commitStaged(w.deps)).failed).toEqual([]);
    for (let attempt = 2; attempt < maxCommitAttempts; attempt++) {
      w.clock.now += 10 * minute;
      expect((await commitStaged(w.deps)).failed).toEqual([BROKEN]);
    }
    expect(w.deadLettered).toEqual([]);
    w.clock.now += 10 * minute;
    const last = await commitStaged(w.deps);
    expect(last.deadLettered).toEqual([BROKEN]);
    expect(w.deadLettered).toEqual([{ tableId: BROKEN, ids: [uuid(1)], error: 'Injected fault', attempts: 5 }]);
    expect(w.staging.failures.size).toBe(0);
    expect(w.staging.batches.size).toBe(0);
    expect(w.rowsOf(FINE)).toEqual([uuid(2)]);
  });

  it('dead-letters at once the envelopes of a data set that no longer exists', async () => {
    const w = world({ gone: [GONE] });
    await writeEnvelopeBatch(w.deps, [record(w, GONE, uuid(1))]);
    w.clock.now += 6 * minute;
    expect((await commitStaged(w.deps)).deadLettered).toEqual([GONE]);
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
    const pass = await commitStaged(w.deps);
    expect(pass).toMatchObject({ committed: [A], failed: [], deadLettered: [], written: 2 });
    expect(w.rowsOf(A)).toEqual([uuid(1), uuid(2)]);
    expect(w.deadLettered).toEqual([
      { tableId: A, ids: [uuid(3)], error: 'The claim-checked payload no longer exists', attempts: 1 },
    ]);
    expect(w.claims.size).toBe(0);
    expect(w.staging.batches.size).toBe(0);
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
    const pass = await commitStaged(w.deps);
    expect(pass).toMatchObject({ written: 2, expired: 2, skipped: 0 });
    expect(pass.committed.sort()).toEqual([A, B]);
    expect([w.rowsOf(A), w.rowsOf(B)]).toEqual([[uuid(2), uuid(3)], []]);
    expect(Object.fromEntries(w.figures)).toEqual({
      [`envelopesWritten {"source_id":"s-${A}"}`]: 2,
      'batchesCommitted {}': 1,
      [`envelopesExpired {"source_id":"s-${A}"}`]: 1,
      [`envelopesExpired {"source_id":"s-${B}"}`]: 1,
    });
    // Nothing was committed for B: its envelopes are answered all the same.
    expect(w.staging.batches.size).toBe(0);
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

  it('starts no commit its invocation has no time left for, less the time to record it, and answers its batch', async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    // A minute for the commit and 10 s to record it are a millisecond more than the writer has left.
    const short = await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(1))], w.clock.now + minute + 10_000 - 1);
    expect(short).toMatchObject({ failedRecordIds: [], staged: 1, committed: { committed: [], failed: [] } });
    expect(w.rowsOf(NOW)).toEqual([]);
    expect([w.staging.batches.size, w.staging.failures.size]).toEqual([1, 0]);
    const enough = await writeEnvelopeBatch(w.deps, [record(w, NOW, uuid(2))], w.clock.now + minute + 10_000);
    expect(enough.committed?.committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(2)]);
    // The first batch's envelope waits staged for the schedule's pass.
    expect((await commitStaged(w.deps)).committed).toEqual([NOW]);
    expect(w.rowsOf(NOW)).toEqual([uuid(1), uuid(2)]);
  });

  it('leaves the tables a pass has no time left for to the next pass, neither failed nor half-recorded', async () => {
    const w = world({ commitTakesMs: 40_000 });
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
    w.clock.now += 1000;
    await writeEnvelopeBatch(w.deps, [record(w, B, uuid(2))]);
    w.clock.now += 6 * minute;
    // One table at a time; 100 s left: A starts at once and takes 40 s, after which a minute for B
    // and 10 s to record no longer fit.
    const deps = { ...w.deps, concurrency: 1 };
    const pass = await commitStaged(deps, { deadline: w.clock.now + 100_000 });
    expect(pass).toMatchObject({ committed: [A], failed: [], deadLettered: [] });
    expect([...pass.staged.keys()]).toEqual([B]);
    expect(w.staging.totals?.tables.get(B)).toMatchObject({ rows: 1 });
    expect([w.staging.batches.size, w.staging.failures.size]).toEqual([1, 0]);
    expect((await commitStaged(deps)).committed).toEqual([B]);
    expect([w.rowsOf(A), w.rowsOf(B)]).toEqual([[uuid(1)], [uuid(2)]]);
  });

  it('gives up a commit its pass stopped waiting for before it writes a version, even if its store answers later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const w = world();
      let answer: (() => void) | undefined;
      w.holding.set(A, new Promise<void>((resolve) => (answer = resolve)));
      await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1))]);
      w.clock.now += 6 * minute;
      const pass = commitStaged(w.deps);
      await vi.advanceTimersByTimeAsync(minute);
      expect(await pass).toMatchObject({ committed: [], failed: [A] });
      expect(w.staging.failures.get(A)).toMatchObject({
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
      w.clock.now += 10 * minute;
      expect((await commitStaged(w.deps)).committed).toEqual([A]);
      expect(w.rowsOf(A)).toEqual([uuid(1)]);
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
    w.clock.now += 5 * minute;
    await commitStaged(w.deps);
    expect(w.raised).toEqual([uuid(1)]);
    // The failing table is raised when its envelopes are dead-lettered after the last attempt.
    for (let attempt = 1; attempt <= maxCommitAttempts; attempt++) {
      w.clock.now += 31 * minute;
      await commitStaged(w.deps);
    }
    expect(w.deadLettered.map((entry) => entry.ids)).toEqual([[uuid(4)]]);
    expect(w.raised.sort()).toEqual([uuid(1), uuid(3), uuid(4)]);
  });

  it('reads a staged object once per pass however many of its tables the pass commits', async () => {
    const w = world();
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(1)), record(w, B, uuid(2)), record(w, C, uuid(3))]);
    w.clock.now += minute;
    await writeEnvelopeBatch(w.deps, [record(w, A, uuid(4)), record(w, B, uuid(5))]);
    w.clock.now += 5 * minute;
    const before = w.staging.requests['read slice'] ?? 0;
    const pass = await commitStaged(w.deps);
    expect(pass.committed.sort()).toEqual([A, B, C].sort());
    // Two objects, five slices: two reads.
    expect((w.staging.requests['read slice'] ?? 0) - before).toBe(2);
    expect([w.rowsOf(A), w.rowsOf(B), w.rowsOf(C)]).toEqual([[uuid(1), uuid(4)], [uuid(2), uuid(5)], [uuid(3)]]);
  });

  it('commits a table due at once from the bytes it staged, reading nothing back', async () => {
    const w = world({ freshness: { [NOW]: 0 } });
    const outcome = await writeEnvelopeBatch(w.deps, [
      record(w, NOW, uuid(1)),
      record(w, LATER, uuid(2)),
      record(w, NOW, uuid(3)),
    ]);
    expect(outcome.committed?.committed).toEqual([NOW]);
    expect(w.staging.requests['read slice'] ?? 0).toBe(0);
    expect(w.rowsOf(NOW)).toEqual([uuid(1), uuid(3)]);
    // The table left staged is read from the object by the scheduled pass, as before.
    w.clock.now += 5 * minute;
    await commitStaged(w.deps);
    expect(w.rowsOf(LATER)).toEqual([uuid(2)]);
    expect(w.staging.requests['read slice']).toBe(1);
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

  it('runs one pass at a time, and a quiet ledger costs one read', async () => {
    const w = world();
    const idle = await commitStaged(w.deps);
    expect(idle.ran).toBe(true);
    expect(w.staging.requests).toEqual({ read: 1, writeTotals: 1 });
    await w.staging.ledger.acquire('someone', w.clock.now + minute);
    expect((await commitStaged(w.deps)).ran).toBe(false);
  });
});

describe('the functions that commit staged tables', () => {
  it('have the time for a whole table commit and for recording it, the schedule after its whole pass too', async () => {
    const { stagingDeps } = await import('#shared/adapters/staged-commits.ts');
    const { consumers, schedules } = await import('#shared/topology.ts');
    const { tableTimeMs, recordMs, passTimeMs } = stagingDeps;
    expect(tableTimeMs + recordMs).toBeLessThan((consumers['ingest-writer']?.function.timeoutSeconds ?? 0) * 1000);
    expect(passTimeMs + tableTimeMs + recordMs).toBeLessThanOrEqual(
      (schedules['table-commits']?.function?.timeoutSeconds ?? 0) * 1000,
    );
  });
});
