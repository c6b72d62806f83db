/**
 * Where a data set's Delta table lives and how to read it: fixed at its first write (the tenant's
 * default store then), reached with the store's own credentials. Opening a snapshot needs no
 * WebAssembly (checkpoints are read with hyparquet), so API functions read tables through here;
 * writing (commits, checkpoints, compaction) is in delta-tables.ts.
 */

import { type DataSet, storageLocationOf } from '../domain/datasets/model.ts';
import type { MetadataCommitter } from '../domain/datasets/use-cases.ts';
import { commitMetadata } from '../domain/delta/commit.ts';
import { type LogReader, openSnapshot } from '../domain/delta/snapshot.ts';
import { fixDataSetStorage, recordDataSetVersion } from './dynamo/data-sets.ts';
import { deltaLog } from './dynamo/delta-log.ts';
import { getObjectStore } from './dynamo/object-stores.ts';
import { noteNewRows } from './dynamo/source-watches.ts';
import { getTenant } from './dynamo/tenants.ts';
import { decodeCheckpoint } from './parquet/checkpoint-reader.ts';
import { type TableLocation, tableLocation } from './s3/tenant-stores.ts';

/** The data set with its store and location fixed: the tenant's default store at its first write. */
export async function fixStorage(dataSet: DataSet): Promise<DataSet> {
  if (dataSet.object_store_id && dataSet.storage_location) return dataSet;
  const tenant = await getTenant(dataSet.tenant_id);
  const storeId = tenant?.default_object_store_id;
  const store = storeId ? await getObjectStore(dataSet.tenant_id, storeId) : null;
  if (!store)
    throw new Error(`Tenant ${dataSet.tenant_id} has no object store to write data set ${dataSet.data_set_id} to`);
  return fixDataSetStorage(
    dataSet.data_set_id,
    store.object_store_id,
    storageLocationOf(store.base_url, dataSet.data_set_id),
    new Date(),
  );
}

export async function tableFiles(dataSet: DataSet): Promise<TableLocation> {
  const store = dataSet.object_store_id ? await getObjectStore(dataSet.tenant_id, dataSet.object_store_id) : null;
  if (!store || !dataSet.storage_location) throw new Error(`Data set ${dataSet.data_set_id} has no storage yet`);
  return tableLocation(store, dataSet.storage_location);
}

/** What opening a snapshot of the data set's table needs (its root: a path in the log may be absolute). */
export async function tableReader(dataSet: DataSet): Promise<LogReader & { storage: TableLocation }> {
  return {
    storage: await tableFiles(dataSet),
    decodeCheckpoint,
    ...(dataSet.storage_location ? { root: dataSet.storage_location } : {}),
  };
}

export async function recordCommit(dataSet: DataSet, version: number): Promise<void> {
  await recordDataSetVersion(dataSet.data_set_id, version, new Date());
  await noteNewRows(dataSet.data_set_id);
}

/** A metadata change (table properties) committed as the table's next version; the next checkpoint carries it. */
export const commitTableMetadata: MetadataCommitter = async (dataSet, change) => {
  const reader = await tableReader(dataSet);
  return commitMetadata(
    { log: deltaLog, storage: reader.storage, hooks: { onCompleted: (entry) => recordCommit(dataSet, entry.version) } },
    dataSet.data_set_id,
    async (latest) => change(latest < 0 ? null : (await openSnapshot(reader, { version: latest })).state.metadata),
  );
};
