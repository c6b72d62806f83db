/**
 * Reading and writing Delta tables' data files: envelopes read back for pipelines and queries,
 * pipeline rows appended as Parquet. Only the batch writer and the job runner load this module
 * (it brings apache-arrow and parquet-wasm).
 */
import type { DataSet } from '../domain/datasets/model.ts';
import { appendToTable } from '../domain/delta/commit.ts';
import { writeDailyFiles } from '../domain/delta/daily-files.ts';
import type { AddFile } from '../domain/delta/log.ts';
import type { ColumnDefinition } from '../domain/pipelines/definition.ts';
import type { DecodedRow, StoredEnvelope } from '../domain/pipelines/run-pipeline.ts';
import { type CellValue, maxRowsPerFile, readParquet, writeParquet } from './parquet/parquet-files.ts';
import { fixStorage, recordCommit, tableAt, tableFiles } from './table-storage.ts';

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
      writeFiles: (pending) =>
        writeDailyFiles(deps.storage, pending, {
          dayOf: (row) => row.dt,
          encode: (chunk) =>
            writeParquet(
              specs,
              specs.map((_, c) => chunk.map((row) => row.cells[c] as CellValue)),
            ),
          maxRowsPerFile,
        }),
    },
  );
  return { version: result.version, written: result.written };
}
