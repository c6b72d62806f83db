/**
 * Every data set is also an Iceberg v2 table over the same Parquet files (CONTRACT §5a): its
 * metadata trails the Delta version by at most ten minutes, and never holds up a Delta commit.
 *  - After a commit, the metadata is synced at once when the last sync is older than the sync
 *    interval (a quiet table's commits each bring it up to date); otherwise the table is marked due
 *    for when the interval ends, so that a busy table's many commits fold into one snapshot.
 *  - The table-commits schedule syncs every table marked due (catchUpIceberg), each minute.
 *  - The catalog syncs a table before answering it (the data set's adapter: iceberg-tables.ts).
 * A sync that fails is recorded (Failed, with a stable category) and logged; the table stays due.
 */

import type { DataSet, DataSetIceberg } from './model.ts';
import type { CommittedVersion } from './table.ts';

/** How long a table's Iceberg metadata may trail before a commit syncs it itself. */
export const icebergSyncIntervalMs = 5 * 60 * 1000;

/** What mirroring the table's latest Delta version gave. */
export type MirrorOutcome =
  | { status: 'Current'; deltaVersion: number; metadataLocation: string; metadata: object }
  | { status: 'Unsupported'; deltaVersion: number; reason: string };

export interface IcebergSyncDeps {
  /** Opens the data set's table at its latest Delta version and brings its Iceberg metadata there. */
  /**
   * Mirrors the table's latest version; `justCommitted`: the version the caller has just committed
   * (dataSet.version), the end of the log a moment ago, taken as it is (no read).
   */
  mirrorLatest(dataSet: DataSet, justCommitted?: boolean): Promise<MirrorOutcome>;
  recordIceberg(dataSetId: string, iceberg: DataSetIceberg): Promise<void>;
  /** Due at `at`, unless due earlier already. */
  markIcebergDue(dataSet: DataSet, at: Date): Promise<void>;
  /** A failure as a stable category (never the store's own text). */
  failureCategory(error: Error): string;
  now(): number;
  warn(message: string, fields: Record<string, unknown>): void;
}

export interface IcebergSyncResult {
  iceberg: DataSetIceberg;
  /** The metadata file's content when the sync wrote or found one. */
  metadata: object | null;
}

/**
 * Bring a data set's Iceberg metadata up to its latest Delta version.
 * Input: the data set. Output: its Iceberg state and metadata; null before its first commit.
 *  1. A data set without a table yet (no storage, no version) has nothing to mirror.
 *  2. The latest Delta version is mirrored (a table Iceberg cannot express: Unsupported, and why).
 *  3. The outcome is recorded with the data set; a failure is recorded as Failed with its category,
 *     keeping the last metadata written, and logged: it never reaches the caller.
 */
export async function syncIceberg(
  deps: IcebergSyncDeps,
  dataSet: DataSet,
  justCommitted = false,
): Promise<IcebergSyncResult | null> {
  if (!dataSet.storage_location || dataSet.version === null) return null;
  const syncedAt = new Date(deps.now()).toISOString();
  let result: IcebergSyncResult;
  try {
    const outcome = await deps.mirrorLatest(dataSet, justCommitted);
    result =
      outcome.status === 'Current'
        ? {
            iceberg: {
              metadata_location: outcome.metadataLocation,
              delta_version: outcome.deltaVersion,
              status: 'Current',
              reason: null,
              synced_at: syncedAt,
            },
            metadata: outcome.metadata,
          }
        : {
            // The last metadata stays named (where the next sync goes on from); the catalog serves none of
            // it while the table is Unsupported, and its version hint is withdrawn for path readers.
            iceberg: {
              metadata_location: dataSet.iceberg?.metadata_location ?? null,
              delta_version: dataSet.iceberg?.delta_version ?? null,
              status: 'Unsupported',
              reason: outcome.reason,
              synced_at: syncedAt,
            },
            metadata: null,
          };
  } catch (error) {
    const reason = deps.failureCategory(error as Error);
    deps.warn('Iceberg metadata not synced', { data_set_id: dataSet.data_set_id, version: dataSet.version, reason });
    result = {
      iceberg: {
        metadata_location: dataSet.iceberg?.metadata_location ?? null,
        delta_version: dataSet.iceberg?.delta_version ?? null,
        status: 'Failed',
        reason,
        synced_at: syncedAt,
      },
      metadata: null,
    };
  }
  try {
    await deps.recordIceberg(dataSet.data_set_id, result.iceberg);
  } catch (error) {
    deps.warn('Iceberg state not recorded', { data_set_id: dataSet.data_set_id, error: (error as Error).message });
  }
  return result;
}

/**
 * Keep the Iceberg metadata of a table a writer just committed to within the sync interval.
 * Input: the data set (as the commit found it), the versions committed. Output: none; never throws.
 *  1. Nothing committed: nothing to do.
 *  2. Last synced longer than the interval ago (or never): synced now; a sync that failed is marked
 *     due an interval on, for the table-commits schedule to try again.
 *  3. Else marked due for when the interval ends (the table-commits schedule syncs it then), by every
 *     commit: a mark already as early stays as it is. (One mark for a busy table's commits between two
 *     syncs relied on the commit that put the table behind having marked it; a commit that records a
 *     version without syncing, or a writer that stopped between its commit and its mark, left it behind
 *     with no mark, for as long as the table stayed quiet.)
 */
export async function syncIcebergAfterCommit(
  deps: IcebergSyncDeps,
  dataSet: DataSet,
  committed: readonly CommittedVersion[],
): Promise<void> {
  const latest = committed.at(-1);
  if (!latest) return;
  const table = { ...dataSet, version: Math.max(latest.version, dataSet.version ?? -1) };
  const lastSync = dataSet.iceberg ? Date.parse(dataSet.iceberg.synced_at) : Number.NEGATIVE_INFINITY;
  const now = deps.now();
  const markDue = async (at: number) => {
    try {
      await deps.markIcebergDue(table, new Date(at));
    } catch (error) {
      deps.warn('Iceberg sync not marked due', { data_set_id: dataSet.data_set_id, error: (error as Error).message });
    }
  };
  if (now - lastSync >= icebergSyncIntervalMs) {
    const result = await syncIceberg(deps, table, true);
    if (result?.iceberg.status === 'Failed') await markDue(now + icebergSyncIntervalMs);
    return;
  }
  await markDue(lastSync + icebergSyncIntervalMs);
}

export interface IcebergCatchUpDeps extends IcebergSyncDeps {
  dueIcebergSyncs(now: Date): Promise<{ dataSetId: string; dueAt: string }[]>;
  clearIcebergDue(dataSetId: string, dueAt: string): Promise<void>;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** Whether an error is the platform's own table slow or throttling (the next run does the rest). */
  dependencyFailed(error: Error): boolean;
}

/**
 * Sync every table marked due.
 * Input: the time left (a deadline, milliseconds). Output: how many were synced, and how many failed.
 *  1. The due tables, oldest due first, a few at a time, until the deadline is near.
 *  2. A table whose metadata mirrors its latest version already (a catalog load synced it), or
 *     that is gone, is only cleared.
 *  3. A sync that failed stays due: the next run tries again.
 */
export async function catchUpIceberg(
  deps: IcebergCatchUpDeps,
  options: { deadline: number; concurrency: number },
): Promise<{ synced: number; failed: number; interrupted: boolean }> {
  const report = { synced: 0, failed: 0, interrupted: false };
  // The platform's own table slow or throttling ends the run early, not in a failed invocation: what is still marked
  // due stays due, for the next run a minute on.
  const orInterrupted = (error: unknown) => {
    if (!deps.dependencyFailed(error as Error)) throw error;
    report.interrupted = true;
  };
  let due: { dataSetId: string; dueAt: string }[];
  try {
    due = (await deps.dueIcebergSyncs(new Date(deps.now()))).sort((a, b) => (a.dueAt < b.dueAt ? -1 : 1));
  } catch (error) {
    orInterrupted(error);
    return report;
  }
  const next = async (): Promise<void> => {
    for (let item = due.shift(); item && !report.interrupted; item = due.shift()) {
      // A sync of a large table takes seconds: none is started in the last ten.
      if (deps.now() > options.deadline - 10_000) return;
      try {
        const dataSet = await deps.getDataSet(item.dataSetId);
        const behind = dataSet?.version != null && (dataSet.iceberg?.delta_version ?? -1) < dataSet.version;
        const result = dataSet && behind ? await syncIceberg(deps, dataSet) : null;
        if (result?.iceberg.status === 'Failed') {
          report.failed++;
          continue;
        }
        if (result) report.synced++;
        await deps.clearIcebergDue(item.dataSetId, item.dueAt);
      } catch (error) {
        orInterrupted(error);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, next));
  return report;
}
