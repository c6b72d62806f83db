/**
 * Where a data set's Delta table lives and how to read it: fixed at its first write (the tenant's
 * default store then), reached with the store's own credentials. Opening a snapshot needs no
 * WebAssembly (checkpoints are read with hyparquet), so API functions read tables through here;
 * writing (commits, checkpoints, compaction) is in delta-tables.ts.
 */

import { ConditionalWritesUnsupported } from '#delta/errors.ts';
import { metadataAction, type TableMetadata } from '#delta/kernel/log.ts';
import { type LogReader, SnapshotCache } from '#delta/kernel/snapshot.ts';
import { conditionalArbiter, type LogArbiter, probeConditionalWrites } from '#delta/log-store/arbiter.ts';
import { coordinatedArbiter } from '#delta/log-store/coordinated.ts';
import { commitMetadata } from '#delta/operations/set-metadata.ts';
import type { CommitDeps } from '#delta/operations/transaction.ts';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { config } from '../config.ts';
import { tributaryEngine } from '../domain/datasets/exactly-once.ts';
import { type DataSet, storageLocationOf } from '../domain/datasets/model.ts';
import type { PropertiesCommitter } from '../domain/datasets/table-properties.ts';
import type { StoredObjectStore } from '../domain/tenants/object-stores.ts';
import { connectStore } from '../domain/tenants/store-access.ts';
import { logger } from '../observability/logger.ts';
import { asServiceErrors } from './delta-errors.ts';
import { fixDataSetStorage, recordDataSetVersion } from './dynamo/data-sets.ts';
import { commitRecords, versionClaims } from './dynamo/delta-log.ts';
import { getObjectStore, recordConditionalWrites } from './dynamo/object-stores.ts';
import { noteNewRows } from './dynamo/source-watches.ts';
import { getTenant } from './dynamo/tenants.ts';
import { type TableLocation, tableLocation } from './s3/tenant-stores.ts';
import { secretBox } from './secret-box.ts';

/**
 * Table states of this instance: a commit starts from the last one it saw (see SnapshotCache). They
 * may take a quarter of the function's memory (Lambda says how much it has); the rest is for the
 * rows and files a commit or a compaction holds.
 */
const functionMemoryMb = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? 0);
export const snapshots = new SnapshotCache(functionMemoryMb > 0 ? (functionMemoryMb * 1024 * 1024) / 4 : undefined);

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

async function tableStore(dataSet: DataSet): Promise<{ store: StoredObjectStore; storage: TableLocation }> {
  const store = dataSet.object_store_id ? await getObjectStore(dataSet.tenant_id, dataSet.object_store_id) : null;
  if (!store || !dataSet.storage_location) throw new Error(`Data set ${dataSet.data_set_id} has no storage yet`);
  const connection = await connectStore({ secrets: secretBox, getTenant }, store, config.tenantStoreAccess());
  return { store, storage: await tableLocation(connection, dataSet.storage_location) };
}

export async function tableFiles(dataSet: DataSet): Promise<TableLocation> {
  return (await tableStore(dataSet)).storage;
}

/** What opening a snapshot of the data set's table needs (its root: a path in the log may be absolute). */
export async function tableReader(dataSet: DataSet): Promise<LogReader & { storage: TableLocation }> {
  return {
    storage: await tableFiles(dataSet),
    decodeCheckpoint,
    ...(dataSet.storage_location ? { root: dataSet.storage_location } : {}),
  };
}

/** What probes found, per store and options version, so an instance asks DynamoDB (or the store) once. */
const conditionalWrites = new Map<string, boolean>();

/**
 * Who decides the table's versions: the store itself where it honours conditional writes (probed
 * once per store and options, and recorded with the store), else claims in DynamoDB.
 */
async function arbiterFor(store: StoredObjectStore, storage: TableLocation): Promise<LogArbiter> {
  const known = `${store.object_store_id}:${store.updated_at}`;
  let supported =
    conditionalWrites.get(known) ??
    (store.conditional_writes?.updated_at === store.updated_at ? store.conditional_writes.supported : undefined);
  if (supported === undefined) {
    supported = await probeConditionalWrites(storage);
    await recordConditionalWrites(store, supported);
    if (!supported)
      logger.warn('The object store does not honour conditional writes: commits are coordinated in DynamoDB', {
        object_store_id: store.object_store_id,
        tenant_id: store.tenant_id,
      });
  }
  conditionalWrites.set(known, supported);
  if (!supported) return coordinatedArbiter(storage, versionClaims);
  const arbiter = conditionalArbiter(storage);
  return {
    settle: arbiter.settle,
    async write(tableId, version, content, runId) {
      try {
        return await arbiter.write(tableId, version, content, runId);
      } catch (error) {
        // The store stopped honouring the condition (changed behind the same options): ask again next time.
        if (error instanceof ConditionalWritesUnsupported) {
          conditionalWrites.delete(known);
          await recordConditionalWrites(store, false);
        }
        throw error;
      }
    },
  };
}

/** What committing to the data set's table needs, but its hooks. */
export async function tableCommitter(dataSet: DataSet): Promise<Omit<CommitDeps, 'hooks'>> {
  const { store, storage } = await tableStore(dataSet);
  return {
    storage,
    arbiter: await arbiterFor(store, storage),
    records: commitRecords,
    snapshots: snapshots.source({ storage, decodeCheckpoint }),
    engine: tributaryEngine,
  };
}

export async function recordCommit(dataSet: DataSet, version: number): Promise<void> {
  await recordDataSetVersion(dataSet.data_set_id, version, new Date());
  await noteNewRows(dataSet.data_set_id);
}

/** The table as its data set describes it (its version 0). */
export const tableMetadataOf = (dataSet: DataSet): TableMetadata => ({
  tableId: dataSet.data_set_id,
  name: dataSet.name,
  schema: dataSet.schema_json,
  partitionColumns: dataSet.partitioning.columns,
  createdTime: Date.parse(dataSet.created_at),
});

/**
 * A change of the table properties committed as the table's next version (a metadata action: the
 * data set's version 0 when the table has none yet); the next checkpoint carries it.
 */
export const commitTableProperties: PropertiesCommitter = (dataSet, change) =>
  asServiceErrors(async () => {
    const committer = await tableCommitter(dataSet);
    const committed = await commitMetadata(
      { ...committer, hooks: { onCompleted: (entry) => recordCommit(dataSet, entry.version) } },
      dataSet.data_set_id,
      async (current) => {
        const base = current ?? metadataAction(tableMetadataOf(dataSet));
        return { ...base, configuration: change(base.configuration) };
      },
    );
    return { version: committed.version, properties: committed.metadata.configuration };
  });
