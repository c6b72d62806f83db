/**
 * Committing what a table has staged (shared/domain/ingest/staging.ts), when a commit trigger for it
 * arrives: each table on its own, when its own freshness or size target says, by as many committers
 * as there are triggers; a large table by up to `maxTableCommitters` at once, each on a run of
 * records it leases in the table's head, so that a hot table commits several size targets at a time.
 */
import { type ByteBudget, forEachAtMost } from '../at-most.ts';
import {
  type CommitTableDeps,
  type CountedCommit,
  commitTable,
  finishCommit,
  type StagedRow,
  TableGone,
} from './commit-table.ts';
import type { EnvelopeMessage } from './envelope.ts';
import {
  type ChunkLease,
  type CommitTrigger,
  type CommitTriggers,
  largeTableShare,
  maxCommitAttempts,
  maxTableCommitters,
  recordTime,
  StagedObjectGone,
  type StagedRecord,
  type StagedRecords,
  type StagedTotals,
  type StagingHead,
  type StagingObjects,
  type TableFailure,
  totalsOf,
  wholeObject,
  writerLifetimeMs,
} from './staging.ts';

/** A commit that takes longer than this is a failed attempt: the committer goes on with other tables. */
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

/** Reads a record's slice of its staged object. */
export type SliceReader = (record: StagedRecord) => Promise<Buffer>;

export interface CommitStagedDeps extends CommitTableDeps {
  records: StagedRecords;
  /** The staged objects: a committer removes those that held only the table's records it committed. */
  objects: StagingObjects;
  triggers: CommitTriggers;
  /** Parses one staged slice: its lines, each a queue message's body (validated when it was staged). */
  parse(slice: Buffer): EnvelopeMessage[];
  /** Each table's freshness target in milliseconds (its table property, or the deployment's default). */
  freshness(tableIds: string[]): Promise<Map<string, number>>;
  /** A failed attempt, for the operator's figures and logs. */
  failed(tableId: string, rows: number, error: Error, attempt: number): void;
  /** A failure as a tenant may read it (a category or code, never what a store said). */
  describe(error: Error): string;
  /**
   * Whether a failure is one of the platform's own dependencies (the table, the queues, the platform
   * bucket) slow, throttling or failing for a while: it costs the envelopes no attempt.
   */
  dependencyFailed(error: Error): boolean;
  /**
   * Raises the ingest door's counts to the receipts these envelopes carry (shared/adapters/metrics.ts):
   * called as envelopes leave staging (committed, dead-lettered), and at staging for tables whose
   * target is longer than `receiptsHeldAtMostMs`.
   */
  countReceipts(messages: EnvelopeMessage[]): void;
  /**
   * Writes now the counts of the sources of what was just committed or dead-lettered (the door's
   * receipts; rows written, expired and lost are counted once at once, and the dead-letter recorder
   * counts dead letters), before the table's records are let go: an invocation that ends before it
   * answers (a crash, its memory, a timeout) then loses none of them for the tables it committed
   * before. Never rejects: counts it could not write stay for the next write.
   */
  settleCounts(): Promise<void>;
  /** How long a table whose commit failed waits before the next attempt (the ingest queue's visibility timeout). */
  retryMs: number;
  /** Staged bytes at which a table is due whatever its freshness; also what one commit holds at most. */
  sizeTarget: number;
  /** Milliseconds one commit may take before it counts as a failed attempt (a store that hangs). */
  tableTimeMs: number;
  /** Milliseconds an invocation keeps after its last commit to record what it did before its time is up. */
  recordMs: number;
}

export interface TableReport {
  /** committed: rows written (or found written); deadLettered: sent to the dead-letter queue after the last
   * attempt; failed: an attempt failed, tried again later; waiting: not due, its trigger sent for when it is;
   * covered: not due, and a trigger already comes in time; busy: other committers hold every record, or every
   * lease, of it; idle: nothing staged. */
  outcome: 'committed' | 'deadLettered' | 'failed' | 'waiting' | 'covered' | 'busy' | 'idle';
  written: number;
  skipped: number;
  expired: number;
}

export interface CommitReport {
  committed: string[];
  deadLettered: string[];
  failed: string[];
  /** Tables whose handling threw: their trigger sent again for a retry delay later. */
  retried: string[];
  /** Tables not due yet (their trigger sent again, or one already on its way). */
  waiting: number;
  written: number;
  skipped: number;
  expired: number;
}

export function emptyReport(): CommitReport {
  return { committed: [], deadLettered: [], failed: [], retried: [], waiting: 0, written: 0, skipped: 0, expired: 0 };
}

export function addToReport(report: CommitReport, tableId: string, table: TableReport): void {
  if (table.outcome === 'committed') report.committed.push(tableId);
  else if (table.outcome === 'deadLettered') report.deadLettered.push(tableId);
  else if (table.outcome === 'failed') report.failed.push(tableId);
  else if (table.outcome !== 'idle') report.waiting++;
  report.written += table.written;
  report.skipped += table.skipped;
  report.expired += table.expired;
}

export interface CommitOptions {
  /** When the invocation's time is up (milliseconds, by the deps' clock). */
  deadline: number;
  /** Commit whatever is staged, due or not (a graceful stop of local mode). */
  everything?: boolean;
  /** Who commits: the holder of the leases it takes (one run of a large table at a time). */
  holder: string;
  read: SliceReader;
  /**
   * What the commits running side by side in this invocation may hold in memory at once, in staged
   * payload bytes (a commit holds its rows and their files while it encodes them): a chunk waits for
   * its share rather than run the function out of memory. None: its caller holds its bytes already.
   */
  memory?: ByteBudget;
}

/** When rows with these totals are due: their oldest row's freshness target, or now at the size target. */
function dueOf(totals: StagedTotals, target: number, sizeTarget: number, now: number): number {
  return totals.bytes >= sizeTarget ? now : totals.oldest + target;
}

/** The records, oldest first, in runs of at most `sizeTarget` payload bytes (never empty). */
function chunksOf(records: StagedRecord[], sizeTarget: number): StagedRecord[][] {
  const chunks: StagedRecord[][] = [];
  let bytes = 0;
  for (const record of records) {
    const chunk = chunks.at(-1);
    if (!chunk || (chunk.length > 0 && bytes + record.bytes > sizeTarget)) {
      chunks.push([record]);
      bytes = record.bytes;
    } else {
      chunk.push(record);
      bytes += record.bytes;
    }
  }
  return chunks;
}

/**
 * The records' rows. A record whose object is gone was committed by another committer meanwhile
 * (it removes a table's own object only once the record is done): it has no rows left to commit.
 * One still pending lost its object some other way (a deletion under the bucket's staging prefix, a
 * shorter lifecycle rule): StagedObjectGone, an attempt failed. At the last attempt its rows are
 * lost, for good: it is set aside (done with the others, its rows never written), loudly, so that
 * the rest of the table goes on; the caller counts them (EnvelopesLost) once the chunk is done.
 */
async function readRows(
  deps: CommitStagedDeps,
  tableId: string,
  read: SliceReader,
  records: StagedRecord[],
  attempt: number,
  lost: StagedRecord[],
): Promise<StagedRow[]> {
  const gone: StagedRecord[] = [];
  const unreadable: StagedRecord[] = [];
  const slices = await Promise.all(
    // Each slice parsed as it arrives: the rows are kept, not the slice's text.
    records.map(async (record) => {
      try {
        return deps.parse(await read(record)).map((message) => ({ batch: record.id, message }));
      } catch (error) {
        if (error instanceof StagedObjectGone) {
          gone.push(record);
          return [];
        }
        // A slice that will not read or parse (not the platform's own dependency failing, which counts no attempt)
        // fails the attempt; at the last, it is set aside as lost, so that it does not hold the table until its
        // record expires unseen.
        if (attempt < maxCommitAttempts || deps.dependencyFailed(error as Error)) throw error;
        unreadable.push(record);
        return [];
      }
    }),
  );
  const setAside = (records: StagedRecord[], why: string) => {
    lost.push(...records);
    for (const record of records)
      deps.warn(`Staged envelopes lost: ${why}; set aside so that the table goes on`, {
        data_set_id: tableId,
        key: record.key,
        envelopes: record.rows,
        attempts: attempt,
      });
  };
  setAside(unreadable, 'their slice cannot be read');
  if (gone.length > 0) {
    const head = await deps.records.head(tableId);
    const pending = new Set((await deps.records.pending(tableId, head.through)).map((record) => record.id));
    const stillPending = gone.filter((record) => pending.has(record.id));
    if (stillPending.length > 0 && attempt < maxCommitAttempts)
      throw new StagedObjectGone((stillPending[0] as StagedRecord).key);
    setAside(stillPending, 'their object is gone');
  }
  return slices.flat();
}

/**
 * Counts the rows of records set aside as lost, by source (EnvelopesLost, which the loss account takes
 * like rows left out past the retention, and an alarm watches), once per record whatever retries
 * follow: a committer that ends after counting and before its head's write leaves the record to the
 * next, which finds it lost again. A record staged before records named their sources counts as its
 * table's source, or 'unknown' when the table has none. A count that fails fails the table's handling
 * (its trigger sent again): the record stays, to be counted by the retry.
 */
async function countLost(deps: CommitStagedDeps, tableId: string, lost: StagedRecord[]): Promise<void> {
  let tableSource: string | undefined;
  for (const record of lost) {
    let sources = record.sources;
    if (!sources) {
      if (tableSource === undefined) {
        const dataSet = await deps.getDataSet(tableId).catch(() => null);
        tableSource = dataSet?.origin.type === 'Webhook' ? dataSet.origin.source_id : 'unknown';
      }
      sources = { [tableSource]: record.rows };
    }
    await deps.countOnce(
      `lost#${tableId}#${record.id}`,
      Object.entries(sources).map(([source, rows]) => ({
        metric: 'envelopesLost',
        labels: { source_id: source },
        by: rows,
      })),
    );
  }
}

/** The trigger's arrival for a table due at `dueAt`: then, or as late as the queue can delay it. */
export function arrivalFor(triggers: Pick<CommitTriggers, 'maxDelayMs'>, dueAt: number, now: number): number {
  return Math.max(now, Math.min(dueAt, now + triggers.maxDelayMs));
}

/**
 * What a commit of some of the table's records did: which records are done, the failure it met, and
 * what it wrote.
 */
interface Committed {
  done: Set<string>;
  failure: TableFailure | null;
  /** Something was committed or dead-lettered: a failure recorded before is over. */
  progressed: boolean;
  deadLettered: boolean;
  written: number;
  skipped: number;
  expired: number;
  /** Staged objects that held only done records of this table. */
  objects: Set<string>;
}

/**
 * Commits the records, a size target's worth per commit, oldest first, while the invocation has time
 * for a whole commit and for recording it; a failure stops it (the attempt counted, or the envelopes
 * dead-lettered after the last attempt, or at once when the table is gone).
 */
async function commitRecords(
  deps: CommitStagedDeps,
  tableId: string,
  records: StagedRecord[],
  previous: TableFailure | null,
  options: CommitOptions,
  into: Committed,
): Promise<void> {
  const attempt = (previous?.attempts ?? 0) + 1;
  const until = options.deadline - deps.recordMs;
  for (const chunk of chunksOf(records, deps.sizeTarget)) {
    if (deps.now() + deps.tableTimeMs > until) return;
    let rows: StagedRow[] = [];
    const lost: StagedRecord[] = [];
    let finished: Pick<CountedCommit, 'once' | 'claims'> = { once: [], claims: [] };
    // The chunk's share of the invocation's memory, given back once its commit has ended: a commit
    // this committer stopped waiting for still holds its rows and files until it sees the abort.
    const release = options.memory ? await options.memory.take(totalsOf(chunk).bytes) : () => undefined;
    const commit: { running?: Promise<unknown> } = {};
    try {
      // Its share of memory may have come late: the whole commit must still fit in the time left.
      if (deps.now() + deps.tableTimeMs > until) return;
      rows = await readRows(deps, tableId, options.read, chunk, attempt, lost);
      const result = await withinTime(
        (signal) => {
          const running = commitTable(deps, tableId, rows, attempt, signal);
          commit.running = running;
          return running;
        },
        Math.min(deps.tableTimeMs, until - deps.now()),
      );
      deps.countReceipts(rows.map((row) => row.message));
      finished = result;
      into.written += result.written;
      into.skipped += result.skipped;
      into.expired += result.expired;
    } catch (error) {
      const cause = error as Error;
      const rowCount = rows.length || chunk.reduce((sum, record) => sum + record.rows, 0);
      deps.failed(tableId, rowCount, cause, attempt);
      // The platform's own dependency failing is no fault of the envelopes or their store: the table
      // waits the retry delay as after an attempt, and a minutes-long slowdown dead-letters nothing.
      const counted = !deps.dependencyFailed(cause);
      const exhausted = counted && (attempt >= maxCommitAttempts || cause instanceof TableGone);
      if (rows.length === 0 || !exhausted) {
        into.failure = {
          attempts: counted ? attempt : attempt - 1,
          lastError: deps.describe(cause).slice(0, 1000),
          nextAttemptAt: deps.now() + deps.retryMs,
        };
        return;
      }
      // A message staged twice (the queue delivered it twice) is dead-lettered once.
      const messages = new Map(rows.map((row) => [row.message.message_id, row.message]));
      await deps.deadLetter(tableId, [...messages.values()], cause, attempt);
      deps.countReceipts(rows.map((row) => row.message));
      into.deadLettered = true;
    } finally {
      if (commit.running) commit.running.then(release, release);
      else release();
    }
    // The chunk is done now: what it wrote, left out and set aside is counted, each once (a count
    // that fails fails the table's handling, and the retry finds the same to count), then its
    // claim checks go.
    await finishCommit(deps, tableId, finished);
    if (lost.length > 0) await countLost(deps, tableId, lost);
    // Within the commit's own time: the reserve after it is for recording the commit.
    await withinTime(() => deps.settleCounts(), until - deps.now()).catch(() => undefined);
    into.progressed = true;
    for (const record of chunk) {
      into.done.add(record.id);
      if (wholeObject(record)) into.objects.add(record.key);
    }
  }
}

/**
 * The watermark after a commit: it passes done records in order, up to the first not done, and
 * none written less than `writerLifetimeMs` before `readAt` (an older record may still appear until
 * then). Done records it does not pass are deleted instead.
 */
export function advance(
  through: string | null,
  records: StagedRecord[],
  done: ReadonlySet<string>,
  readAt: number,
): string | null {
  let next = through;
  for (const record of records) {
    if (!done.has(record.id) || recordTime(record.id) >= readAt - writerLifetimeMs) break;
    next = record.id;
  }
  return next;
}

/** The later of two watermarks. */
const laterOf = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * Writes the head as `change` makes it from the head as it is now: at once when nobody wrote it since
 * `read`, else from the head read again (a writer listed the table meanwhile).
 */
async function settleHead(
  deps: Pick<CommitStagedDeps, 'records'>,
  tableId: string,
  read: StagingHead,
  change: (current: StagingHead, changedSinceRead: boolean) => Omit<StagingHead, 'version'>,
): Promise<void> {
  let current = read;
  for (let attempt = 0; attempt < 8; attempt++) {
    const changed = current.version !== read.version;
    if (await deps.records.replaceHead(tableId, current.version, change(current, changed))) return;
    current = await deps.records.head(tableId);
  }
  throw new Error(`The staging head of ${tableId} kept changing`);
}

/**
 * After the table was taken off the index: records written since the committer read it (by a writer
 * that found it still listed, its own trigger on its way) get a trigger and the listing back, so that
 * no table with rows staged is left off the index.
 */
async function relistLate(
  deps: CommitStagedDeps,
  tableId: string,
  through: string | null,
  done: ReadonlySet<string>,
  target: () => Promise<number>,
): Promise<void> {
  const late = (await deps.records.pending(tableId, through)).filter((record) => !done.has(record.id));
  if (late.length === 0) return;
  const now = deps.now();
  const dueAt = dueOf(totalsOf(late), await target(), deps.sizeTarget, now);
  const at = arrivalFor(deps.triggers, dueAt, now);
  await deps.triggers.send([{ tableId, at }]);
  await deps.records.listPending(tableId, { dueAt, triggerAt: at }, now);
}

/** The same failure: nobody recorded another since it was read. */
const sameFailure = (a: TableFailure | null, b: TableFailure | null) =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.attempts === b.attempts &&
    a.nextAttemptAt === b.nextAttemptAt &&
    a.lastError === b.lastError);

/** The same lease: one committer's, on the same run. */
const sameLease = (a: ChunkLease, b: ChunkLease | null) =>
  b !== null && a.holder === b.holder && a.first === b.first && a.last === b.last;

/** The leases still held at `now`, but for `mine` (expired ones count for nothing). */
const othersOf = (leases: readonly ChunkLease[], now: number, mine: ChunkLease | null) =>
  leases.filter((lease) => lease.until > now && !sameLease(lease, mine));

const coveredBy = (leases: readonly ChunkLease[], id: string) =>
  leases.some((lease) => lease.first <= id && id <= lease.last);

/**
 * The first run of free records in the table's order (up to a record another committer holds), a
 * size target's worth at most: a run of its own, whose ids no other lease's range reaches into.
 */
function firstRun(pending: readonly StagedRecord[], free: ReadonlySet<string>, sizeTarget: number): StagedRecord[] {
  const run: StagedRecord[] = [];
  for (const record of pending) {
    if (free.has(record.id)) run.push(record);
    else if (run.length > 0) break;
  }
  return chunksOf(run, sizeTarget)[0] ?? [];
}

/** What a committer last read of the table: its head, its records above its watermark, and when. */
interface TableRead {
  head: StagingHead;
  pending: StagedRecord[];
  readAt: number;
}

interface Taken extends TableRead {
  /** The run leased, and the lease (the head as read carries it, at its version plus one). */
  chunk: StagedRecord[];
  lease: ChunkLease;
  /** Enough free records are left, due, for another committer, and a lease for it. */
  more: boolean;
}

/** How many times a committer reads a large table again after losing the race for its head. */
const takeAttempts = 4;

/**
 * Leases this committer the first run of the table's free records (in no other live lease, not done
 * by it), in place of the run it held, and moves the watermark in the same write. Written at the
 * head's version; a lost race reads the table again and tries again, a few times. Null: every lease
 * is held, nothing is free, or what is free is not `wanted` now.
 */
async function takeChunk(
  deps: CommitStagedDeps,
  tableId: string,
  read: TableRead,
  held: { mine: ChunkLease | null; watermark: string | null; done: ReadonlySet<string> },
  options: { holder: string; until: number },
  wanted: (free: StagedRecord[], head: StagingHead, now: number) => boolean,
  freeDue: (free: StagedRecord[], now: number) => boolean,
): Promise<Taken | null> {
  let { head, pending, readAt } = read;
  for (let attempt = 1; ; attempt++) {
    const now = deps.now();
    const others = othersOf(head.leases, now, held.mine);
    const free = pending.filter((record) => !held.done.has(record.id) && !coveredBy(others, record.id));
    if (others.length >= maxTableCommitters || free.length === 0 || !wanted(free, head, now)) return null;
    const chunk = firstRun(pending, new Set(free.map((record) => record.id)), deps.sizeTarget);
    const lease: ChunkLease = {
      holder: options.holder,
      until: options.until,
      first: (chunk[0] as StagedRecord).id,
      last: (chunk.at(-1) as StagedRecord).id,
    };
    const { version, ...rest } = head;
    const written = { ...rest, through: laterOf(head.through, held.watermark), leases: [...others, lease] };
    if (await deps.records.replaceHead(tableId, version, written)) {
      const inChunk = new Set(chunk.map((record) => record.id));
      const left = free.filter((record) => !inChunk.has(record.id));
      const more = others.length + 1 < maxTableCommitters && left.length > 0 && freeDue(left, now);
      return { chunk, lease, more, head: { ...written, version: version + 1 }, pending, readAt };
    }
    if (attempt >= takeAttempts) return null;
    readAt = deps.now();
    head = await deps.records.head(tableId);
    pending = await deps.records.pending(tableId, laterOf(head.through, held.watermark));
  }
}

/**
 * Handle one table's commit trigger.
 * Input: the table, when the triggers that arrived for it were meant to, the options. Output: what
 * became of it.
 *  1. Read the table's head and its records above the watermark. Nothing staged: the table is no
 *     longer listed as pending. Every record in runs other committers hold: dropped (each holder
 *     reads the table again as it lets go).
 *  2. Due: its free records' oldest row reached its freshness target, or their bytes the size
 *     target, and it is not waiting after a failure. Not due: the trigger is sent again for when it
 *     is, unless a trigger already comes no later (then this one is dropped).
 *  3. A large table (or one other committers hold runs of) is committed a run at a time: the
 *     committer leases the first run of free records, a size target's worth, beside at most
 *     `maxTableCommitters` - 1 others; all leases taken: dropped. When another size target's worth
 *     (or rows due) is left free and a lease with it, it sends a trigger at once, so that another
 *     committer joins. After each run it reads the table again and takes the next, while time
 *     remains and what is free was in a read that found the table due, or is due.
 *  4. Rows are committed a size target's worth per commit (a small table: everything staged); rows
 *     already in the table are skipped. A failure counts an attempt (tried again a retry delay
 *     later); the last attempt dead-letters the envelopes.
 *  5. The watermark moves past what this committer did, in order up to the first record not done
 *     (deleting, before its run's lease goes, done records it cannot pass: a record another
 *     committer holds stops it). It lets go of its own lease only, reads the table again, and what
 *     remains gets a trigger for when it is due; the listing in the index follows.
 */
export async function commitStagedTable(
  deps: CommitStagedDeps,
  tableId: string,
  /** When the triggers that arrived for the table were meant to arrive (none: a graceful stop's commit of everything). */
  arrived: readonly number[],
  options: CommitOptions,
): Promise<TableReport> {
  const report: TableReport = { outcome: 'idle', written: 0, skipped: 0, expired: 0 };
  const readAt = deps.now();
  const head = await deps.records.head(tableId);
  const pending = await deps.records.pending(tableId, head.through);
  if (pending.length === 0) {
    await unlistEmptyTable(deps, tableId, head);
    return report;
  }
  const target = (await deps.freshness([tableId])).get(tableId) ?? 0;
  const now = deps.now();
  const others = othersOf(head.leases, now, null);
  const free = pending.filter((record) => !coveredBy(others, record.id));
  if (free.length === 0) return { ...report, outcome: 'busy' };
  const notDue = await waitUntilDue(deps, tableId, head, {
    free,
    target,
    now,
    arrived,
    everything: options.everything,
  });
  if (notDue) return { ...report, outcome: notDue };

  const progress = startCommitting({ head, pending, readAt });
  const leased = totalsOf(pending).bytes >= deps.sizeTarget / largeTableShare || others.length > 0;
  if (!leased) await commitWholeTable(deps, tableId, progress, options);
  else if (!(await commitRuns(deps, tableId, progress, target, options))) return { ...report, outcome: 'busy' };
  await letGoAndReadAgain(deps, tableId, progress);
  return settleTable(deps, tableId, progress, target, options.deadline);
}

/** Step 1, nothing staged: the table is no longer listed as pending (unless a writer listed it since), and shows no failure. */
async function unlistEmptyTable(deps: CommitStagedDeps, tableId: string, head: StagingHead): Promise<void> {
  let unlisted = false;
  if (head.dueAt !== null || head.triggerAt !== null || head.failure !== null)
    await settleHead(deps, tableId, head, (current, changed) => {
      unlisted = !changed && current.dueAt !== null;
      return { ...current, failure: null, ...(changed ? {} : { dueAt: null, triggerAt: null }) };
    });
  if (unlisted)
    await relistLate(
      deps,
      tableId,
      head.through,
      new Set(),
      async () => (await deps.freshness([tableId])).get(tableId) ?? 0,
    );
}

/**
 * Step 2: null when the table's free records are due. Not due: the trigger is sent again for when
 * they are ('waiting'), unless a trigger already comes no later ('covered': this one is dropped).
 */
async function waitUntilDue(
  deps: CommitStagedDeps,
  tableId: string,
  head: StagingHead,
  table: { free: StagedRecord[]; target: number; now: number; arrived: readonly number[]; everything?: boolean },
): Promise<'waiting' | 'covered' | null> {
  const { now } = table;
  const rowsDue = dueOf(totalsOf(table.free), table.target, deps.sizeTarget, now);
  const waitUntil = Math.max(table.everything ? now : rowsDue, head.failure?.nextAttemptAt ?? 0);
  if (waitUntil <= now + deps.triggers.earlyMs) return null;
  const named = head.triggerAt;
  if (named !== null && named > now && named <= waitUntil && !table.arrived.includes(named)) return 'covered';
  const at = arrivalFor(deps.triggers, waitUntil, now);
  await deps.triggers.send([{ tableId, at }]);
  await settleHead(deps, tableId, head, (current, changed) =>
    changed && current.triggerAt !== null && current.triggerAt > now && current.triggerAt <= at
      ? current
      : { ...current, dueAt: rowsDue, triggerAt: at },
  );
  return 'waiting';
}

/** A committer's progress through a due table: what it last read, what it did, its watermark and its lease. */
interface Progress extends TableRead {
  committed: Committed;
  /** The failure the first read found: over only if no other committer met one meanwhile. */
  readFailure: TableFailure | null;
  watermark: string | null;
  mine: ChunkLease | null;
  /** Done records deleted already. */
  removed: Set<string>;
}

function startCommitting(read: TableRead): Progress {
  return {
    ...read,
    committed: {
      done: new Set(),
      failure: null,
      progressed: false,
      deadLettered: false,
      written: 0,
      skipped: 0,
      expired: 0,
      objects: new Set(),
    },
    readFailure: read.head.failure,
    watermark: read.head.through,
    mine: null,
    removed: new Set(),
  };
}

/** Done records the watermark does not pass are deleted: no commit reads them again. */
async function removeDone(deps: CommitStagedDeps, tableId: string, progress: Progress): Promise<void> {
  const { watermark, removed } = progress;
  const ids = [...progress.committed.done].filter((id) => (watermark === null || id > watermark) && !removed.has(id));
  if (ids.length > 0) await deps.records.remove(tableId, ids);
  for (const id of ids) removed.add(id);
}

/** Step 4 for a small table that no other committer holds runs of: everything staged, without a lease. */
async function commitWholeTable(
  deps: CommitStagedDeps,
  tableId: string,
  progress: Progress,
  options: CommitOptions,
): Promise<void> {
  await commitRecords(deps, tableId, progress.pending, progress.head.failure, options, progress.committed);
  progress.watermark = advance(progress.watermark, progress.pending, progress.committed.done, progress.readAt);
}

/**
 * Steps 3 and 4 for a large table: a leased run at a time, while time remains and what is free is
 * wanted. False: nothing was taken while there was time (other committers hold the table's leases,
 * or its free records).
 */
async function commitRuns(
  deps: CommitStagedDeps,
  tableId: string,
  progress: Progress,
  target: number,
  options: CommitOptions,
): Promise<boolean> {
  const { committed } = progress;
  const until = options.deadline - deps.recordMs;
  const freeDue = (records: StagedRecord[], at: number) =>
    dueOf(totalsOf(records), target, deps.sizeTarget, at) <= at + deps.triggers.earlyMs;
  // Records of a read that found the table due are committed whether or not they are due alone.
  let dueThrough: string | null = null;
  const wanted = (records: StagedRecord[], current: StagingHead, at: number) => {
    if ((current.failure?.nextAttemptAt ?? 0) > at + deps.triggers.earlyMs) return false;
    if (options.everything || freeDue(records, at)) dueThrough = laterOf(dueThrough, records.at(-1)?.id ?? null);
    return dueThrough !== null && (records[0] as StagedRecord).id <= dueThrough;
  };
  let read: TableRead | null = { head: progress.head, pending: progress.pending, readAt: progress.readAt };
  while (deps.now() + deps.tableTimeMs <= until) {
    read ??= await readTableAgain(deps, tableId, progress.watermark);
    const taken = await takeChunk(
      deps,
      tableId,
      read,
      { mine: progress.mine, watermark: progress.watermark, done: committed.done },
      { holder: options.holder, until: options.deadline },
      wanted,
      freeDue,
    );
    read = null;
    if (!taken) break;
    ({ head: progress.head, pending: progress.pending, readAt: progress.readAt } = taken);
    progress.mine = taken.lease;
    progress.watermark = progress.head.through;
    if (taken.more) await deps.triggers.send([{ tableId, at: deps.now() }]);
    const before = committed.done.size;
    await commitRecords(deps, tableId, taken.chunk, committed.failure ?? progress.head.failure, options, committed);
    progress.watermark = advance(progress.watermark, progress.pending, committed.done, progress.readAt);
    // Before its lease goes: a run left done and not deleted would be free for another to commit again.
    await removeDone(deps, tableId, progress);
    if (committed.failure || committed.done.size - before < taken.chunk.length) break;
  }
  return progress.mine !== null || deps.now() + deps.tableTimeMs > until;
}

/** The table's head and its records above both its watermark and this committer's. */
async function readTableAgain(deps: CommitStagedDeps, tableId: string, watermark: string | null): Promise<TableRead> {
  const readAt = deps.now();
  const head = await deps.records.head(tableId);
  return { head, pending: await deps.records.pending(tableId, laterOf(head.through, watermark)), readAt };
}

/**
 * Step 5, first half: let go, then read again. A trigger dropped while this committer held a run
 * was sent for records written before it arrived, so they are among what this read finds.
 */
async function letGoAndReadAgain(deps: CommitStagedDeps, tableId: string, progress: Progress): Promise<void> {
  const { done } = progress.committed;
  progress.pending = progress.pending.filter((record) => !done.has(record.id));
  if (progress.mine === null) return;
  const letGo = progress.mine;
  await settleHead(deps, tableId, progress.head, (current) => ({
    ...current,
    through: laterOf(current.through, progress.watermark),
    leases: othersOf(current.leases, deps.now(), letGo),
  }));
  progress.head = await deps.records.head(tableId);
  progress.readAt = deps.now();
  progress.pending = (await deps.records.pending(tableId, progress.head.through)).filter(
    (record) => !done.has(record.id),
  );
}

/**
 * Step 5, second half: what remains gets a trigger for when it is due, the head takes the watermark,
 * the failure and the listing (merged with a listing another committer wrote meanwhile), and done
 * records and objects nobody reads again are removed.
 */
async function settleTable(
  deps: CommitStagedDeps,
  tableId: string,
  progress: Progress,
  target: number,
  deadline: number,
): Promise<TableReport> {
  const { committed, watermark, mine } = progress;
  const failure = committed.failure;
  const later = deps.now();
  let next: { dueAt: number; triggerAt: number } | null = null;
  if (progress.pending.length > 0) {
    const remainingDue = dueOf(totalsOf(progress.pending), target, deps.sizeTarget, later);
    const at = arrivalFor(deps.triggers, failure ? failure.nextAttemptAt : remainingDue, later);
    await deps.triggers.send([{ tableId, at }]);
    next = { dueAt: remainingDue, triggerAt: at };
  }
  let unlisted = false;
  let through = watermark;
  await settleHead(deps, tableId, progress.head, (current, changed) => {
    const listed =
      changed && current.triggerAt !== null && current.triggerAt > later
        ? { dueAt: current.dueAt, triggerAt: current.triggerAt }
        : null;
    const listing =
      next && listed
        ? {
            dueAt: Math.min(next.dueAt, listed.dueAt ?? next.dueAt),
            triggerAt: Math.min(next.triggerAt, listed.triggerAt),
          }
        : (next ?? listed ?? { dueAt: null, triggerAt: null });
    unlisted = listing.dueAt === null;
    through = laterOf(current.through, watermark);
    // A failure another committer met on another run meanwhile is not over because this one's went well.
    const over = committed.progressed && sameFailure(current.failure, progress.readFailure);
    return {
      ...current,
      ...listing,
      through,
      failure: failure ?? (over ? null : current.failure),
      leases: othersOf(current.leases, later, mine),
    };
  });
  await removeDone(deps, tableId, progress);
  if (unlisted) await relistLate(deps, tableId, through, committed.done, async () => target);
  // Every done record is now past the watermark or deleted: no committer reads it again.
  await removeObjects(deps, tableId, [...committed.objects], deadline);
  return {
    outcome: failure
      ? 'failed'
      : committed.deadLettered
        ? 'deadLettered'
        : committed.progressed
          ? 'committed'
          : 'waiting',
    written: committed.written,
    skipped: committed.skipped,
    expired: committed.expired,
  };
}

/** The longest a committer waits for staged objects to be removed: past it, the lifecycle rule removes them. */
export const removalMs = 5_000;

/**
 * Removes staged objects nobody reads again: one that held only this table's records, all done. Any
 * other object stays until the bucket's lifecycle rule removes it (its other tables commit on their
 * own), as does one whose removal fails or does not end within `removalMs` and a second before the
 * deadline (a warning: nothing is lost). The last thing a commit does: a stalled removal must not
 * hold back what keeps the table's rows on their way.
 */
export async function removeObjects(
  deps: Pick<CommitStagedDeps, 'objects' | 'warn' | 'now'>,
  tableId: string,
  keys: string[],
  deadline: number,
): Promise<void> {
  const ms = Math.min(removalMs, deadline - 1_000 - deps.now());
  if (keys.length === 0 || ms <= 0) return;
  await withinTime(() => deps.objects.remove(keys), ms).catch((error: Error) =>
    deps.warn('Staged objects could not be removed; the lifecycle rule will', { data_set_id: tableId, error }),
  );
}

/**
 * Commit the tables that commit triggers name.
 * Input: the triggers (any number per table), the options. Output: what became of each table.
 *  1. Each table is handled once however many of its triggers came together, `concurrency` at a time.
 *  2. A table whose handling throws (its staging or the queue failing, not its store: that is a failed
 *     attempt) is sent its trigger again for a retry delay later, and the others go on: the batch
 *     fails only if that send fails too (its triggers then come back after the queue's visibility
 *     timeout). Its rows stay staged; nothing is lost.
 */
export async function commitTriggered(
  deps: CommitStagedDeps,
  triggers: CommitTrigger[],
  options: CommitOptions & { concurrency: number },
): Promise<CommitReport> {
  const byTable = new Map<string, number[]>();
  for (const trigger of triggers) byTable.set(trigger.tableId, [...(byTable.get(trigger.tableId) ?? []), trigger.at]);
  const report = emptyReport();
  await forEachAtMost([...byTable], options.concurrency, async ([tableId, arrived]) => {
    try {
      addToReport(report, tableId, await commitStagedTable(deps, tableId, arrived, options));
    } catch (error) {
      const at = deps.now() + deps.retryMs;
      deps.warn('A staged table could not be handled; its trigger is sent again', {
        data_set_id: tableId,
        retry_at: new Date(at).toISOString(),
        error,
      });
      await deps.triggers.send([{ tableId, at }]);
      report.retried.push(tableId);
    }
  });
  return report;
}
