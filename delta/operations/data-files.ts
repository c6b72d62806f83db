/**
 * The data files of one commit: rows grouped by their day (the `dt` partition), each day written
 * as one or more Parquet files of at most `maxRowsPerFile` rows (and, when rows are weighed, at most
 * `maxWeightPerFile` of their weight: payload bytes), each file described as a Delta add. Files
 * are encoded one at a time, so a commit's memory is bounded by one file's rows, however many it
 * writes. The staged-envelope committer and the job runner both write their files this way.
 */
import { randomUUID } from 'node:crypto';
import type { AddFile, FileStats } from '../kernel/log.ts';
import type { TableStorage } from '../log-store/storage.ts';

export interface DailyFiles<T> {
  dayOf(row: T): string;
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

export async function writeDailyFiles<T>(
  storage: Pick<TableStorage, 'put'>,
  rows: T[],
  files: DailyFiles<T>,
): Promise<{ adds: AddFile[]; bytes: number }> {
  const byDay = new Map<string, T[]>();
  for (const row of rows) {
    const day = files.dayOf(row);
    const dayRows = byDay.get(day);
    if (dayRows) dayRows.push(row);
    else byDay.set(day, [row]);
  }
  const adds: AddFile[] = [];
  let bytes = 0;
  for (const [dt, dayRows] of byDay) {
    for (const chunk of chunksOf(dayRows, files.maxRowsPerFile, files.weight, files.maxWeightPerFile)) {
      const file = await files.encode(chunk);
      const path = `dt=${dt}/part-${randomUUID()}.zstd.parquet`;
      await storage.put(path, file.bytes, 'application/vnd.apache.parquet');
      adds.push({
        path,
        partitionValues: { dt },
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
