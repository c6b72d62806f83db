/**
 * Rewriting small Parquet files as fewer large ones: each source is read on its own and handed to
 * parquet-wasm's streaming writer batch by batch, which flushes a row group every `maxRowsPerFile`
 * rows; a file is closed once its flushed bytes reach the target (so it overshoots by at most a row
 * group). The
 * WebAssembly memory (which grows and never shrinks) holds one source file and one row group at a
 * time, whatever the size of the file being written; the output collects in JavaScript memory.
 *
 * Files other writers added may come with a deletion vector: the rows it marks are not part of the
 * table and are left out of the rewrite (runs of kept rows are sliced out of each batch). Their files
 * may also have another schema than Tributary's (a backfill from Spark): one output file only ever
 * holds sources of one Parquet schema, a source of another starts a new file.
 */
import { parquetMetadata } from 'hyparquet';
import * as parquet from 'parquet-wasm';
import { type DeletedRows, deletedRowsOf } from '../kernel/deletion-vectors.ts';
import type { AddFile } from '../kernel/log.ts';
import type { TableStorage } from '../kernel/storage.ts';
import { maxRowsPerFile } from './parquet-files.ts';

/** What makes two Parquet files' rows one stream: their columns' types and the Arrow schema they carry. */
function schemaOf(bytes: Uint8Array): string {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const columns = metadata.schema
    .slice(1)
    .map(
      ({ name, type, type_length, repetition_type, converted_type, scale, precision, num_children, logical_type }) => ({
        name,
        type,
        type_length,
        repetition_type,
        converted_type,
        scale,
        precision,
        num_children,
        logical_type,
      }),
    );
  const arrow = metadata.key_value_metadata?.find((entry) => entry.key === 'ARROW:schema')?.value ?? null;
  return JSON.stringify({ columns, arrow }, (_, value) => (typeof value === 'bigint' ? String(value) : value));
}

/** The batch's rows a deletion vector keeps, as slices of consecutive rows (the batch itself when it keeps all). */
function keptSlices(batch: parquet.RecordBatch, firstRow: number, deleted: DeletedRows): parquet.RecordBatch[] {
  if (deleted.cardinality === 0) return [batch];
  const slices: parquet.RecordBatch[] = [];
  let start = -1;
  for (let i = 0; i <= batch.numRows; i++) {
    const kept = i < batch.numRows && !deleted.has(firstRow + i);
    if (kept && start < 0) start = i;
    if (!kept && start >= 0) {
      slices.push(batch.slice(start, i - start));
      start = -1;
    }
  }
  // A batch whose rows are all deleted still gives the writer its schema (a file may hold none of its rows).
  if (slices.length === 0) slices.push(batch.slice(0, 0));
  batch.free();
  return slices;
}

export async function rewriteFiles(
  storage: Pick<TableStorage, 'get' | 'put'>,
  sources: AddFile[],
  targetSize: number,
  newPath: () => string,
): Promise<{ path: string; size: number; rows: number; sources: AddFile[] }[]> {
  const written: { path: string; size: number; rows: number; sources: AddFile[] }[] = [];
  let next = 0;
  // A source read for a file whose schema it did not match: the next file starts with it.
  let held: { bytes: Uint8Array; schema: string } | null = null;
  while (next < sources.length) {
    const taken: AddFile[] = [];
    const chunks: Uint8Array[] = [];
    let size = 0;
    let rows = 0;
    let fileSchema: string | null = null;
    // The writer pulls a source whenever it wants rows; once the file holds the target, no more.
    const batches = new ReadableStream({
      async pull(controller) {
        const source = sources[next];
        if (!source || (taken.length > 0 && size >= targetSize)) {
          controller.close();
          return;
        }
        const bytes = held?.bytes ?? (await storage.get(source.path));
        const schema = held?.schema ?? schemaOf(bytes);
        held = null;
        if (fileSchema !== null && schema !== fileSchema) {
          held = { bytes, schema };
          controller.close();
          return;
        }
        fileSchema = schema;
        next++;
        taken.push(source);
        const deleted = await deletedRowsOf(storage, source);
        const table = parquet.readParquet(bytes, { batchSize: 8192 });
        let firstRow = 0;
        for (const batch of table.recordBatches()) {
          const count = batch.numRows;
          for (const slice of keptSlices(batch, firstRow, deleted)) {
            rows += slice.numRows;
            controller.enqueue(slice);
          }
          firstRow += count;
        }
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
    written.push({ path, size, rows, sources: taken });
  }
  return written;
}
