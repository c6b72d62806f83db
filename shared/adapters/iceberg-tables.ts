/**
 * Data sets' Iceberg metadata (shared/domain/datasets/iceberg.ts) written with the Iceberg library
 * (iceberg/) into the table's own directory of the tenant's store, from the Delta table at the
 * version the data set records (a writer's cached state when it just committed it: no read).
 * `icebergTables.load` is what the Iceberg REST catalog answers a table with.
 */

import { mirrorDeltaVersion } from '#iceberg/mirror.ts';
import {
  type IcebergCatchUpDeps,
  type IcebergSyncDeps,
  type MirrorOutcome,
  syncIceberg,
} from '../domain/datasets/iceberg.ts';
import type { DataSet } from '../domain/datasets/model.ts';
import { failureReason, StoreFailure, storeFailureCategories } from '../domain/tenants/store-failures.ts';
import { logger } from '../observability/logger.ts';
import { asServiceErrors } from './delta-errors.ts';
import { dependencyFailed } from './dependency-failures.ts';
import { getDataSet, recordDataSetIceberg } from './dynamo/data-sets.ts';
import { clearIcebergSyncDue, dueIcebergSyncs, markIcebergSyncDue } from './dynamo/iceberg-syncs.ts';
import { snapshots, tableReader } from './table-storage.ts';

/**
 * The data set's table at its latest version, mirrored as Iceberg metadata: the log read to its end
 * (from the snapshot cache's state, the commits after it), not the version Tributary recorded, which
 * another writer's commits (a DELETE in Spark) leave behind. Right after a commit of its own, the
 * writer's state at that version is the end a moment ago: taken as it is, with no read (a sync a
 * commit, and the read would be a dozen GETs each).
 */
const mirrorLatest = (dataSet: DataSet, justCommitted = false): Promise<MirrorOutcome> =>
  asServiceErrors(async () => {
    const root = dataSet.storage_location;
    if (!root) throw new Error(`Data set ${dataSet.data_set_id} has no storage yet`);
    const reader = await tableReader(dataSet);
    const state =
      justCommitted && dataSet.version !== null
        ? await snapshots.source(reader).current(dataSet.data_set_id, dataSet.version)
        : (await snapshots.open(dataSet.data_set_id, reader)).state;
    const result = await mirrorDeltaVersion(reader.storage, {
      root,
      state,
      now: Date.now(),
      known: dataSet.iceberg?.metadata_location ?? null,
    });
    if (result.status === 'Current' && result.wrote)
      logger.info('Iceberg metadata written', {
        data_set_id: dataSet.data_set_id,
        delta_version: result.deltaVersion,
        metadata_location: result.metadataLocation,
      });
    return result;
  });

export const icebergSyncDeps: IcebergSyncDeps = {
  mirrorLatest,
  recordIceberg: recordDataSetIceberg,
  markIcebergDue: (dataSet, at) => markIcebergSyncDue(dataSet.data_set_id, dataSet.tenant_id, at),
  failureCategory: failureReason,
  now: () => Date.now(),
  warn: (message, fields) => logger.warn(message, fields),
};

export const icebergCatchUpDeps: IcebergCatchUpDeps = {
  ...icebergSyncDeps,
  dueIcebergSyncs,
  clearIcebergDue: clearIcebergSyncDue,
  getDataSet,
  dependencyFailed,
};

/**
 * A sync that failed for a reason other than the tenant's store (a fault of ours): the catalog answers
 * it as a server error, and the next load tries again. A failure of the store is a StoreFailure, answered
 * 422 with its category, as everywhere else.
 */
export class IcebergSyncFailed extends Error {
  constructor(readonly reason: string) {
    super(`The table's Iceberg metadata could not be brought up to date (${reason})`);
    this.name = 'IcebergSyncFailed';
  }
}

/** What the catalog answers for a failed sync: the store's category (422), or a fault of ours (500). */
export function syncFailure(reason: string | null): Error {
  const category = storeFailureCategories.find((known) => known === reason);
  return category ? new StoreFailure(category) : new IcebergSyncFailed(reason ?? 'unknown');
}

/**
 * The data set's Iceberg metadata brought up to date (synced) and read: its latest metadata file's
 * location and content. null before the data set's first commit, and for a table Iceberg cannot
 * express (its status says why); a failed sync throws IcebergSyncFailed.
 */
export const icebergTables: {
  load(dataSet: DataSet): Promise<{ metadata_location: string; metadata: object } | null>;
} = {
  async load(dataSet) {
    const result = await syncIceberg(icebergSyncDeps, dataSet);
    if (!result) return null;
    if (result.iceberg.status === 'Failed') throw syncFailure(result.iceberg.reason);
    if (result.iceberg.status !== 'Current' || !result.metadata || !result.iceberg.metadata_location) return null;
    return { metadata_location: result.iceberg.metadata_location, metadata: result.metadata };
  },
};
