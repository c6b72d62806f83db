import type { TableState } from '../delta/snapshot.ts';
import { conflict, notFound } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import { effectiveTenantId, type Principal, requireTenantVisible } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';
import type { DataSet } from './model.ts';

export interface DataSetFiles {
  list(relativePrefix: string): Promise<{ key: string; size: number }[]>;
  delete(relativeKeys: string[]): Promise<void>;
  presignGet(relativeKey: string, expiresInSeconds: number): Promise<string>;
}

/** Data sets' records and logs, in the table. */
export interface DataSetRecords {
  getTenant(tenantId: string): Promise<Tenant | null>;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  listDataSetsByTenant(
    tenantId: string,
    filters: { pipelineId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<DataSet>>;
  listAllDataSets(filters: { pipelineId?: string | undefined }, page: PageRequest): Promise<Page<DataSet>>;
  /** Whether a connection or pipeline still writes to the data set. */
  hasWriter(dataSet: DataSet): Promise<boolean>;
  deleteLog(dataSetId: string): Promise<void>;
  deleteDataSetItem(dataSetId: string): Promise<void>;
}

/** …and their files, in the tenant's store (only the functions that reach the store load S3). */
export interface DataSetDeps extends DataSetRecords {
  filesOf(dataSet: DataSet): Promise<DataSetFiles>;
  /** The table's latest snapshot: its last checkpoint and the commits after it. */
  snapshotOf(dataSet: DataSet): Promise<TableState>;
}

export async function listDataSets(
  deps: DataSetRecords,
  principal: Principal,
  query: { tenant_id?: string | undefined; pipeline_id?: string | undefined } & PageRequest,
) {
  const tenantId = effectiveTenantId(principal, query.tenant_id);
  const filters = { pipelineId: query.pipeline_id };
  return tenantId ? deps.listDataSetsByTenant(tenantId, filters, query) : deps.listAllDataSets(filters, query);
}

export async function visibleDataSet(deps: DataSetRecords, principal: Principal, dataSetId: string): Promise<DataSet> {
  const dataSet = await deps.getDataSet(dataSetId);
  if (!dataSet) throw notFound('Data set');
  requireTenantVisible(principal, dataSet.tenant_id, 'Data set');
  return dataSet;
}

/** Presigned download URLs stay valid this long. */
export const downloadUrlSeconds = 15 * 60;

/**
 * The files of a data set's latest snapshot, each with a presigned download URL (15 minutes): the
 * live files of the table opened as any Delta reader opens it (last checkpoint, then the commits
 * after it). While a compaction commits, a reader sees either the small files or the compacted
 * ones, never both.
 */
export async function listDataSetFiles(deps: DataSetDeps, principal: Principal, dataSetId: string) {
  const dataSet = await visibleDataSet(deps, principal, dataSetId);
  // Nothing committed yet: nothing to read (and no need to reach a store that may be down).
  if (!dataSet.storage_location || !dataSet.object_store_id || dataSet.version === null)
    return { version: dataSet.version, files: [] };
  const snapshot = await deps.snapshotOf(dataSet);
  if (snapshot.version < 0) return { version: dataSet.version, files: [] };
  const files = await deps.filesOf(dataSet);
  const live = [...snapshot.files.values()].sort(
    (a, b) => a.modificationTime - b.modificationTime || (a.path < b.path ? -1 : 1),
  );
  return {
    version: snapshot.version,
    files: await Promise.all(
      live.map(async (add) => ({
        path: add.path,
        partition_values: add.partitionValues,
        size: add.size,
        num_records: add.stats.numRecords,
        url: await files.presignGet(add.path, downloadUrlSeconds),
      })),
    ),
  };
}

/**
 * Delete a data set.
 *  1. 409 while a connection or pipeline still writes to it (delete that first).
 *  2. Its objects in the tenant store go, then its log, then the data set itself.
 */
export async function deleteDataSet(deps: DataSetDeps, principal: Principal, dataSetId: string): Promise<void> {
  const dataSet = await visibleDataSet(deps, principal, dataSetId);
  await tenantFor(deps, principal, dataSet.tenant_id, 'write');
  if (await deps.hasWriter(dataSet)) {
    throw conflict(
      `A ${dataSet.origin.type === 'Webhook' ? 'connection' : 'pipeline'} still writes to this data set; delete it first`,
    );
  }
  if (dataSet.storage_location) {
    const files = await deps.filesOf(dataSet);
    const objects = await files.list('');
    await files.delete(objects.map((object) => object.key));
  }
  await deps.deleteLog(dataSetId);
  await deps.deleteDataSetItem(dataSetId);
}
