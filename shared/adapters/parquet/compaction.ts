/**
 * Rewriting small Parquet files as fewer large ones: each source is read on its own and handed to
 * parquet-wasm's streaming writer batch by batch, which flushes a row group every `maxRowsPerFile`
 * rows; a file is closed once its flushed bytes reach the target (so it overshoots by at most a row
 * group). The
 * WebAssembly memory (which grows and never shrinks) holds one source file and one row group at a
 * time, whatever the size of the file being written; the output collects in JavaScript memory.
 */
import * as parquet from 'parquet-wasm';
import type { TableStorage } from '../../domain/delta/commit.ts';
import type { AddFile } from '../../domain/delta/log.ts';
import { maxRowsPerFile } from './parquet-files.ts';

export async function rewriteFiles(
  storage: Pick<TableStorage, 'get' | 'put'>,
  sources: AddFile[],
  targetSize: number,
  newPath: () => string,
): Promise<{ path: string; size: number; sources: AddFile[] }[]> {
  const written: { path: string; size: number; sources: AddFile[] }[] = [];
  let next = 0;
  while (next < sources.length) {
    const taken: AddFile[] = [];
    const chunks: Uint8Array[] = [];
    let size = 0;
    // The writer pulls a source whenever it wants rows; once the file holds the target, no more.
    const batches = new ReadableStream({
      async pull(controller) {
        const source = sources[next];
        if (!source || (taken.length > 0 && size >= targetSize)) {
          controller.close();
          return;
        }
        next++;
        taken.push(source);
        const table = parquet.readParquet(await storage.get(source.path), { batchSize: 8192 });
        for (const batch of table.recordBatches()) controller.enqueue(batch);
        table.free();
      },
    });
    // As the batch writer writes them: zstd; the opaque payload without dictionary or page statistics.
    const properties = new parquet.WriterPropertiesBuilder()
      .setCompression(parquet.Compression.ZSTD)
      .setMaxRowGroupSize(maxRowsPerFile)
      .setColumnDictionaryEnabled('payload', false)
      .setColumnStatisticsEnabled('payload', parquet.EnabledStatistics.None)
      .build();
    const reader = (await parquet.transformParquetStream(batches, properties)).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value as Uint8Array);
      size += (value as Uint8Array).length;
    }
    const path = newPath();
    await storage.put(path, Buffer.concat(chunks), 'application/vnd.apache.parquet');
    written.push({ path, size, sources: taken });
  }
  return written;
}
