/**
 * Where a data set's Delta table lives: fixed at its first write, in the tenant's default store
 * then. Later changes of the tenant's default leave written tables where they are.
 */

import type { Tenant } from '../tenants/model.ts';
import type { ObjectStore } from '../tenants/object-stores.ts';
import { type DataSet, storageLocationOf } from './model.ts';

export interface StorageDeps {
  getTenant(tenantId: string): Promise<Tenant | null>;
  getObjectStore(tenantId: string, objectStoreId: string): Promise<ObjectStore | null>;
  /** Records the store and location with the data set (once: a location fixed already stays). */
  fixDataSetStorage(dataSetId: string, objectStoreId: string, location: string, now: Date): Promise<DataSet>;
}

/** The data set with its store and location fixed: the tenant's default store at its first write. */
export async function storageAtFirstWrite(deps: StorageDeps, dataSet: DataSet, now = new Date()): Promise<DataSet> {
  if (dataSet.object_store_id && dataSet.storage_location) return dataSet;
  const tenant = await deps.getTenant(dataSet.tenant_id);
  const storeId = tenant?.default_object_store_id;
  const store = storeId ? await deps.getObjectStore(dataSet.tenant_id, storeId) : null;
  if (!store)
    throw new Error(`Tenant ${dataSet.tenant_id} has no object store to write data set ${dataSet.data_set_id} to`);
  return deps.fixDataSetStorage(
    dataSet.data_set_id,
    store.object_store_id,
    storageLocationOf(store.base_url, dataSet.data_set_id),
    now,
  );
}

/**
 * Rows found in the table already may be a version whose writer stopped between its log entry and
 * recording it (its invocation timed out or crashed): nothing else would record it before the
 * table's next commit, so the data set would list no files and the pipelines watching it would not
 * hear of those rows. The table's latest version is recorded when the data set is behind it
 * (recording only moves forward).
 */
export async function recordVersionFound(
  table: { latestVersion(): Promise<number>; recordVersion(version: number): Promise<void> },
  known: number | null,
): Promise<void> {
  const latest = await table.latestVersion();
  if (latest >= 0 && latest > (known ?? -1)) await table.recordVersion(latest);
}
