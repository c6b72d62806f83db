/**
 * Reads envelope rows back from a webhook data set's Parquet files, for API functions: hyparquet
 * (pure JavaScript) and fzstd for the zstd pages keep this within an API function's size budget,
 * where the writer's parquet-wasm would not fit.
 *
 * The events view reads a file by byte ranges (envelopeGroups): its footer, then per row group the
 * narrow columns of a slice of rows, then the pages of bodies it wants (the offset index says where
 * each page of a column starts). A slice holds at most `sliceBodyBytes` of bodies, so memory stays
 * bounded whatever the size of the file or its row groups; a row group another writer wrote without
 * an offset index is read by whole column chunks instead.
 */
import { decompress } from 'fzstd';
import {
  type AsyncBuffer,
  type FileMetaData,
  parquetMetadata,
  parquetMetadataAsync,
  parquetReadObjects,
} from 'hyparquet';
import type { EventGroup, EventKey, StoredEvent } from '../../domain/monitoring/events.ts';

const columns = ['message_id', 'ingested_at', 'content_type', 'payload_size', 'payload'];
const keyColumns = ['message_id', 'ingested_at', 'content_type', 'payload_size'];

// fzstd is given no output buffer: with one, its frame-header check compares that buffer to a
// number, which turns the whole buffer into a string first (3 to 4 times slower per page).
const compressors = { ZSTD: (input: Uint8Array) => decompress(input) };
// Received times keep their microseconds (the default parser makes a millisecond Date).
const parsers = { timestampFromMicroseconds: (micros: bigint) => micros };

/** Whether a file has the headers column: files written before envelopes kept headers do not. */
const hasHeaders = (metadata: FileMetaData) => metadata.schema.some((element) => element.name === 'headers');

/** The headers column's JSON text as an object of strings; null for a row without headers (or an unreadable cell). */
export function headersOf(text: unknown): Record<string, string> | null {
  if (typeof text !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    return Object.fromEntries(Object.entries(parsed).filter((entry) => typeof entry[1] === 'string'));
  } catch {
    return null;
  }
}

export async function readEnvelopeFile(bytes: Uint8Array): Promise<StoredEvent[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file, { parsers });
  const withHeaders = hasHeaders(metadata);
  const rows = await parquetReadObjects({
    file,
    metadata,
    columns: withHeaders ? [...columns, 'headers'] : columns,
    rowFormat: 'object',
    compressors,
    parsers,
  });
  return rows.map((row) => ({ ...keyOf(row), payload: String(row.payload ?? ''), headers: headersOf(row.headers) }));
}

function keyOf(row: Record<string, unknown>): Omit<EventKey, 'row'> {
  return {
    message_id: String(row.message_id),
    ingested_at_us: BigInt(row.ingested_at as bigint),
    content_type: (row.content_type as string | null | undefined) ?? null,
    payload_size: Number(row.payload_size),
  };
}

/** A file in a store, read by byte ranges (end exclusive). */
export interface RangeSource {
  byteLength: number;
  read(start: number, end: number): Promise<Uint8Array>;
}

/** At most this many bytes of bodies (decoded) in memory at once. */
export const sliceBodyBytes = 8 * 1024 * 1024;
/** The footer is read with the file's last bytes: one request for every footer Tributary writes. */
const footerFetchBytes = 64 * 1024;

function asyncBuffer(source: RangeSource): AsyncBuffer {
  return {
    byteLength: source.byteLength,
    async slice(start: number, end?: number) {
      const bytes = await source.read(start, end ?? source.byteLength);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}

type ChunkMeta = NonNullable<FileMetaData['row_groups'][number]['columns'][number]['meta_data']>;

const micros = (value: unknown): bigint | null =>
  typeof value === 'bigint' ? value : value instanceof Date ? BigInt(value.getTime()) * 1000n : null;

/**
 * A file's row groups as the events view reads them (shared/domain/monitoring/events.ts): bounds from
 * the footer's statistics, and slices of rows read by range. `deleted` names rows (of the file) that
 * another writer's deletion vector removed: they are left out.
 */
export async function envelopeGroups(
  source: RangeSource,
  deleted: (fileRow: number) => boolean = () => false,
  bodiesPerSlice = sliceBodyBytes,
): Promise<EventGroup[]> {
  const file = asyncBuffer(source);
  const metadata = await parquetMetadataAsync(file, { parsers, initialFetchSize: footerFetchBytes });
  // Read with the bodies, where the file has them (files written before headers were kept do not).
  const bodyColumns = hasHeaders(metadata) ? ['payload', 'headers'] : ['payload'];
  const groups: EventGroup[] = [];
  let groupStart = 0;
  for (const rowGroup of metadata.row_groups) {
    const rows = Number(rowGroup.num_rows);
    const first = groupStart;
    groupStart += rows;
    const chunk = (name: string): ChunkMeta | undefined =>
      rowGroup.columns.find((column) => column.meta_data?.path_in_schema[0] === name)?.meta_data;
    const times = chunk('ingested_at')?.statistics;
    const ids = chunk('message_id')?.statistics;
    const sizes = chunk('payload_size')?.statistics;
    const payload = chunk('payload');
    const headers = chunk('headers');
    const min = micros(times?.min_value ?? times?.min);
    const max = micros(times?.max_value ?? times?.max);
    const minId = ids?.min_value ?? ids?.min;
    const maxId = ids?.max_value ?? ids?.max;
    const largest = sizes?.max_value ?? sizes?.max;
    const bodyBytes = Number(payload?.total_uncompressed_size ?? 0) + Number(headers?.total_uncompressed_size ?? 0);
    const rowsPerSlice = Math.max(1, Math.min(rows, Math.floor((rows * bodiesPerSlice) / Math.max(1, bodyBytes))));
    groups.push({
      // Statistics in microseconds, widened by a millisecond as the Delta statistics are.
      min: min === null ? 0n : min - 1000n,
      max: max === null ? BigInt(Number.MAX_SAFE_INTEGER) * 1000n : max + 1000n,
      ...(typeof minId === 'string' ? { minId } : {}),
      ...(typeof maxId === 'string' ? { maxId } : {}),
      ...(largest !== undefined && largest !== null ? { maxPayloadSize: Number(largest) } : {}),
      size: rowGroup.columns
        .filter((column) => [...columns, 'headers'].includes(column.meta_data?.path_in_schema[0] ?? ''))
        .reduce((sum, column) => sum + Number(column.meta_data?.total_compressed_size ?? 0), 0),
      async *slices() {
        for (let start = 0; start < rows; start += rowsPerSlice) {
          const end = Math.min(rows, start + rowsPerSlice);
          const keyRows = await parquetReadObjects({
            file,
            metadata,
            columns: keyColumns,
            rowStart: first + start,
            rowEnd: first + end,
            useOffsetIndex: true,
            compressors,
            parsers,
          });
          const keys: EventKey[] = [];
          keyRows.forEach((row, index) => {
            if (!deleted(first + start + index)) keys.push({ ...keyOf(row), row: start + index });
          });
          yield {
            keys,
            async *bodies(wanted: number[]) {
              if (wanted.length === 0) return;
              // One range of pages from the first row wanted to the last: inside one slice, so bounded.
              const from = wanted[0] as number;
              const to = (wanted.at(-1) as number) + 1;
              const bodies = await parquetReadObjects({
                file,
                metadata,
                columns: bodyColumns,
                rowStart: first + from,
                rowEnd: first + to,
                useOffsetIndex: true,
                compressors,
              });
              for (const row of wanted) {
                const body = bodies[row - from];
                yield { row, payload: String(body?.payload ?? ''), headers: headersOf(body?.headers) };
              }
            },
          };
        }
      },
    });
  }
  return groups;
}
