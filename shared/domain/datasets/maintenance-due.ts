/**
 * When a data set's table needs a maintenance run (compaction, vacuum, log clean-up and its data
 * retention: shared/domain/jobs/run-optimize.ts), as its writers find it after each commit. The
 * table-maintenance schedule queues a run for every table marked due.
 */
import type { DataSet } from './model.ts';
import type { CommittedVersion } from './table.ts';

/** Every this many versions a writer asks for a run, so that old log files get cleaned up. */
export const maintenanceEveryVersions = 1000;

/**
 * When `committed` makes the table due, or null when it asks nothing (milliseconds).
 *  - Every 1000th version: now.
 *  - A version the table checkpoints at: now when a partition has piled up small files; else when
 *    its oldest day expires under the data retention (a table already maintained is due again then
 *    anyway; this brings in tables that never were).
 * Other versions ask nothing: the questions read every file, and a checkpoint reads them anyway.
 */
export function maintenanceDueAt(committed: CommittedVersion, now: number): number | null {
  if (committed.version === 0) return null;
  const logCleanUp = committed.version % maintenanceEveryVersions === 0;
  if (!committed.checkpoint && !logCleanUp) return null;
  if (logCleanUp || committed.partitionsToCompact() > 0) return now;
  return committed.oldestDayExpiresAt();
}

export interface MaintenanceRequests {
  /** Due at `at`, unless due earlier already. */
  markMaintenanceDue(dataSet: DataSet, at: Date): Promise<void>;
  warn(message: string, fields: Record<string, unknown>): void;
}

/**
 * Ask for the maintenance runs the versions a writer committed make due.
 * Input: the data set, its versions, the time (milliseconds). Output: none.
 *  1. Each version's due time (maintenanceDueAt); the earliest is asked for.
 *  2. A request that fails is only a warning: the commit stands, and a later checkpoint asks again.
 */
export async function askForMaintenance(
  deps: MaintenanceRequests,
  dataSet: DataSet,
  committed: readonly CommittedVersion[],
  now: number,
): Promise<void> {
  const due = committed.map((version) => maintenanceDueAt(version, now)).filter((at) => at !== null);
  if (due.length === 0) return;
  try {
    await deps.markMaintenanceDue(dataSet, new Date(Math.min(...due)));
  } catch (error) {
    deps.warn('Maintenance not asked for', {
      data_set_id: dataSet.data_set_id,
      versions: committed.map((version) => version.version),
      error: (error as Error).message,
    });
  }
}
