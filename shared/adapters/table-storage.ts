/**
 * A data set's Delta table opened once per run (openTable): its store resolved and connected once,
 * with the store's own credentials. Opening a snapshot needs no
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
import type { DataSet } from '../domain/datasets/model.ts';
import { storageAtFirstWrite } from '../domain/datasets/storage.ts';
import type { PropertiesCommitter } from '../domain/datasets/table-properties.ts';
import type { StoredObjectStore } from '../domain/tenants/object-stores.ts';
import { connectStore } from '../domain/tenants/store-access.ts';
import { logger } from '../observability/logger.ts';
import { asServiceErrors } from './delta-errors.ts';
import {
  fixDataSetStorage,
  recordDataSetVersion,
  recordFirstDataSetVersion,
  StorePlaceMoved,
} from './dynamo/data-sets.ts';
import { commitRecords, versionClaims } from './dynamo/delta-log.ts';
import { TtlCache } from './dynamo/ingest-cache.ts';
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

/**
 * How long an instance uses a store's record before reading it again: a commit and the Iceberg
 * sync after it, and the tables of one tenant committed together, read it once. A store's changed
 * options or credentials reach commits and reads within this time; which store a data set writes to
 * is decided at its first write from the tenant as read then (fixStorage), never from this cache.
 */
export const storeRecordMs = 2_000;
const storeRecords = new TtlCache<StoredObjectStore | null>(() => storeRecordMs);

/** The store's record, as read within the last storeRecordMs. */
const storeRecord = (tenantId: string, objectStoreId: string) =>
  storeRecords.get(`${tenantId}#${objectStoreId}`, () => getObjectStore(tenantId, objectStoreId));

/** The data set with its store and location fixed (shared/domain/datasets/storage.ts), on DynamoDB. */
export const fixStorage = (dataSet: DataSet): Promise<DataSet> =>
  storageAtFirstWrite({ getTenant, getObjectStore: storeRecord, fixDataSetStorage }, dataSet);

/**
 * A data set's table opened for one run: its store looked up and connected once, and what the run
 * asks of the table handed out from there (a snapshot reader, what committing needs, the record of
 * its versions in DynamoDB). Capabilities that write Parquet are in delta-tables.ts.
 */
export interface OpenTable {
  tableId: string;
  storage: TableLocation;
  /** What opening a snapshot of the table needs (its root: a path in the log may be absolute). */
  reader: LogReader & { storage: TableLocation };
  /** What committing to the table needs, but its hooks. */
  committer(): Promise<Omit<CommitDeps, 'hooks'>>;
  /** Records a committed version with the data set, and tells the pipelines watching it. */
  recordVersion(version: number): Promise<void>;
  /** The table's latest version (-1 before its first commit), as this instance's snapshots know it. */
  latestVersion(): Promise<number>;
}

/** Where a data set's table is: its store read (as within storeRecordMs) and connected (its storage must be fixed). */
async function tableStorage(dataSet: DataSet) {
  const { data_set_id: tableId, tenant_id: tenantId, object_store_id: storeId, storage_location: root } = dataSet;
  const store = storeId ? await storeRecord(tenantId, storeId) : null;
  if (!store || !root) throw new Error(`Data set ${tableId} has no storage yet`);
  const connection = await connectStore({ secrets: secretBox, getTenant }, store, config.tenantStoreAccess());
  return { store, root, storage: await tableLocation(connection, root) };
}

/** The data set's table, its store resolved once (the data set's storage must be fixed). */
export async function openTable(dataSet: DataSet): Promise<OpenTable> {
  const { data_set_id: tableId, tenant_id: tenantId } = dataSet;
  const { store, root, storage } = await tableStorage(dataSet);
  const states = snapshots.source({ storage, decodeCheckpoint });
  /** Whether the data set has a version recorded (after its first commit, recordFirstDataSetVersion). */
  let recorded = dataSet.version !== null;
  const committer = async () => ({
    storage,
    arbiter: await arbiterFor(store, storage),
    records: commitRecords,
    snapshots: states,
    engine: tributaryEngine,
  });
  return {
    tableId,
    storage,
    reader: { storage, decodeCheckpoint, root },
    committer,
    async recordVersion(version) {
      if (recorded) return recordTableVersion(tableId, version);
      // Its first commit: recorded only while the store is still where this run wrote it.
      try {
        await recordFirstDataSetVersion(
          { ...dataSet, object_store_id: store.object_store_id },
          store.place_version ?? 0,
          version,
          new Date(),
        );
      } catch (error) {
        // The next run reads where the store is now, and the table there: not this run's state of the old place.
        if (error instanceof StorePlaceMoved) {
          storeRecords.forget(`${tenantId}#${store.object_store_id}`);
          states.forget(tableId);
        }
        throw error;
      }
      recorded = true;
      await noteNewRows(tableId);
    },
    latestVersion: async () => (await states.current(tableId)).version,
  };
}

/** The data set's table files (a reader's: a function that only reads carries none of committing's code). */
export async function tableFiles(dataSet: DataSet): Promise<TableLocation> {
  return (await tableStorage(dataSet)).storage;
}

/** What opening a snapshot of the data set's table needs. */
export async function tableReader(dataSet: DataSet): Promise<LogReader & { storage: TableLocation }> {
  const { storage, root } = await tableStorage(dataSet);
  return { storage, decodeCheckpoint, root };
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
  return (await openTable(dataSet)).committer();
}

/** A committed version recorded with its data set; the pipelines watching it hear of new rows. */
export async function recordTableVersion(tableId: string, version: number): Promise<void> {
  await recordDataSetVersion(tableId, version, new Date());
  await noteNewRows(tableId);
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
    const commit = async () => {
      const table = await openTable(dataSet);
      return commitMetadata(
        { ...(await table.committer()), hooks: { onCompleted: (entry) => table.recordVersion(entry.version) } },
        dataSet.data_set_id,
        async (current) => {
          const base = current ?? metadataAction(tableMetadataOf(dataSet));
          return { ...base, configuration: change(base.configuration) };
        },
      );
    };
    // The table's first version, made as its store moved: made again where the store is now.
    const committed = await commit().catch((error: unknown) => {
      if (error instanceof StorePlaceMoved) return commit();
      throw error;
    });
    return { version: committed.version, properties: committed.metadata.configuration };
  });
