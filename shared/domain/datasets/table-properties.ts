/**
 * A data set's table properties: the Delta table's own configuration (checkpoints, retention, file
 * size, compaction, freshness, data retention), read from its log and set by committing a version.
 */
import { conflict, notFound } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { DataSet } from './model.ts';
import type { TablePropertyRules } from './table-settings.ts';
import { type DataSetDeps, type DataSetRecords, visibleDataSet } from './use-cases.ts';

/**
 * Commits a change of the table's properties as its next version, on top of whatever the latest
 * version sets (the change is asked again when another writer won that version).
 */
export type PropertiesCommitter = (
  dataSet: DataSet,
  change: (current: Record<string, string>) => Record<string, string>,
) => Promise<{ version: number; properties: Record<string, string> }>;

export interface TablePropertyDeps {
  commitProperties: PropertiesCommitter;
  rules: TablePropertyRules;
  /** The data set with its store fixed (the tenant's default store, before its table's first write). */
  fixStorage(dataSet: DataSet): Promise<DataSet>;
  /** Keeps the table's freshness target where the staged-envelope committer reads it. */
  recordFreshnessTarget(dataSetId: string, freshnessMs: number | null): Promise<void>;
  /**
   * Sends the table's committer a commit trigger now, and one when every committer has read the
   * target again: rows a shorter target made due are committed, others wait for their new time.
   */
  askCommitter(dataSetId: string): Promise<void>;
  /** The deployment's freshness target (milliseconds), for tables that set none. */
  defaultFreshnessMs: number;
  /** The deployment's data retention (milliseconds), for tables that set none; null: rows are kept. */
  defaultDataRetentionMs: number | null;
  /** Asks for a maintenance run of the table (the schedule queues it): a new retention applies at once. */
  markMaintenanceDue(dataSet: DataSet, at: Date): Promise<void>;
  /**
   * Holds the table against its jobs (and other requests) until the answer is called, waiting a few
   * seconds for one that holds it; null while it is still held.
   */
  holdTable(dataSetId: string): Promise<(() => Promise<void>) | null>;
}

/**
 * Set table properties (delta.checkpointInterval, delta.deletedFileRetentionDuration,
 * delta.logRetentionDuration, delta.targetFileSize, tributary.optimize.minFiles, tributary.freshness,
 * tributary.dataRetention).
 * Input: the data set, the properties (a value of "" removes one). Output: the table's version and
 * the properties in force.
 *  1. The data set must be visible and its tenant writable.
 *  2. Names and values are checked (400): unknown names, unreadable or unsafe values.
 *  3. The merged properties are committed as the table's next version
 *     (operation SET TBLPROPERTIES), on top of whatever another writer set meanwhile; a table not
 *     written yet is created by it (version 0), so a new connection's table can be set up before
 *     its first envelope. Every writer and reader takes the properties from the log.
 *  4. The freshness target is also kept where the staged-envelope committer looks; a target set or
 *     removed brings the table's committer (a shorter one may make its staged rows due now).
 *  5. A data retention set (or removed, leaving the deployment's) asks for a maintenance run now,
 *     which removes the days it no longer keeps.
 *  6. The change is committed while the request holds the table against its jobs, as a deletion
 *     does: a commit landing after a deletion removed the table would leave a table of a data set
 *     that no longer exists in the tenant's store. 409 while a maintenance run or a deletion still
 *     holds it after a few seconds' wait; the data set is read again under the hold (404 once deleted).
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
  deps.rules.check(properties);
  const release = await deps.holdTable(dataSetId);
  if (!release)
    throw conflict('A maintenance run or a deletion of this table is under way; set its properties once it ends');
  let committed: { version: number; properties: Record<string, string> };
  try {
    const held = await deps.getDataSet(dataSetId);
    if (!held) throw notFound('Data set');
    const dataSet = await deps.fixStorage(held);
    committed = await deps.commitProperties(dataSet, (current) => {
      const configuration = { ...current, ...properties };
      for (const key of removed) delete configuration[key];
      return configuration;
    });
    const effective = deps.rules.inForce(committed.properties);
    await deps.recordFreshnessTarget(dataSet.data_set_id, effective.freshnessMs);
    if ('tributary.freshness' in properties) await deps.askCommitter(dataSet.data_set_id);
    const retentionMs = effective.dataRetentionMs ?? deps.defaultDataRetentionMs;
    if ('tributary.dataRetention' in properties && retentionMs !== null)
      await deps.markMaintenanceDue(dataSet, new Date());
  } finally {
    await release();
  }
  return {
    version: committed.version,
    properties: committed.properties,
    effective: effectiveProperties(committed.properties, deps),
  };
}

/** The properties in force, as the table-properties answers give them (seconds and bytes). */
function effectiveProperties(
  configuration: Record<string, string>,
  deps: Pick<TablePropertyDeps, 'rules' | 'defaultFreshnessMs' | 'defaultDataRetentionMs'>,
) {
  const effective = deps.rules.inForce(configuration);
  const retentionMs = effective.dataRetentionMs ?? deps.defaultDataRetentionMs;
  return {
    checkpoint_interval: effective.checkpointInterval,
    deleted_file_retention_seconds: effective.deletedFileRetentionMs / 1000,
    log_retention_seconds: effective.logRetentionMs / 1000,
    target_file_size: effective.targetFileSize,
    optimize_min_files: effective.optimizeMinFiles,
    freshness_seconds: (effective.freshnessMs ?? deps.defaultFreshnessMs) / 1000,
    data_retention_seconds: retentionMs === null ? null : retentionMs / 1000,
  };
}

/**
 * Read the table properties.
 * Input: the data set. Output: the table's version, the properties its latest version sets, and
 * those in force (each one set, else its default).
 *  1. The data set must be visible (any role that reads data sets: the properties are no secret).
 *  2. A table with nothing committed has no properties yet: the defaults apply (its store is not
 *     reached, so a new connection's settings read even while the store is down).
 *  3. Otherwise its latest snapshot's metadata, as any Delta reader would open it.
 */
export async function readTableProperties(
  deps: DataSetDeps & Pick<TablePropertyDeps, 'rules' | 'defaultFreshnessMs' | 'defaultDataRetentionMs'>,
  principal: Principal,
  dataSetId: string,
) {
  const dataSet = await visibleDataSet(deps, principal, dataSetId);
  const snapshot =
    dataSet.storage_location && dataSet.object_store_id && dataSet.version !== null
      ? await deps.snapshotOf(dataSet)
      : null;
  const properties = snapshot?.properties ?? {};
  return {
    version: snapshot && snapshot.version >= 0 ? snapshot.version : null,
    properties,
    effective: effectiveProperties(properties, deps),
  };
}
