/**
 * The data files of one commit: rows grouped by their day (the `dt` partition), each day written
 * as one or more Parquet files of at most `maxRowsPerFile` rows, each file described as a Delta add.
 * The batch writer (envelopes) and the job runner (decoded rows) both write their files this way.
 */
import { randomUUID } from 'node:crypto';
import type { TableStorage } from './commit.ts';
import type { AddFile, FileStats } from './log.ts';

export interface DailyFiles<T> {
  dayOf(row: T): string;
  encode(rows: T[]): { bytes: Uint8Array; stats: FileStats };
  maxRowsPerFile: number;
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
    for (let i = 0; i < dayRows.length; i += files.maxRowsPerFile) {
      const file = files.encode(dayRows.slice(i, i + files.maxRowsPerFile));
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
