/**
 * The commit of one table's staged envelopes: what a pass (shared/domain/ingest/staging.ts) does
 * with each table it found due. How the due tables are found, read and retired is the pass's
 * business; this is the table's.
 */
import type { HeldRun } from '../datasets/exactly-once.ts';
import { type IcebergSyncDeps, syncIcebergAfterCommit } from '../datasets/iceberg.ts';
import { askForMaintenance, type MaintenanceRequests } from '../datasets/maintenance-due.ts';
import type { DataSet } from '../datasets/model.ts';
import type { CommittedVersion, RetainedDays } from '../datasets/table.ts';
import type { MetricKey } from '../observability/metric-catalogue.ts';
import { type ClaimCheck, type EnvelopeMessage, firstIngestMs } from './envelope.ts';

/** What a count made once adds to one series. */
export interface KeyedCount {
  metric: Extract<MetricKey, 'envelopesWritten' | 'envelopesExpired' | 'envelopesLost'>;
  labels: Record<string, string>;
  by: number;
}

/** A staged envelope on its way to a commit, with the batch it came from. */
export interface StagedRow {
  batch: string;
  message: EnvelopeMessage;
}

export interface TableCommitResult {
  written: number;
  skipped: number;
  /** Envelopes of a day the table's data retention no longer keeps: left out, as maintenance would remove them. */
  expired: number;
}

/** A count to make once, by its key (CommitTableDeps.countOnce). */
export interface OnceCount {
  key: string;
  counts: KeyedCount[];
}

/**
 * What a commit did, and what its caller counts once (rows written and expired) when the commit's
 * handling is over: a count that fails is no failed commit (whose last attempt would dead-letter
 * rows the table holds); it fails the table's handling, and the retry finds the same rows to count.
 */
export interface CountedCommit extends TableCommitResult {
  once: OnceCount[];
  /**
   * Claim checks of the envelopes now in the table, removed once they are counted: a retry that
   * finds a body gone takes its envelope as written without finding the commit that wrote it, so a
   * body removed before the count would leave the count to nobody.
   */
  claims: string[];
}

/** Commits never succeed for this table (its data set is gone): its envelopes are dead-lettered at once. */
export class TableGone extends Error {
  constructor(tableId: string) {
    super(`Data set ${tableId} does not exist`);
    this.name = 'TableGone';
  }
}

/** An envelope whose claim-checked body is gone: it can never be written. */
export class PayloadMissing extends Error {
  constructor() {
    super('The claim-checked payload no longer exists');
    this.name = 'PayloadMissing';
  }
}

export interface CommitTableDeps extends MaintenanceRequests, IcebergSyncDeps {
  now(): number;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** The data set with its store fixed: the tenant's default store at its table's first write. */
  fixStorage(dataSet: DataSet): Promise<DataSet>;
  /**
   * Appends the rows to the data set's table as one version, each message id exactly once: a row
   * whose message the table holds already is skipped, one that `keeps` leaves out (asked as the
   * commit finds the table) is not written and counts as expired. Answers the versions committed.
   */
  appendEnvelopes(
    dataSet: DataSet,
    rows: StagedRow[],
    request: {
      attempt: number;
      keeps(table: RetainedDays): (row: StagedRow) => boolean;
      /** Aborted when nobody waits for the commit any more: it then gives up before committing. */
      signal?: AbortSignal;
    },
  ): Promise<
    TableCommitResult & {
      committed: CommittedVersion[];
      /**
       * The commits that hold rows of these, each with the rows it wrote: this one's, and any
       * earlier one found holding some (whose writer may have stopped before counting it).
       */
      runs: HeldRun[];
    }
  >;
  /** Whether a claim-checked body is still in the platform bucket. */
  claimExists(ref: ClaimCheck): Promise<boolean>;
  /**
   * Which of these message ids the table's recorded commits hold, of envelopes first ingested at
   * `ingestedAt` (milliseconds) or later.
   */
  writtenAfterIngest(tableId: string, messageIds: string[], ingestedAt: number): Promise<Set<string>>;
  /** Removes claim-checked bodies whose envelopes are in their table. */
  checkOut(keys: string[]): Promise<void>;
  /** Records why the envelopes failed, then moves them to the dead-letter queue. */
  deadLetter(tableId: string, messages: EnvelopeMessage[], error: Error, attempts: number): Promise<void>;
  /** Adds to one of the operator's figures that no account is made of (written at the invocation's end). */
  count(figure: Extract<MetricKey, 'batchesCommitted'>, labels: Record<string, string>, by: number): void;
  /**
   * Counts once per key, at once, however often asked for the same key (a retry after a crash counts
   * nothing twice); resolves false when the key was counted before. For every figure of the loss
   * account: rows written (keyed by the commit's run), expired (by staged record and day), lost (by
   * staged record).
   */
  countOnce(key: string, counts: KeyedCount[]): Promise<boolean>;
  info(message: string, fields: Record<string, unknown>): void;
}

/**
 * Commit one table's staged envelopes.
 * Input: the table (its data set id), its staged rows, the attempt, and a signal that the caller
 * stopped waiting. Output: rows written, skipped
 * (in the table already) and expired.
 *  1. The data set must exist; when it is gone, no attempt will ever succeed (TableGone).
 *  2. Envelopes whose claim-checked body is gone are skipped when the table holds them (the commit
 *     that wrote them removed their bodies: another committer's, or an earlier attempt's whose end
 *     was not recorded), else dead-lettered on their own; the others go on.
 *  3. The rest are appended to the table, each message id exactly once; an envelope of a day the
 *     table's data retention no longer keeps is left out (maintenance would remove it).
 *  4. Counted: versions committed. To be counted once by the caller (finishCommit), whatever retries
 *     follow: envelopes written (per source), by the commit that wrote them (this one's, and an
 *     earlier one found holding rows of these, whose writer may have stopped between its commit and
 *     its count); envelopes expired (per source), by staged record and day.
 *  5. The claim checks of the envelopes now in the table, for the caller to remove once they are
 *     counted (a lifecycle rule is the backstop, so a failure there only warns).
 *  6. A maintenance run is asked for when the new version makes one due.
 *  7. The table's Iceberg metadata is synced, or marked due, to stay within its interval (it never
 *     fails the commit).
 */
export async function commitTable(
  deps: CommitTableDeps,
  tableId: string,
  staged: StagedRow[],
  attempt: number,
  signal?: AbortSignal,
): Promise<CountedCommit> {
  const found = await deps.getDataSet(tableId);
  if (!found) throw new TableGone(tableId);
  const { rows, written: before } = await withoutMissingPayloads(deps, tableId, staged);
  if (rows.length === 0) return { written: 0, skipped: before, expired: 0, once: [], claims: [] };
  const dataSet = await deps.fixStorage(found);
  const expired = new Set<StagedRow>();
  const result = await deps.appendEnvelopes(dataSet, rows, {
    attempt,
    keeps: (table) => (row) => {
      const kept = table.keepsDay(row.message.dt);
      if (!kept) expired.add(row);
      return kept;
    },
    ...(signal ? { signal } : {}),
  });

  const claims = rows.flatMap((row) => (row.message.payload_ref ? [row.message.payload_ref.key] : []));
  const source = dataSet.origin.type === 'Webhook' ? dataSet.origin.source_id : '';
  const once = [...writtenOnce(tableId, source, result.runs), ...expiredOnce(tableId, source, [...expired])];
  if (result.committed.length > 0) deps.count('batchesCommitted', {}, result.committed.length);
  if (result.expired > 0) {
    deps.info('Staged envelopes past the data retention left out', { data_set_id: tableId, envelopes: result.expired });
  }
  await askForMaintenance(deps, dataSet, result.committed, deps.now());
  await syncIcebergAfterCommit(deps, dataSet, result.committed);
  return { written: result.written, skipped: result.skipped + before, expired: result.expired, once, claims };
}

/**
 * After a commit's handling: makes its counts, each once by its key, then removes its claim checks.
 * The first count that fails rejects, before any body is removed: the rows stay staged, and the
 * retry finds the same rows in the same commit and asks for the same counts (those made add nothing).
 */
export async function finishCommit(
  deps: Pick<CommitTableDeps, 'countOnce' | 'checkOut' | 'warn'>,
  tableId: string,
  commit: Pick<CountedCommit, 'once' | 'claims'>,
): Promise<void> {
  for (const { key, counts } of commit.once) await deps.countOnce(key, counts);
  if (commit.claims.length > 0)
    await deps
      .checkOut(commit.claims)
      .catch((error: Error) =>
        deps.warn('Claim check clean-up failed', { data_set_id: tableId, error: error.message }),
      );
}

/**
 * Rows written, counted once per commit (keyed by its run): a committer that stops between its
 * commit and its count leaves its rows to a retry, which finds them in that commit and counts it,
 * while a commit counted already adds nothing.
 */
function writtenOnce(tableId: string, source: string, runs: HeldRun[]): OnceCount[] {
  return runs
    .filter((run) => run.rows > 0)
    .map((run) => ({
      key: `written#${tableId}#${run.runId}`,
      counts: [{ metric: 'envelopesWritten', labels: { source_id: source }, by: run.rows }],
    }));
}

/**
 * Rows left out past the data retention, counted once per staged record and day (each day is kept
 * or left out whole): a retry that leaves the same rows out again adds nothing, and a day that
 * expired between two attempts adds its own.
 */
function expiredOnce(tableId: string, source: string, rows: StagedRow[]): OnceCount[] {
  const byRecordAndDay = new Map<string, number>();
  for (const row of rows) {
    const key = `expired#${tableId}#${row.batch}#${row.message.dt}`;
    byRecordAndDay.set(key, (byRecordAndDay.get(key) ?? 0) + 1);
  }
  return [...byRecordAndDay].map(([key, by]) => ({
    key,
    counts: [{ metric: 'envelopesExpired', labels: { source_id: source }, by }],
  }));
}

/**
 * The rows whose body can be read, and how many of those whose body is gone the table holds: a
 * commit removes the bodies of what it wrote, so a row committed meanwhile finds its body gone.
 * The others whose body is gone go to the dead-letter queue.
 */
async function withoutMissingPayloads(
  deps: CommitTableDeps,
  tableId: string,
  rows: StagedRow[],
): Promise<{ rows: StagedRow[]; written: number }> {
  const missing = new Set<StagedRow>();
  await Promise.all(
    rows.map(async (row) => {
      if (row.message.payload_ref && !(await deps.claimExists(row.message.payload_ref))) missing.add(row);
    }),
  );
  if (missing.size === 0) return { rows, written: 0 };
  const messages = [...missing].map((row) => row.message);
  const written = await deps.writtenAfterIngest(
    tableId,
    messages.map((message) => message.message_id),
    Math.min(...messages.map(firstIngestMs)),
  );
  const lost = messages.filter((message) => !written.has(message.message_id));
  if (lost.length > 0) await deps.deadLetter(tableId, lost, new PayloadMissing(), 1);
  return { rows: rows.filter((row) => !missing.has(row)), written: messages.length - lost.length };
}
