import { type Metadata, metadataAction, parseStats } from '../delta/log.ts';
import { tableProperties, validateProperties } from '../delta/properties.ts';
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
        // Rows another engine deleted with a deletion vector are still in the file but not in the table.
        num_records: parseStats(add.stats).numRecords - (add.deletionVector?.cardinality ?? 0),
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

/** Commits a new metadata action on top of the table's latest version (the change sees that version's metadata). */
export type MetadataCommitter = (
  dataSet: DataSet,
  change: (current: Metadata | null) => Metadata,
) => Promise<{ version: number; metadata: Metadata }>;

export interface TablePropertyDeps {
  commitMetadata: MetadataCommitter;
  /** The data set with its store fixed (the tenant's default store, before its table's first write). */
  fixStorage(dataSet: DataSet): Promise<DataSet>;
  /** Keeps the table's freshness target where the staged-envelope committer reads it. */
  recordFreshnessTarget(dataSetId: string, freshnessMs: number | null): Promise<void>;
  /** The deployment's freshness target (milliseconds), for tables that set none. */
  defaultFreshnessMs: number;
}

/**
 * Set table properties (delta.checkpointInterval, delta.deletedFileRetentionDuration,
 * delta.logRetentionDuration, delta.targetFileSize, tributary.optimize.minFiles, tributary.freshness).
 * Input: the data set, the properties (a value of "" removes one). Output: the table's version and
 * the properties in force.
 *  1. The data set must be visible and its tenant writable.
 *  2. Names and values are checked (400): unknown names, unreadable or unsafe values.
 *  3. A metadata action with the merged configuration is committed as a new version
 *     (operation SET TBLPROPERTIES), on top of whatever another writer set meanwhile; a table not
 *     written yet is created by it (version 0), so a new connection's table can be set up before
 *     its first envelope. Every writer and reader takes the properties from the log.
 *  4. The freshness target is also kept where the staged-envelope committer looks.
 */
export async function setTableProperties(
  deps: DataSetRecords & TablePropertyDeps,
  principal: Principal,
  dataSetId: string,
  properties: Record<string, string>,
) {
  const visible = await visibleDataSet(deps, principal, dataSetId);
  await tenantFor(deps, principal, visible.tenant_id, 'write');
  const removed = Object.keys(properties).filter((key) => properties[key] === '');
  validateProperties(Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== '')));
  const dataSet = await deps.fixStorage(visible);
  const committed = await deps.commitMetadata(dataSet, (current) => {
    const base =
      current ??
      metadataAction({
        tableId: dataSet.data_set_id,
        name: dataSet.name,
        schema: dataSet.schema_json,
        partitionColumns: dataSet.partitioning.columns,
        createdTime: Date.parse(dataSet.created_at),
      });
    const configuration = { ...base.configuration, ...properties };
    for (const key of removed) delete configuration[key];
    return { ...base, configuration };
  });
  const effective = tableProperties(committed.metadata.configuration);
  await deps.recordFreshnessTarget(dataSet.data_set_id, effective.freshnessMs);
  return {
    version: committed.version,
    properties: committed.metadata.configuration,
    effective: {
      checkpoint_interval: effective.checkpointInterval,
      deleted_file_retention_seconds: effective.deletedFileRetentionMs / 1000,
      log_retention_seconds: effective.logRetentionMs / 1000,
      target_file_size: effective.targetFileSize,
      optimize_min_files: effective.optimizeMinFiles,
      freshness_seconds: (effective.freshnessMs ?? deps.defaultFreshnessMs) / 1000,
    },
  };
}
