import type { MaintenanceReport } from '#delta/operations/maintenance.ts';
import { type IcebergSyncDeps, syncIcebergAfterCommit } from '../datasets/iceberg.ts';
import { askForMaintenance, type MaintenanceRequests } from '../datasets/maintenance-due.ts';
import type { DataSet } from '../datasets/model.ts';
import { dayExpiresAt, firstDayKept } from '../datasets/retention.ts';
import type { CommittedVersion } from '../datasets/table.ts';
import { expireFailedDeliveries, type FailedDeliveryExpiryDeps } from '../monitoring/failed-deliveries.ts';
import { maintenanceRetryMs, type OptimizePayload } from './maintenance-jobs.ts';
import { JobFailure, type JobOf, type JobOutcome, type RunControl, rowlessOutcome } from './run-job.ts';

/**
 * What one maintenance run of a table did: the Delta library's report, the data retention it
 * applied (shared/domain/datasets/retention.ts), and every version it committed.
 */
export type MaintenanceOutcome = MaintenanceReport & {
  /** The table's data retention (its property, else the deployment's default); null: rows are kept. */
  retentionMs: number | null;
  /** The oldest day the retention keeps (YYYY-MM-DD); every day partition before it was removed. */
  keptFrom: string | null;
  committed: CommittedVersion[];
};

export interface OptimizeDeps extends MaintenanceRequests {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** The table's Iceberg metadata, kept in step with the versions a run commits. */
  iceberg: IcebergSyncDeps;
  /**
   * Retention, compaction (partitions with at least `minFiles` small files), vacuum, log clean-up;
   * null for a table not written yet.
   */
  maintain(
    dataSet: DataSet,
    minFiles: number | undefined,
    control: { checkpoint(): Promise<void>; beforeFirstCommit(): Promise<void> },
  ): Promise<MaintenanceOutcome | null>;
  /** The data sets' failed deliveries, which the data retention deletes as it removes the table's days. */
  failedDeliveries: FailedDeliveryExpiryDeps;
  /** The deployment's data retention, for a data set whose table is not written yet; null: keep. */
  defaultRetentionMs: number | null;
  /** Records when the table next needs a run (or that it does not). */
  finish(dataSet: DataSet, next: Date | null, startedAt: Date): Promise<void>;
  now?: () => Date;
}

/**
 * Run an Optimize job: one maintenance run of a data set's table.
 * Input: the job (its data set). Output: rows rewritten (in = out: compaction never adds or drops a
 * row) and, as the job's source, what the run did.
 *  0. A scheduled run of a table deleted after it came due ends with nothing done (`data_set_deleted`).
 *  1. Remove the days older than the data retention, then compact, stopping between partitions if
 *     the job is cancelled; the first commit is the point of no return.
 *  2. Vacuum and clean up the log.
 *  3. Delete the failed deliveries of envelopes the retention no longer keeps (a webhook data set's).
 *  4. Record when the table next needs maintenance (its tombstones' expiry, its oldest day's), and
 *     ask for a run now when one of its own versions makes one due. A run that fails or is cancelled
 *     makes the table due again in an hour (maintenanceRetryMs).
 */
export async function runOptimize(
  deps: OptimizeDeps,
  job: JobOf<OptimizePayload>,
  control: RunControl,
): Promise<JobOutcome> {
  const startedAt = deps.now?.() ?? new Date();
  const payload = job.payload;
  const dataSet = await deps.getDataSet(payload.data_set_id);
  if (!dataSet || dataSet.tenant_id !== job.tenant_id) {
    // The schedule's run of a table deleted after it came due has nothing to do: a job of the platform's
    // that fails for it would count towards the failed-jobs alarm. One asked for through the API says why.
    if (payload.trigger === 'schedule')
      return rowlessOutcome({ data_set_id: payload.data_set_id, trigger: payload.trigger, data_set_deleted: true });
    throw new JobFailure('The data set no longer exists');
  }
  let report: MaintenanceOutcome | null;
  try {
    report = await deps.maintain(dataSet, payload.min_files ?? undefined, {
      checkpoint: () => control.throwIfCancelled(),
      beforeFirstCommit: () => control.beginCommit(),
    });
  } catch (error) {
    // A run that fails or is cancelled leaves the table due again later, and free: the schedule passed its
    // window when it queued this run, and would otherwise never find the table again (no retention, no vacuum).
    const retryAt = new Date((deps.now?.() ?? new Date()).getTime() + maintenanceRetryMs);
    await deps.finish(dataSet, retryAt, startedAt).catch(() => undefined);
    throw error;
  }
  const retentionMs = report ? report.retentionMs : deps.defaultRetentionMs;
  const keptFrom = report?.keptFrom ?? (retentionMs === null ? null : firstDayKept(startedAt.getTime(), retentionMs));
  const due = report?.nextDueAt ? [report.nextDueAt] : [];
  let failedExpired = 0;
  if (retentionMs !== null && keptFrom !== null && dataSet.origin.type === 'Webhook') {
    // Deletions too: a run cancelled by now (it committed nothing) deletes no failed delivery.
    await control.throwIfCancelled();
    const expiry = await expireFailedDeliveries(deps.failedDeliveries, dataSet.data_set_id, keptFrom);
    failedExpired = expiry.expired;
    if (expiry.oldestDay) due.push(dayExpiresAt(expiry.oldestDay, retentionMs));
  }
  await askForMaintenance(deps, dataSet, report?.committed ?? [], (deps.now?.() ?? new Date()).getTime());
  await syncIcebergAfterCommit(deps.iceberg, dataSet, report?.committed ?? []);
  await deps.finish(dataSet, due.length > 0 ? new Date(Math.min(...due)) : null, startedAt);
  return {
    rows_in: report?.rowsRewritten ?? 0,
    rows_out: report?.rowsRewritten ?? 0,
    rows_rejected: 0,
    rows_filtered: 0,
    rejection_samples: [],
    source: {
      data_set_id: payload.data_set_id,
      trigger: payload.trigger,
      read_version: report?.readVersion ?? null,
      versions: report?.versions ?? [],
      partitions_given_up: report?.conflicts ?? 0,
      files_removed: report?.filesRemoved ?? 0,
      files_added: report?.filesAdded ?? 0,
      bytes_removed: report?.bytesRemoved ?? 0,
      bytes_added: report?.bytesAdded ?? 0,
      files_vacuumed: report?.filesVacuumed ?? 0,
      log_files_removed: report?.logFilesRemoved ?? 0,
      retention: {
        seconds: retentionMs === null ? null : retentionMs / 1000,
        kept_from: keptFrom,
        version: report?.expiredVersion ?? null,
        partitions_removed: report?.partitionsExpired ?? 0,
        files_removed: report?.filesExpired ?? 0,
        rows_removed: report?.rowsExpired ?? 0,
        bytes_removed: report?.bytesExpired ?? 0,
        failed_deliveries_deleted: failedExpired,
        skipped: report?.expirySkipped ?? null,
      },
    },
  };
}
