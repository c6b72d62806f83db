/**
 * Delta tables in tenant stores, as the writer and the runner use them: where a table lives (fixed
 * at its first write), its commit dependencies, reading envelopes back, appending typed rows.
 */
import { randomUUID } from 'node:crypto';
import { type DataSet, storageLocationOf } from '../domain/datasets/model.ts';
import { appendToTable, type CommitDeps } from '../domain/delta/commit.ts';
import type { AddFile } from '../domain/delta/log.ts';
import type { ColumnDefinition } from '../domain/pipelines/definition.ts';
import type { DecodedRow, StoredEnvelope } from '../domain/pipelines/run-pipeline.ts';
import { fixDataSetStorage, recordDataSetVersion } from './dynamo/data-sets.ts';
import { deltaLog } from './dynamo/delta-log.ts';
import { getObjectStore } from './dynamo/object-stores.ts';
import { getTenant } from './dynamo/tenants.ts';
import { type CellValue, maxRowsPerFile, readParquet, writeParquet } from './parquet/parquet-files.ts';
import { tableLocation } from './s3/tenant-stores.ts';

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

export async function tableFiles(dataSet: DataSet) {
  const store = dataSet.object_store_id ? await getObjectStore(dataSet.tenant_id, dataSet.object_store_id) : null;
  if (!store || !dataSet.storage_location) throw new Error(`Data set ${dataSet.data_set_id} has no storage yet`);
  return tableLocation(store, dataSet.storage_location);
}

export async function tableAt(dataSet: DataSet): Promise<Omit<CommitDeps, 'hooks'>> {
  return { log: deltaLog, storage: await tableFiles(dataSet) };
}

export async function recordCommit(dataSet: DataSet, version: number): Promise<void> {
  await recordDataSetVersion(dataSet.data_set_id, version, new Date());
}

/** The message ids and raw payloads of one envelope file. */
export async function readEnvelopes(dataSet: DataSet, file: AddFile): Promise<StoredEnvelope[]> {
  const table = readParquet(await (await tableFiles(dataSet)).get(file.path));
  const ids = table.getChild('message_id');
  const payloads = table.getChild('payload');
  const envelopes: StoredEnvelope[] = [];
  for (let i = 0; i < table.numRows; i++) {
    envelopes.push({ message_id: String(ids?.get(i)), payload: Buffer.from(String(payloads?.get(i) ?? ''), 'base64') });
  }
  return envelopes;
}

/** Appends decoded rows to a pipeline's output table: one file per day and chunk, once per source message. */
export async function appendRows(output: DataSet, columns: ColumnDefinition[], rows: DecodedRow[], attempt: number) {
  const table = await fixStorage(output);
  const deps = await tableAt(table);
  const specs = columns.map((column) => ({ name: column.name, type: column.type, nullable: true }));
  const result = await appendToTable(
    { ...deps, hooks: { onCompleted: (entry) => recordCommit(table, entry.version) } },
    {
      tableId: table.data_set_id,
      metadata: {
        tableId: table.data_set_id,
        name: table.name,
        schema: table.schema_json,
        partitionColumns: table.partitioning.columns,
        createdTime: Date.parse(table.created_at),
      },
      rows,
      deduplicate: true,
      attempt,
      async writeFiles(pending) {
        const adds: AddFile[] = [];
        let bytes = 0;
        const byDay = new Map<string, DecodedRow[]>();
        for (const row of pending) byDay.set(row.dt, [...(byDay.get(row.dt) ?? []), row]);
        for (const [dt, dayRows] of byDay) {
          for (let i = 0; i < dayRows.length; i += maxRowsPerFile) {
            const chunk = dayRows.slice(i, i + maxRowsPerFile);
            const file = writeParquet(
              specs,
              specs.map((_, c) => chunk.map((row) => row.cells[c] as CellValue)),
            );
            const path = `dt=${dt}/part-${randomUUID()}.zstd.parquet`;
            await deps.storage.put(path, file.bytes, 'application/vnd.apache.parquet');
            adds.push({
              path,
              partitionValues: { dt },
              size: file.bytes.length,
              modificationTime: Date.now(),
              dataChange: true,
              stats: file.stats,
            });
            bytes += file.bytes.length;
          }
        }
        return { adds, bytes };
      },
    },
  );
  return { version: result.version, written: result.written };
}
