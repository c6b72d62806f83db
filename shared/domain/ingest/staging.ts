/**
 * Staging: accepted envelopes kept safe but not yet committed, so that a table is committed when it
 * has enough to commit — not once per queue batch. Thousands of quiet connections then cost a
 * commit per freshness target each, not one per event.
 *
 *   stage     the batch writer puts its whole batch (any number of data sets) into one object of
 *             the platform bucket, one contiguous slice per data set, and records the batch in one
 *             ledger item (which slices, how many rows, how old): two requests, whatever the batch
 *             holds. Then the batch is acknowledged.
 *   commit    a pass reads the ledger and commits every table that is due: its oldest staged row
 *             has reached the table's freshness target, or its staged bytes the size target. One
 *             commit holds everything staged for the table, from whichever batches, one file per
 *             day partition (and size bound). The pass records which (batch, table) pairs it
 *             committed, and retires a batch (its object and its item) once every table in it is
 *             committed. A pass reads each staged object it needs once, whole, however many of its
 *             tables it commits. The writer commits at once the tables its batch made due (a target
 *             of 0); a schedule runs the pass for the rest. The door's receipts the envelopes carry
 *             are raised as they are committed (shared/adapters/metrics.ts).
 *   fail      a table whose commit fails is tried again a visibility timeout later, as a queue
 *             would deliver it again; after five attempts, or at once when it can never succeed
 *             (its data set is gone), its staged
 *             envelopes go to the dead-letter queue with the last error, where they become failed
 *             deliveries (redrivable) exactly as envelopes that failed on the queue do.
 *
 * Exactly once: the table's own log is the record. Each commit names the staged batches it holds
 * (commitInfo `tributary.staged`), and the message ids it holds are recorded beside it; a pass
 * stopped between a commit and its records finds the commit in the log at the next pass, so rows
 * are never committed twice (delta/commit.ts). The ledger's own records only save
 * reading logs.
 */
import { randomUUID } from 'node:crypto';
import { type CommitTableDeps, commitTable, type StagedRow, TableGone } from './commit-table.ts';
import type { EnvelopeMessage } from './envelope.ts';

/** One data set's rows in a staged batch: bytes [offset, offset + length) of its object, as NDJSON. */
export interface StagedSlice {
  offset: number;
  length: number;
  rows: number;
  /** Milliseconds: the oldest `ingested_at` among the rows. */
  oldest: number;
  /** Raw payload bytes (payload_size) of the rows: what the size target counts. */
  bytes: number;
}

export interface StagedBatch {
  /** Sortable: the staging time, then a random part. */
  id: string;
  key: string;
  stagedAt: number;
  tables: Record<string, StagedSlice>;
}

/** Which tables a pass committed (or dead-lettered), per batch. */
export interface Coverage {
  id: string;
  pairs: Record<string, string[]>;
}

export interface TableFailure {
  attempts: number;
  lastError: string;
  /** Milliseconds: not tried again before. */
  nextAttemptAt: number;
}

export interface LedgerView {
  batches: StagedBatch[];
  coverage: Coverage[];
  failures: Map<string, TableFailure>;
}

/** What is staged for one table, as the stats and alarms show it. */
export interface StagedTotals {
  rows: number;
  bytes: number;
  /** Milliseconds: the oldest staged row's ingest time. */
  oldest: number;
}

export interface StagingLedger {
  addBatch(batch: StagedBatch): Promise<void>;
  /** Every batch not retired, every coverage record and every failure (strongly consistent). */
  read(): Promise<LedgerView>;
  addCoverage(coverage: Coverage): Promise<void>;
  retire(batchIds: string[], coverageIds: string[]): Promise<void>;
  setFailure(tableId: string, failure: TableFailure | null): Promise<void>;
  /** What each table has staged, as of this pass (the stats read it between passes). */
  writeTotals(totals: Map<string, StagedTotals>, asOfBatch: string | null): Promise<void>;
  /** The pass lease: true when taken (free, or expired); false while another pass holds it. */
  acquire(holder: string, until: number): Promise<boolean>;
  release(holder: string): Promise<void>;
}

export interface StagingObjects {
  put(key: string, body: Buffer): Promise<void>;
  read(key: string, offset: number, length: number): Promise<Buffer>;
  delete(keys: string[]): Promise<void>;
}

export interface StagingDeps extends CommitTableDeps {
  ledger: StagingLedger;
  objects: StagingObjects;
  /** Parses one staged slice: its lines, each a queue message's body (validated when it was staged). */
  parse(slice: Buffer): EnvelopeMessage[];
  /** Each table's freshness target in milliseconds (its table property, or the deployment's default). */
  freshness(tableIds: string[]): Promise<Map<string, number>>;
  /** A failed attempt, for the operator's figures and logs. */
  failed(tableId: string, rows: number, error: Error, attempt: number): void;
  /** A failure as a tenant may read it (a category or code, never what a store said). */
  describe(error: Error): string;
  /**
   * Raises the ingest door's counts to the receipts these envelopes carry (shared/adapters/metrics.ts):
   * called as envelopes leave staging (committed, dead-lettered), and at staging for tables whose
   * target is longer than `receiptsHeldAtMostMs`.
   */
  countReceipts(messages: EnvelopeMessage[]): void;
  /** How long a table whose commit failed waits before the next attempt (the ingest queue's visibility timeout). */
  retryMs: number;
  /** Staged bytes at which a table is due whatever its freshness; also what one commit reads at most. */
  sizeTarget: number;
  /** Bytes of staged rows one pass commits at most (the next pass goes on). */
  passBudget: number;
  /** Tables committed at the same time by one pass, and the staged bytes they may hold in memory together. */
  concurrency: number;
  inFlightBytes: number;
  /** Milliseconds after which a pass starts no more tables (the rest wait for the next pass). */
  passTimeMs: number;
  /** Milliseconds one table's commit may take before it counts as a failed attempt (a store that hangs). */
  tableTimeMs: number;
  /**
   * Milliseconds an invocation keeps after its last table to record what its pass did (failures,
   * coverage, retired batches, totals, the lease) before its time is up.
   */
  recordMs: number;
}

/** How many failed attempts before a table's staged envelopes become failed deliveries (the queue's five receives). */
export const maxCommitAttempts = 5;

/**
 * How long a receipt may wait in staging before it is raised. The shared counters take a raise of an
 * epoch up to 45 minutes old as it comes (older ones only raise what is still there, since the epoch
 * may have been folded): a table whose target is longer has its receipts raised at staging instead.
 */
export const receiptsHeldAtMostMs = 30 * 60_000;

const pad13 = (ms: number) => String(ms).padStart(13, '0');

/**
 * Stage a batch of envelopes.
 * Input: the queue messages' bodies with their parsed envelopes. Output: the staged batch.
 *  1. Group by data set; each data set's lines are one contiguous slice of the object.
 *  2. Put the object in the platform bucket, then its ledger item: once both are written the batch
 *     may be acknowledged (a failure before leaves it on the queue, which delivers it again).
 * The object's bytes come back with the batch: the writer's own pass commits from them rather than
 * reading back what it has just written.
 */
export async function stageEnvelopes(
  deps: Pick<StagingDeps, 'ledger' | 'objects' | 'now'>,
  envelopes: { body: string; message: EnvelopeMessage }[],
): Promise<{ batch: StagedBatch; bytes: Buffer }> {
  const byTable = new Map<string, { body: string; message: EnvelopeMessage }[]>();
  for (const envelope of envelopes) {
    const group = byTable.get(envelope.message.data_set_id);
    if (group) group.push(envelope);
    else byTable.set(envelope.message.data_set_id, [envelope]);
  }
  const stagedAt = deps.now();
  const id = `${pad13(stagedAt)}-${randomUUID().slice(0, 8)}`;
  const parts: Buffer[] = [];
  const tables: Record<string, StagedSlice> = {};
  let offset = 0;
  for (const [tableId, group] of byTable) {
    const bytes = Buffer.from(`${group.map((envelope) => envelope.body).join('\n')}\n`, 'utf8');
    parts.push(bytes);
    tables[tableId] = {
      offset,
      length: bytes.length,
      rows: group.length,
      oldest: Math.min(...group.map((envelope) => Number(BigInt(envelope.message.ingested_at_us) / 1000n))),
      bytes: group.reduce((sum, envelope) => sum + envelope.message.payload_size, 0),
    };
    offset += bytes.length;
  }
  const batch: StagedBatch = {
    id,
    key: `staging/${new Date(stagedAt).toISOString().slice(0, 10)}/${id}.ndjson`,
    stagedAt,
    tables,
  };
  const bytes = Buffer.concat(parts);
  await deps.objects.put(batch.key, bytes);
  await deps.ledger.addBatch(batch);
  return { batch, bytes };
}

export interface PendingTable {
  tableId: string;
  slices: { batch: StagedBatch; slice: StagedSlice }[];
  totals: StagedTotals;
}

function totalsOf(slices: { slice: StagedSlice }[]): StagedTotals {
  const totals: StagedTotals = { rows: 0, bytes: 0, oldest: Number.POSITIVE_INFINITY };
  for (const { slice } of slices) {
    totals.rows += slice.rows;
    totals.bytes += slice.bytes;
    totals.oldest = Math.min(totals.oldest, slice.oldest);
  }
  return totals;
}

/** The (batch, table) pairs not committed yet, per table, with their totals. */
export function pendingTables(view: Pick<LedgerView, 'batches' | 'coverage'>): Map<string, PendingTable> {
  const covered = new Set<string>();
  for (const record of view.coverage)
    for (const [batch, tables] of Object.entries(record.pairs))
      for (const table of tables) covered.add(`${batch} ${table}`);
  const pending = new Map<string, PendingTable>();
  for (const batch of view.batches) {
    for (const [tableId, slice] of Object.entries(batch.tables)) {
      if (covered.has(`${batch.id} ${tableId}`)) continue;
      let table = pending.get(tableId);
      if (!table) {
        table = { tableId, slices: [], totals: { rows: 0, bytes: 0, oldest: Number.POSITIVE_INFINITY } };
        pending.set(tableId, table);
      }
      table.slices.push({ batch, slice });
      table.totals.rows += slice.rows;
      table.totals.bytes += slice.bytes;
      table.totals.oldest = Math.min(table.totals.oldest, slice.oldest);
    }
  }
  return pending;
}

/** Reads a slice of a staged object. */
type SliceReader = (batch: StagedBatch, slice: StagedSlice) => Promise<Buffer>;

/** Staged objects up to this size are read whole by a pass that needs more than one of their slices. */
const wholeObjectMaxBytes = 1024 * 1024;
/** Whole objects a pass keeps at most, together, until the last table that needs each has read it. */
const wholeObjectsMaxBytes = 64 * 1024 * 1024;

/**
 * The pass's reads of staged objects. At sparse traffic one writer batch holds a slice of dozens of
 * tables, each committed by the same pass or a few: read as slices, that was a GET per table and
 * batch; an object the pass needs more than one slice of is read whole once (a GET costs the same
 * whatever its length) and kept until the last of them is read.
 */
export function passReader(objects: StagingObjects, tables: PendingTable[]): SliceReader {
  const wanted = new Map<string, number>();
  for (const table of tables)
    for (const { batch } of table.slices) wanted.set(batch.id, (wanted.get(batch.id) ?? 0) + 1);
  const whole = new Map<string, { bytes: Promise<Buffer>; size: number }>();
  let held = 0;
  return async (batch, slice) => {
    const left = (wanted.get(batch.id) ?? 1) - 1;
    wanted.set(batch.id, left);
    let cached = whole.get(batch.id);
    if (!cached) {
      const size = Math.max(...Object.values(batch.tables).map((entry) => entry.offset + entry.length));
      if (left === 0 || size > wholeObjectMaxBytes || held + size > wholeObjectsMaxBytes)
        return objects.read(batch.key, slice.offset, slice.length);
      cached = { bytes: objects.read(batch.key, 0, size), size };
      // A failed read is not kept: the next table that needs the object reads it again.
      cached.bytes.catch(() => {
        if (whole.get(batch.id) === cached) whole.delete(batch.id);
      });
      whole.set(batch.id, cached);
      held += size;
    }
    const bytes = await cached.bytes;
    if (left <= 0 && whole.get(batch.id) === cached) {
      whole.delete(batch.id);
      held -= cached.size;
    }
    return bytes.subarray(slice.offset, slice.offset + slice.length);
  };
}

async function readRows(deps: StagingDeps, read: SliceReader, table: PendingTable): Promise<StagedRow[]> {
  const slices = await Promise.all(
    table.slices.map(async ({ batch, slice }) =>
      // Each slice parsed as it arrives: the rows are kept, not the slice's text.
      deps.parse(await read(batch, slice)).map((message) => ({ batch: batch.id, message })),
    ),
  );
  return slices.flat();
}

export interface CommitReport {
  /** Tables committed, and those whose envelopes went to the dead-letter queue. */
  committed: string[];
  deadLettered: string[];
  failed: string[];
  written: number;
  skipped: number;
  expired: number;
  /** What stays staged after the pass. */
  staged: Map<string, StagedTotals>;
  /** Milliseconds the most overdue table is past its freshness target (0 when none is). */
  overdueMs: number;
  /** False when another pass held the lease (nothing was done). */
  ran: boolean;
}

/** A commit that takes longer than this is a failed attempt: the pass goes on with other tables. */
export class CommitTimedOut extends Error {
  constructor(ms: number) {
    super(`The commit did not finish within ${Math.round(ms / 1000)} s`);
    this.name = 'CommitTimedOut';
  }
}

/**
 * Waits for `work` at most `ms`. Work that runs on is told through its signal, and gives up before
 * its next step that would commit (a frozen instance thawed later must not commit then); a request
 * already sent may still land, and the next attempt finds its commit in the log, writing nothing twice.
 */
export function withinTime<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const abandon = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        const error = new CommitTimedOut(ms);
        abandon.abort(error);
        reject(error);
      },
      Math.max(0, ms),
    );
  });
  const running = work(abandon.signal);
  // Work that fails after the wait ended has nobody left to tell: it must not become an unhandled rejection.
  running.catch(() => undefined);
  return Promise.race([running, timeout]).finally(() => clearTimeout(timer));
}

/** The table's pending slices, oldest first, in runs of at most `sizeTarget` payload bytes (never empty). */
function chunksOf(table: PendingTable, sizeTarget: number): PendingTable[] {
  const chunks: PendingTable[] = [];
  const slices = [...table.slices].sort((a, b) => (a.batch.id < b.batch.id ? -1 : 1));
  for (const entry of slices) {
    let chunk = chunks.at(-1);
    if (!chunk || (chunk.slices.length > 0 && chunk.totals.bytes + entry.slice.bytes > sizeTarget)) {
      chunk = { tableId: table.tableId, slices: [], totals: { rows: 0, bytes: 0, oldest: Number.POSITIVE_INFINITY } };
      chunks.push(chunk);
    }
    chunk.slices.push(entry);
    chunk.totals.rows += entry.slice.rows;
    chunk.totals.bytes += entry.slice.bytes;
    chunk.totals.oldest = Math.min(chunk.totals.oldest, entry.slice.oldest);
  }
  return chunks;
}

/**
 * Commit one table's pending rows, a size target's worth per commit; on a failure, count the
 * attempt, and dead-letter the envelopes once attempts are exhausted (or the table is gone).
 * Answers the batches whose rows of this table are now in it (or dead-lettered).
 */
async function commitOne(
  deps: StagingDeps,
  read: SliceReader,
  table: PendingTable,
  failure: TableFailure | undefined,
  report: CommitReport,
  /** False for the writer's own commits: a failure there is left to the scheduled passes to count. */
  recordFailures: boolean,
  /** Milliseconds: no commit starts, or is waited for, past this (the invocation's end, less the time to record). */
  tablesUntil: number,
): Promise<string[]> {
  const attempt = (failure?.attempts ?? 0) + 1;
  const covered: string[] = [];
  let deadLettered = false;
  for (const [index, chunk] of chunksOf(table, deps.sizeTarget).entries()) {
    // The rest of a large table waits for the next pass: no failure, only later.
    if (index > 0 && deps.now() + deps.tableTimeMs > tablesUntil) break;
    const batches = chunk.slices.map(({ batch }) => batch.id);
    let rows: StagedRow[] = [];
    try {
      rows = await readRows(deps, read, chunk);
      const result = await withinTime(
        (signal) => commitTable(deps, table.tableId, rows, attempt, signal),
        Math.min(deps.tableTimeMs, tablesUntil - deps.now()),
      );
      deps.countReceipts(rows.map((row) => row.message));
      report.written += result.written;
      report.skipped += result.skipped;
      report.expired += result.expired;
      covered.push(...batches);
    } catch (error) {
      const cause = error as Error;
      deps.failed(table.tableId, chunk.totals.rows, cause, attempt);
      const exhausted = attempt >= maxCommitAttempts || cause instanceof TableGone;
      if (!recordFailures || rows.length === 0 || !exhausted) {
        if (recordFailures)
          await deps.ledger.setFailure(table.tableId, {
            attempts: attempt,
            lastError: deps.describe(cause).slice(0, 1000),
            nextAttemptAt: deps.now() + deps.retryMs,
          });
        report.failed.push(table.tableId);
        return covered;
      }
      // A message staged twice (the queue delivered it twice) is dead-lettered once.
      const messages = new Map(rows.map((row) => [row.message.message_id, row.message]));
      await deps.deadLetter(table.tableId, [...messages.values()], cause, attempt);
      deps.countReceipts(rows.map((row) => row.message));
      deadLettered = true;
      covered.push(...batches);
    }
  }
  if (failure) await deps.ledger.setFailure(table.tableId, null);
  (deadLettered ? report.deadLettered : report.committed).push(table.tableId);
  return covered;
}

/**
 * Runs `work` on the tables in order, `concurrency` at a time and within `inFlightBytes` of staged
 * bytes together (a table larger than that runs alone), starting none once `stop()` says so.
 */
async function runAll(
  tables: PendingTable[],
  limits: { concurrency: number; inFlightBytes: number; stop: () => boolean },
  work: (table: PendingTable) => Promise<void>,
): Promise<void> {
  let next = 0;
  let running = 0;
  let load = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (next < tables.length && running < limits.concurrency && !limits.stop()) {
        const table = tables[next] as PendingTable;
        const weight = table.totals.bytes;
        if (running > 0 && load + weight > limits.inFlightBytes) break;
        next++;
        running++;
        load += weight;
        work(table).then(() => {
          running--;
          load -= weight;
          pump();
        }, reject);
      }
      if (running === 0) resolve();
    };
    pump();
  });
}

/** How long a pass holds its lease at most: the table-commits function's time limit and a minute. */
const leaseMs = 6 * 60_000;

export interface CommitOptions {
  /**
   * Limit the pass to this batch's tables that are due at once (the writer, right after staging it,
   * with the staged object's bytes).
   */
  only?: { batch: StagedBatch; bytes: Buffer };
  /** Treat every staged table as due, whatever its freshness target (a graceful stop of local mode). */
  everything?: boolean;
  /**
   * When the invocation's time is up (milliseconds, by the deps' clock: its Lambda context's
   * remaining time). A table's commit starts only when its whole time (tableTimeMs) fits before this
   * less recordMs, so that what the pass did is recorded before the invocation ends.
   */
  deadline?: number;
}

/**
 * Commit the staged tables that are due.
 * Input: the ledger and the options above. Output: what was committed, what failed, what stays staged.
 *  1. A full pass takes the lease (one pass at a time) and reads the whole ledger.
 *  2. A table is due when its oldest staged row reached its freshness target or its staged bytes the
 *     size target, and it is not waiting after a failure; the oldest go first, within the budget,
 *     and tables that failed before after the others. A table starts only while the pass's time and
 *     the invocation's (less the time to record what it did) hold its whole commit time.
 *  3. Each due table is committed with everything staged for it (rows already in the table are
 *     skipped); one that fails is tried again later, and dead-lettered after the last attempt.
 *  4. The committed pairs are recorded; a batch whose tables are all committed is retired.
 */
export async function commitStaged(
  deps: StagingDeps,
  { only, everything = false, deadline = Number.POSITIVE_INFINITY }: CommitOptions = {},
): Promise<CommitReport> {
  const report: CommitReport = {
    committed: [],
    deadLettered: [],
    failed: [],
    written: 0,
    skipped: 0,
    expired: 0,
    staged: new Map(),
    overdueMs: 0,
    ran: true,
  };
  const holder = randomUUID();
  // One scheduled pass at a time. The writer's pass (`only`) touches only its own batch's tables, and
  // a graceful stop's pass is the last of its process, its schedule stopped: a lease still held then
  // is a killed pass's. Either way the tables' logs keep every row committed once.
  const leased = !only && !everything;
  if (leased && !(await deps.ledger.acquire(holder, deps.now() + leaseMs))) return { ...report, ran: false };
  try {
    const view: LedgerView = only
      ? { batches: [only.batch], coverage: [], failures: new Map() }
      : await deps.ledger.read();
    const pending = pendingTables(view);
    const freshness = await deps.freshness([...pending.keys()]);
    const now = deps.now();
    const due = [...pending.values()]
      .filter((table) => {
        const failure = view.failures.get(table.tableId);
        if (failure && failure.nextAttemptAt > now) return false;
        if (everything) return true;
        const target = freshness.get(table.tableId) ?? 0;
        return table.totals.oldest + target <= now || table.totals.bytes >= deps.sizeTarget;
      })
      .sort((a, b) => a.totals.oldest - b.totals.oldest);
    const chosen: PendingTable[] = [];
    let budget = deps.passBudget;
    for (const table of due) {
      if (chosen.length > 0 && table.totals.bytes > budget) continue;
      chosen.push(table);
      budget -= table.totals.bytes;
    }

    const newlyCovered: Record<string, string[]> = {};
    const tablesUntil = deadline - deps.recordMs;
    const limits = {
      concurrency: deps.concurrency,
      inFlightBytes: deps.inFlightBytes,
      stop: () => deps.now() - now > deps.passTimeMs || deps.now() + deps.tableTimeMs > tablesUntil,
    };
    const read: SliceReader = only
      ? async (_batch, slice) => only.bytes.subarray(slice.offset, slice.offset + slice.length)
      : passReader(deps.objects, chosen);
    const commit = async (table: PendingTable) => {
      const failure = view.failures.get(table.tableId);
      const covered = new Set(await commitOne(deps, read, table, failure, report, !only, tablesUntil));
      for (const batch of covered) newlyCovered[batch] = [...(newlyCovered[batch] ?? []), table.tableId];
      const left = table.slices.filter(({ batch }) => !covered.has(batch.id));
      if (left.length === 0) pending.delete(table.tableId);
      else pending.set(table.tableId, { ...table, slices: left, totals: totalsOf(left) });
    };
    // Tables whose stores failed before go last, two at a time: a store that fails slowly delays its
    // own tables, not everyone's.
    const failing = (table: PendingTable) => view.failures.has(table.tableId);
    await runAll(
      chosen.filter((table) => !failing(table)),
      limits,
      commit,
    );
    await runAll(chosen.filter(failing), { ...limits, concurrency: Math.min(2, deps.concurrency) }, commit);

    // Retire what is fully committed; record coverage only for batches that stay.
    const stillStaged = new Set<string>();
    for (const table of pending.values()) for (const { batch } of table.slices) stillStaged.add(batch.id);
    const retired = view.batches.filter((batch) => !stillStaged.has(batch.id));
    const kept = Object.fromEntries(Object.entries(newlyCovered).filter(([batch]) => stillStaged.has(batch)));
    if (Object.keys(kept).length > 0)
      await deps.ledger.addCoverage({ id: `${pad13(now)}-${holder.slice(0, 8)}`, pairs: kept });
    if (retired.length > 0) {
      const obsolete = view.coverage.filter((record) =>
        Object.keys(record.pairs).every((batch) => !stillStaged.has(batch)),
      );
      // The ledger first: an object it no longer names is only garbage (a lifecycle rule removes it).
      await deps.ledger.retire(
        retired.map((batch) => batch.id),
        obsolete.map((record) => record.id),
      );
      await deps.objects.delete(retired.map((batch) => batch.key));
    }
    for (const table of pending.values()) {
      report.staged.set(table.tableId, table.totals);
      const overdue = deps.now() - table.totals.oldest - (freshness.get(table.tableId) ?? 0);
      report.overdueMs = Math.max(report.overdueMs, overdue);
    }
    if (!only) {
      const newest = view.batches.reduce<string | null>(
        (max, batch) => (max === null || batch.id > max ? batch.id : max),
        null,
      );
      await deps.ledger.writeTotals(report.staged, newest);
    }
    return report;
  } finally {
    if (leased) await deps.ledger.release(holder);
  }
}
