/**
 * Reads envelope rows back from a webhook data set's Parquet files, for API functions: hyparquet
 * (pure JavaScript) and fzstd for the zstd pages keep this within an API function's size budget,
 * where the writer's parquet-wasm would not fit.
 */
import { decompress } from 'fzstd';
import { parquetReadObjects } from 'hyparquet';
import type { StoredEvent } from '../../domain/monitoring/events.ts';

const columns = ['message_id', 'ingested_at', 'content_type', 'payload_size', 'payload'];

export async function readEnvelopeFile(bytes: Uint8Array): Promise<StoredEvent[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const rows = await parquetReadObjects({
    file,
    columns,
    rowFormat: 'object',
    // fzstd is given no output buffer: with one, its frame-header check compares that buffer to a
    // number, which turns the whole buffer into a string first (3 to 4 times slower per page).
    compressors: { ZSTD: (input) => decompress(input) },
    // Received times keep their microseconds (the default parser makes a millisecond Date).
    parsers: { timestampFromMicroseconds: (micros: bigint) => micros },
  });
  return rows.map((row) => ({
    message_id: String(row.message_id),
    ingested_at_us: BigInt(row.ingested_at),
    content_type: row.content_type ?? null,
    payload_size: Number(row.payload_size),
    payload: String(row.payload ?? ''),
  }));
}
