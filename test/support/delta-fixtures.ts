/**
 * Real Delta tables written by Spark, Databricks and delta-rs (test/fixtures/delta-tables, see its
 * README for where each comes from), loaded into an in-memory store so that the reader under test
 * opens them as it opens a table in S3.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { decompress } from 'fzstd';
import { parquetReadObjects } from 'hyparquet';
import { deletedRowsOf } from '#delta/kernel/deletion-vectors.ts';
import type { AddFile } from '#delta/kernel/log.ts';
import type { LogReader, TableState } from '#delta/kernel/snapshot.ts';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { type MemoryTable, memoryTable } from './memory-table.ts';

export const fixturesDirectory = path.resolve(import.meta.dirname, '../fixtures/delta-tables');

export function fixtureTable(name: string): { table: MemoryTable; reader: LogReader } {
  const table = memoryTable({ jitter: false });
  const root = path.join(fixturesDirectory, name);
  for (const relative of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(root, relative);
    if (statSync(file).isFile())
      table.objects.set(relative.split(path.sep).join('/'), { bytes: readFileSync(file), lastModified: 0 });
  }
  return { table, reader: { storage: table.storage, decodeCheckpoint } };
}

export async function parquetRows(bytes: Uint8Array, columns?: string[]): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parquetReadObjects({
    file,
    ...(columns ? { columns } : {}),
    compressors: { ZSTD: (input, outputLength) => decompress(input, new Uint8Array(outputLength)) },
  });
}

/** The table's rows at a state: every live file read, the rows its deletion vector marks left out. */
export async function liveRows(
  table: MemoryTable,
  state: TableState,
  columns?: string[],
): Promise<(Record<string, unknown> & { partition: AddFile['partitionValues'] })[]> {
  const rows: (Record<string, unknown> & { partition: AddFile['partitionValues'] })[] = [];
  for (const file of state.files.values()) {
    const deleted = await deletedRowsOf(table.storage, file);
    const fileRows = await parquetRows(await table.storage.get(file.path), columns);
    fileRows.forEach((row, index) => {
      if (!deleted.has(index)) rows.push({ ...row, partition: file.partitionValues });
    });
  }
  return rows;
}
