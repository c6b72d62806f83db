/**
 * Staging: accepted envelopes kept safe but not yet committed, so that a table is committed when it
 * has enough to commit — not once per queue batch — and each table when its own freshness target
 * says, whatever the others do.
 *
 *   stage     the batch writer puts its whole batch (any number of tables) into one object of the
 *             platform bucket, one contiguous slice per table, then records each table's slice in
 *             the table's own partition: one small item per (table, batch), written in batches of
 *             25. No item grows with tables, batches or rows, and a table's partition takes one
 *             write per writer batch that holds its rows.
 *   trigger   for each table it staged, the writer sends a commit trigger to the commits queue,
 *             delayed until the table is due (its oldest row's freshness target, at most 15 minutes
 *             ahead: a trigger that arrives early sends itself again), unless one it sent already
 *             arrives in time; and lists the table in a sparse, sharded index of pending tables
 *             (what the overdue figure, its backstop and a graceful stop of local mode read).
 *   commit    a trigger's table is read (its head and its records above its watermark) and, when
 *             due, committed: everything it has staged, a size target's worth per commit
 *             (shared/domain/ingest/commit-staged.ts). Committers run in parallel; a large table
 *             takes up to `maxTableCommitters` at once, each leasing its own run of records in the
 *             table's head, so no two of them commit the same rows.
 *   retire    records at or below the table's watermark are done and never read again; they expire
 *             (TTL). The watermark only passes a record once no older one can still appear: a record
 *             is written within `recordWrittenWithinMs` of its id's time, so the committer moves it
 *             to the newest done record older than its own read less `writerLifetimeMs`. Done records
 *             newer than that (a table with a target of seconds) are deleted instead. Staged objects
 *             are removed by the platform bucket's lifecycle rule.
 *   fail      a table whose commit fails is tried again a retry delay later (its trigger sent again);
 *             after five attempts, or at once when it can never succeed (its data set is gone), its
 *             staged envelopes go to the dead-letter queue with the last error, where they become
 *             failed deliveries (redrivable), exactly as envelopes that failed on the queue do.
 *
 * Exactly once: the table's own log is the record. A commit holds message ids recorded beside it; a
 * commit whose records were not retired (a committer stopped after committing) reads the same
 * records again, and the rows its table holds already are skipped (shared/domain/datasets/exactly-once.ts). Leases only
 * keep committers from doing the same work twice: two that commit the same rows write them once.
 */
import { randomUUID } from 'node:crypto';

/** One table's rows in a staged object: bytes [offset, offset + length), as NDJSON. */
export interface StagedSlice {
  offset: number;
  length: number;
  rows: number;
  /** Milliseconds: the oldest `ingested_at` among the rows. */
  oldest: number;
  /** Raw payload bytes (payload_size) of the rows: what the size target counts. */
  bytes: number;
  /**
   * The rows by source (source_id → rows; a table's rows are nearly always one source's): the loss
   * figure sets staged rows against their own source's count. Absent on records staged before it was kept.
   */
  sources?: Record<string, number>;
}

/** A table's slice of one staged object, as recorded in the table's partition. */
export interface StagedRecord extends StagedSlice {
  /** Sortable: when the record was written (13-digit milliseconds), then a random part. */
  id: string;
  /** The staged object in the platform bucket, and its size (small ones are read whole, once for all their tables). */
  key: string;
  objectSize: number;
}

export interface TableFailure {
  attempts: number;
  lastError: string;
  /** Milliseconds: not tried again before. */
  nextAttemptAt: number;
}

/** A committer's claim on a run of a large table's records: ids `first` to `last`, inclusive. */
export interface ChunkLease {
  holder: string;
  /** Milliseconds: the holder's invocation ends; the lease counts for nothing from then. */
  until: number;
  first: string;
  last: string;
}

/** What a table's staging keeps beside its records. */
export interface StagingHead {
  /** Records with ids up to this one are done (committed or dead-lettered); null: none is. */
  through: string | null;
  failure: TableFailure | null;
  /**
   * Milliseconds: when the table's oldest pending rows are due (in the past for a table whose
   * commits fail); null when the table is not listed as pending.
   */
  dueAt: number | null;
  /** Milliseconds: when the trigger sent for the table last arrives; null when none is known. */
  triggerAt: number | null;
  /**
   * Committers at work on the table, each on its own run of records, until its invocation's end:
   * at most `maxTableCommitters`; an expired one counts for nothing and goes with the next write.
   */
  leases: ChunkLease[];
  /** Changes with every write of the head: a writer of it checks nobody wrote it since it read. */
  version: number;
}

export const emptyHead: StagingHead = {
  through: null,
  failure: null,
  dueAt: null,
  triggerAt: null,
  leases: [],
  version: 0,
};

/** What one table has staged, as the stats and alarms show it. */
export interface StagedTotals {
  rows: number;
  bytes: number;
  /** Milliseconds: the oldest staged row's ingest time (Infinity when none). */
  oldest: number;
}

/** A commit trigger: the table to commit, and when the trigger is meant to arrive (milliseconds). */
export interface CommitTrigger {
  tableId: string;
  at: number;
}

/** The records of each table's staged slices, and the head that says what is done (DynamoDB). */
export interface StagedRecords {
  /**
   * Writes the records in their tables' partitions. Throws, leaving some unwritten, rather than
   * write one after `writtenBy` (milliseconds): a record must be readable within
   * `recordWrittenWithinMs` of its id's time.
   */
  write(records: { tableId: string; record: StagedRecord }[], writtenBy: number): Promise<void>;
  /** The table's head (strongly consistent), or the empty head. */
  head(tableId: string): Promise<StagingHead>;
  /** The heads of these tables (strongly consistent; the empty head for one that has none). */
  heads(tableIds: string[]): Promise<Map<string, StagingHead>>;
  /** The table's records above `through`, oldest first (strongly consistent). */
  pending(tableId: string, through: string | null): Promise<StagedRecord[]>;
  /**
   * Lists the table as pending, due at `dueAt` with a trigger arriving at `triggerAt`, unless it is
   * listed already as due no later, with a trigger still to arrive after `now`.
   */
  listPending(tableId: string, entry: { dueAt: number; triggerAt: number }, now: number): Promise<void>;
  /** Writes the head if it is still at `expected` (its version): false, writing nothing, when it is not. */
  replaceHead(tableId: string, expected: number, head: Omit<StagingHead, 'version'>): Promise<boolean>;
  /** Deletes records (done, above the watermark). */
  remove(tableId: string, ids: string[]): Promise<void>;
  /** Tables listed as pending, with their heads: those due before `dueBefore`, or all. */
  listed(dueBefore?: number): Promise<{ tableId: string; head: StagingHead }[]>;
}

export interface StagingObjects {
  put(key: string, body: Buffer): Promise<void>;
  /** A slice of an object; StagedObjectGone when there is no such object. */
  read(key: string, offset: number, length: number): Promise<Buffer>;
  /** Deletes objects (absent ones are no error). */
  remove(keys: string[]): Promise<void>;
}

/** A staged object that is not there: its records were committed and it was removed, or it expired. */
export class StagedObjectGone extends Error {
  constructor(key: string) {
    super(`The staged object ${key} is gone`);
    this.name = 'StagedObjectGone';
  }
}

/** Whether a record's slice is its whole object: the object holds one table's envelopes only. */
export const wholeObject = (record: StagedRecord) => record.offset === 0 && record.length === record.objectSize;

/** The commits queue: one message per trigger, delayed until it is meant to arrive (at most `maxDelayMs`). */
export interface CommitTriggers {
  send(triggers: CommitTrigger[]): Promise<void>;
  /** The longest a trigger can be delayed (SQS: 15 minutes); one due later arrives early and is sent again. */
  maxDelayMs: number;
  /**
   * How much before its time a trigger may arrive (SQS delays by whole seconds, rounded down so that
   * none arrives late): a table due within that long counts as due.
   */
  earlyMs: number;
}

/** Staged bytes of one table that make it due whatever its freshness target; also what one commit holds at most. */
export const stagedSizeTargetBytes = 64 * 1024 * 1024;

/** How long a committer instance keeps a table's freshness target before it reads it again. */
export const freshnessKeptMs = 60_000;

/** Longest from a record id's time to the record being readable: the writer checks before each write. */
export const recordWrittenWithinMs = 60_000;

/**
 * How far behind its read a committer keeps the watermark: a record written later than its read
 * has an id no older than this (twice `recordWrittenWithinMs`: clocks of functions may differ).
 */
export const writerLifetimeMs = 2 * recordWrittenWithinMs;

/** How long a record is kept before it expires, done or not: past the longest target (a day) and five failed attempts. */
export const recordLifetimeMs = 7 * 86_400_000;

/**
 * A table with this share of its size target staged counts as large: a writer instance that staged
 * that much of it since its last trigger sends another at once, and a committer leases the run of
 * records it commits.
 */
export const largeTableShare = 16;

/**
 * How many committers work on one large table at once, each on its own run of a size target's worth
 * of records: a hot table commits this many size targets at a time, bounded by its store and its
 * log's version race rather than one committer's encoder.
 */
export const maxTableCommitters = 4;

/** How many failed attempts before a table's staged envelopes become failed deliveries (the queue's five receives). */
export const maxCommitAttempts = 5;

/**
 * How long a receipt may wait in staging before it is raised. The shared counters take a raise of an
 * epoch up to 45 minutes old as it comes (older ones only raise what is still there, since the epoch
 * may have been folded): a table whose target is longer has its receipts raised at staging instead.
 */
export const receiptsHeldAtMostMs = 30 * 60_000;

const pad13 = (ms: number) => String(ms).padStart(13, '0');

/** A record id minted at `now`: records sort by when they were written. */
export function recordId(now: number): string {
  return `${pad13(now)}-${randomUUID().slice(0, 8)}`;
}

/** The time a record id was minted at. */
export function recordTime(id: string): number {
  return Number(id.slice(0, 13));
}

/** Staged rows by source, and those of records that name no sources (staged before they were kept). */
export interface StagedBySource {
  bySource: Map<string, number>;
  unattributed: number;
}

/** Adds the slices' rows to `into`, by source. */
export function addBySource(into: StagedBySource, slices: readonly StagedSlice[]): StagedBySource {
  for (const slice of slices) {
    if (!slice.sources) {
      into.unattributed += slice.rows;
      continue;
    }
    for (const [source, rows] of Object.entries(slice.sources))
      into.bySource.set(source, (into.bySource.get(source) ?? 0) + rows);
  }
  return into;
}

/** Totals of some slices: rows, payload bytes, oldest row. */
export function totalsOf(slices: readonly StagedSlice[]): StagedTotals {
  const totals: StagedTotals = { rows: 0, bytes: 0, oldest: Number.POSITIVE_INFINITY };
  for (const slice of slices) {
    totals.rows += slice.rows;
    totals.bytes += slice.bytes;
    totals.oldest = Math.min(totals.oldest, slice.oldest);
  }
  return totals;
}
