import type { DataSet } from '../datasets/model.ts';
import type { MaintenanceReport } from '../delta/maintenance.ts';
import type { Job } from './model.ts';
import type { JobOutcome, RunControl } from './run-job.ts';
import type { OptimizePayload } from './use-cases.ts';

export interface OptimizeDeps {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** Compaction (partitions with at least `minFiles` small files), vacuum, log clean-up; null for a table not written yet. */
  maintain(
    dataSet: DataSet,
    minFiles: number | undefined,
    control: { checkpoint(): Promise<void>; beforeFirstCommit(): Promise<void> },
  ): Promise<MaintenanceReport | null>;
  /** Records when the table next needs a run (or that it does not). */
  finish(dataSet: DataSet, next: Date | null, startedAt: Date): Promise<void>;
  now?: () => Date;
}

/**
 * Run an Optimize job: one maintenance run of a data set's table.
 * Input: the job (its data set). Output: rows rewritten (in = out: compaction never adds or drops a
 * row) and, as the job's source, what the run did.
 *  1. Compact, stopping between partitions if the job is cancelled; the first commit is the
 *     point of no return.
 *  2. Vacuum and clean up the log.
 *  3. Record when the table next needs maintenance (its tombstones' expiry).
 */
export async function runOptimize(deps: OptimizeDeps, job: Job, control: RunControl): Promise<JobOutcome> {
  const startedAt = deps.now?.() ?? new Date();
  const payload = job.payload as OptimizePayload;
  const dataSet = await deps.getDataSet(payload.data_set_id);
  if (!dataSet || dataSet.tenant_id !== job.tenant_id) throw new Error('The data set no longer exists');
  const report = await deps.maintain(dataSet, payload.min_files ?? undefined, {
    checkpoint: () => control.throwIfCancelled(),
    beforeFirstCommit: () => control.beginCommit(),
  });
  await deps.finish(dataSet, report?.nextDueAt ? new Date(report.nextDueAt) : null, startedAt);
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
    },
  };
}
