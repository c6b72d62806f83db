/**
 * Keeping a table fast to open and to scan, one run per table: partitions the caller expires,
 * compaction (optimize.ts), vacuum and log clean-up (vacuum.ts).
 *
 *   expiry      the partitions the caller's plan names (a data retention, say) are removed in one
 *               version (DELETE: removes with dataChange true, read by any Delta reader as a
 *               delete); the vacuum deletes their files once the deleted-file retention has
 *               passed. An append-only table is left alone, and the report says why.
 *   compaction  per partition with at least the plan's `minFiles` files smaller than
 *               `delta.targetFileSize`, when the table's features allow a rewrite.
 *   vacuum, log clean-up  as vacuum.ts says.
 *
 * A run first checks that the library may write the table (kernel/features.ts: another writer may
 * have turned on a feature it does not implement; the protocol's vacuumProtocolCheck asks exactly
 * this before a vacuum).
 */
import { CommitNotAllowed } from '../errors.ts';
import { compactionSupport } from '../kernel/features.ts';
import { type AddFile, liveRecords, type PartitionValues } from '../kernel/log.ts';
import { type LogReader, openSnapshot, type TableState } from '../kernel/snapshot.ts';
import { type TableConfig, tableConfig } from '../kernel/table-config.ts';
import { assertWritable } from '../kernel/writable.ts';
import { compactPartition, type FileRewriter, partitionKey, planCompaction } from './optimize.ts';
import { replacePartitions } from './replace-partitions.ts';
import type { CommitDeps } from './transaction.ts';
import { cleanLog, vacuum } from './vacuum.ts';

export interface MaintenanceDeps {
  commit: CommitDeps;
  reader: LogReader;
  rewrite: FileRewriter;
  now: () => Date;
  /** Between partitions and before the vacuum: throws to stop (a cancelled job) before anything more is committed or deleted. */
  checkpoint?: () => Promise<void>;
  /** Called once before the first commit (the job's point of no return). */
  beforeFirstCommit?: () => Promise<void>;
}

/** Partitions the caller removes from the table, and when the next of those left will be due. */
export interface PartitionExpiry {
  expired(values: PartitionValues): boolean;
  /** Milliseconds: when a partition among `files` (those left) is next due to expire; null: none is. */
  nextAt(files: AddFile[]): number | null;
}

/** What the caller asks of a run, given the table as the run opened it. */
export interface MaintenancePlan {
  /** Compaction: a partition with fewer small files than this is left alone. */
  minFiles: number;
  /** Partitions to remove first; `skipped`: the reason none can be (the report says it); null: none. */
  expiry: PartitionExpiry | { skipped: string } | null;
}

export interface MaintenanceReport {
  readVersion: number;
  /** Versions committed by the compaction (one per partition), and partitions given up on a conflict. */
  versions: number[];
  conflicts: number;
  filesRemoved: number;
  filesAdded: number;
  rowsRewritten: number;
  bytesRemoved: number;
  bytesAdded: number;
  filesVacuumed: number;
  logFilesRemoved: number;
  /** Milliseconds: when the next run has something to do (a tombstone, a partition expiring); null when nothing waits. */
  nextDueAt: number | null;
  /** Why compaction was left out, when the table's features do not allow it. */
  compactionSkipped: string | null;
  /** The version that removed the expired partitions, and what it removed. */
  expiredVersion: number | null;
  partitionsExpired: number;
  filesExpired: number;
  rowsExpired: number;
  bytesExpired: number;
  /** Why expired partitions were left in the table (an append-only table, or the plan's reason). */
  expirySkipped: string | null;
}

function emptyReport(readVersion: number): MaintenanceReport {
  return {
    readVersion,
    versions: [],
    conflicts: 0,
    filesRemoved: 0,
    filesAdded: 0,
    rowsRewritten: 0,
    bytesRemoved: 0,
    bytesAdded: 0,
    filesVacuumed: 0,
    logFilesRemoved: 0,
    nextDueAt: null,
    compactionSkipped: null,
    expiredVersion: null,
    partitionsExpired: 0,
    filesExpired: 0,
    rowsExpired: 0,
    bytesExpired: 0,
    expirySkipped: null,
  };
}

/** One run in the making: the table as opened, what it reports, the caller's point of no return passed once. */
interface Run {
  deps: MaintenanceDeps;
  tableId: string;
  /** Milliseconds, when the run began. */
  startedAt: number;
  state: TableState;
  config: TableConfig;
  report: MaintenanceReport;
  begin(): Promise<void>;
}

/**
 * Removes the expired partitions in one version (DELETE, dataChange true); the files stay for the
 * deleted-file retention, then the vacuum deletes them. A table whose features forbid removing
 * data (append-only) keeps them, and the report says why. Answers whether they were removed.
 */
async function expirePartitions(run: Run, expired: (values: PartitionValues) => boolean): Promise<boolean> {
  const { report } = run;
  try {
    await run.begin();
    const result = await replacePartitions(run.deps.commit, {
      tableId: run.tableId,
      replaces: expired,
      operation: 'DELETE',
      adds: [],
      rows: 0,
      bytes: 0,
      attempt: 1,
    });
    if (!result) return true;
    report.expiredVersion = result.version;
    report.partitionsExpired = new Set(result.removed.map((file) => partitionKey(file.partitionValues))).size;
    report.filesExpired = result.removed.length;
    report.rowsExpired = result.removed.reduce((sum, file) => sum + liveRecords(file), 0);
    report.bytesExpired = result.removed.reduce((sum, file) => sum + file.size, 0);
    return true;
  } catch (error) {
    if (!(error instanceof CommitNotAllowed)) throw error;
    report.expirySkipped = error.message;
    return false;
  }
}

/** The plan's expiry, carried out when a live file is expired: the files left after it. */
async function expire(run: Run, expiry: MaintenancePlan['expiry']): Promise<AddFile[]> {
  const files = [...run.state.files.values()];
  if (expiry === null) return files;
  if ('skipped' in expiry) {
    run.report.expirySkipped = expiry.skipped;
    return files;
  }
  if (!files.some((file) => expiry.expired(file.partitionValues))) return files;
  await run.deps.checkpoint?.();
  if (!(await expirePartitions(run, (values) => expiry.expired(values)))) return files;
  return files.filter((file) => !expiry.expired(file.partitionValues));
}

/** Compacts each partition of `files` that needs it, one version each, when the table's features allow a rewrite. */
async function compact(run: Run, files: AddFile[], minFiles: number): Promise<void> {
  const { deps, state, report, config } = run;
  const compaction = compactionSupport(state.protocol, state.metadata);
  if (!compaction.ok) {
    report.compactionSkipped = compaction.message;
    return;
  }
  for (const plan of planCompaction(files, config.targetFileSize, minFiles)) {
    await deps.checkpoint?.();
    const done = await compactPartition(deps, run.tableId, state.version, plan, config.targetFileSize, run.begin);
    if (!done) {
      report.conflicts++;
      continue;
    }
    report.versions.push(done.version);
    report.filesRemoved += done.filesRemoved;
    report.filesAdded += done.filesAdded;
    report.rowsRewritten += done.rowsRewritten;
    report.bytesRemoved += done.bytesRemoved;
    report.bytesAdded += done.bytesAdded;
  }
}

/** When the next run has something to do: a tombstone expiring (this run's own too), a partition left expiring. */
function nextDueAt(run: Run, expiry: MaintenancePlan['expiry'], remaining: AddFile[]): number | null {
  const { deps, state, report, config } = run;
  const waiting = [...state.tombstones.values()]
    .map((remove) => remove.deletionTimestamp + config.deletedFileRetentionMs)
    .filter((at) => at >= run.startedAt);
  if (report.versions.length > 0 || report.expiredVersion !== null)
    waiting.push(deps.now().getTime() + config.deletedFileRetentionMs);
  if (expiry && !('skipped' in expiry) && report.expirySkipped === null) {
    const next = expiry.nextAt(remaining);
    if (next !== null) waiting.push(next);
  }
  return waiting.length > 0 ? Math.min(...waiting) : null;
}

/**
 * One maintenance run of a table.
 * Input: the table; `plan` (asked once the table is open: how many small files a partition needs
 * for compaction, which partitions expire). Output: what it did.
 *  1. Open the latest snapshot; refuse a table the library may not write (TableNotWritable).
 *  2. Remove the expired partitions, in one version.
 *  3. Compact each other partition that needs it, one version each, when the table's features allow
 *     a rewrite; a partition whose files another commit removed meanwhile is left for the next run.
 *  4. Vacuum the files removed longer ago than the deleted-file retention.
 *  5. Clean up the log.
 *  6. Say when the next run has something to do: a tombstone expiring, the next partition expiring.
 */
export async function maintainTable(
  deps: MaintenanceDeps,
  tableId: string,
  plan: (state: TableState) => MaintenancePlan,
): Promise<MaintenanceReport> {
  const startedAt = deps.now().getTime();
  const { state } = await openSnapshot(deps.reader);
  const report = emptyReport(state.version);
  if (state.version < 0) return report;
  assertWritable(state);
  let begun = false;
  const run: Run = {
    deps,
    tableId,
    startedAt,
    state,
    config: tableConfig(state.metadata?.configuration ?? {}),
    report,
    begin: async () => {
      if (begun) return;
      begun = true;
      await deps.beforeFirstCommit?.();
    },
  };
  const { minFiles, expiry } = plan(state);
  const remaining = await expire(run, expiry);
  await compact(run, remaining, minFiles);
  const cleanUp = { reader: deps.reader, storage: deps.commit.storage, now: deps.now };
  // The vacuum deletes: a run stopped (cancelled) before it changes nothing, whatever it committed.
  await deps.checkpoint?.();
  report.filesVacuumed = await vacuum(cleanUp, state, run.config.deletedFileRetentionMs);
  report.logFilesRemoved = await cleanLog(cleanUp, state, run.config.logRetentionMs);
  report.nextDueAt = nextDueAt(run, expiry, remaining);
  return report;
}
