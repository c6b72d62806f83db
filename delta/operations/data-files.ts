/**
 * The data files of one commit: rows grouped by their partition, each partition written as one or
 * more Parquet files of at most `maxRowsPerFile` rows (and, when rows are weighed, at most
 * `maxWeightPerFile` of their weight), each file described as a Delta add. Files are encoded one
 * at a time, so a commit's memory is bounded by one file's rows, however many it writes.
 */
import { randomUUID } from 'node:crypto';
import { type AddFile, type FileStats, type PartitionValues, partitionDirectory } from '../kernel/log.ts';
import type { TableStorage } from '../kernel/storage.ts';

export interface PartitionedFiles<T> {
  /** The row's partition values (its partition directory follows from them: `dt=2026-11-21`). */
  partitionOf(row: T): PartitionValues;
  /** May fetch what the rows only point at (claim-checked payloads) before encoding them. */
  encode(rows: T[]): { bytes: Uint8Array; stats: FileStats } | Promise<{ bytes: Uint8Array; stats: FileStats }>;
  maxRowsPerFile: number;
  weight?: (row: T) => number;
  maxWeightPerFile?: number;
}

/** The rows cut into runs of at most `maxRows` rows and (when weighed) `maxWeight` weight; never an empty run. */
export function chunksOf<T>(rows: T[], maxRows: number, weight?: (row: T) => number, maxWeight = Infinity): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let load = 0;
  for (const row of rows) {
    const w = weight?.(row) ?? 0;
    if (current.length > 0 && (current.length >= maxRows || load + w > maxWeight)) {
      chunks.push(current);
      current = [];
      load = 0;
    }
    current.push(row);
    load += w;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export async function writePartitionedFiles<T>(
  storage: Pick<TableStorage, 'put'>,
  rows: T[],
  files: PartitionedFiles<T>,
): Promise<{ adds: AddFile[]; bytes: number }> {
  const byPartition = new Map<string, { values: PartitionValues; rows: T[] }>();
  for (const row of rows) {
    const values = files.partitionOf(row);
    const directory = partitionDirectory(values);
    const partition = byPartition.get(directory);
    if (partition) partition.rows.push(row);
    else byPartition.set(directory, { values, rows: [row] });
  }
  const adds: AddFile[] = [];
  let bytes = 0;
  for (const [directory, partition] of byPartition) {
    for (const chunk of chunksOf(partition.rows, files.maxRowsPerFile, files.weight, files.maxWeightPerFile)) {
      const file = await files.encode(chunk);
      const name = `part-${randomUUID()}.zstd.parquet`;
      const path = directory === '' ? name : `${directory}/${name}`;
      await storage.put(path, file.bytes, 'application/vnd.apache.parquet');
      adds.push({
        path,
        partitionValues: partition.values,
        size: file.bytes.length,
        modificationTime: Date.now(),
        dataChange: true,
        stats: JSON.stringify(file.stats),
      });
      bytes += file.bytes.length;
    }
  }
  return { adds, bytes };
}
