/**
 * Envelope rows written as a webhook data set's Parquet files (envelope-reader.ts reads them back):
 * the columns of the envelope schema, the body as its base64 text. Only the batch writer and the
 * table-commits schedule load this module (it brings apache-arrow and parquet-wasm).
 */
import { maxRowsPerFile, type ParquetFile, writeParquet } from '#delta/parquet/parquet-files.ts';
import type { StagedRow } from '../../domain/ingest/commit-table.ts';
import {
  type Envelope,
  type EnvelopeMessage,
  envelopeColumns,
  envelopeFieldCells,
  envelopeHeaderCells,
} from '../../domain/ingest/envelope.ts';
import { claimedPayload } from '../s3/claim-checks.ts';
import { StagedEnvelope } from '../staged-rows.ts';

export { maxRowsPerFile };

/**
 * How envelope files are cut: at most maxRowsPerFile rows and this many raw payload bytes each.
 * A file's columns, their Arrow IPC copy, WebAssembly's copy (its memory never shrinks) and the
 * encoded file are what encoding adds to the rows a commit holds, each about a file's size: at
 * 8 MiB that was 120 MB, at 4 MiB about 80 (`npm run bench writer`). Files are ~2 MB of zstd
 * Parquet; compaction makes large files of small ones later.
 */
export const maxPayloadBytesPerFile = 4 * 1024 * 1024;

export function encodeEnvelopes(envelopes: Envelope[]) {
  return writeParquet(
    [...envelopeColumns],
    [...envelopeFieldCells(envelopes), envelopes.map((envelope) => envelope.payload), envelopeHeaderCells(envelopes)],
  );
}

async function payloadOf(message: EnvelopeMessage): Promise<string> {
  if (message.payload !== undefined) return message.payload;
  if (!message.payload_ref) throw new Error('The envelope has neither a payload nor a claim check');
  const payload = await claimedPayload(message.payload_ref);
  if (payload === null) throw new Error('The claim-checked payload no longer exists');
  return payload;
}

/**
 * One file of staged rows, its columns made straight from the staged envelopes (shared/adapters/
 * staged-rows.ts): the payloads written as base64 into one buffer, a claim-checked body fetched for
 * its row alone.
 */
export async function encodeStaged(rows: readonly StagedRow[]): Promise<ParquetFile> {
  const messages = rows.map((row) => row.message);
  const inline = messages.map((message) =>
    message instanceof StagedEnvelope
      ? message.payloadLength
      : message.payload === undefined
        ? undefined
        : Buffer.byteLength(message.payload),
  );
  const fetched = new Map<number, string>();
  await Promise.all(
    messages.flatMap((message, i) =>
      inline[i] === undefined ? [payloadOf(message).then((payload) => fetched.set(i, payload))] : [],
    ),
  );
  const offsets = new Int32Array(messages.length + 1);
  for (let i = 0; i < messages.length; i++)
    offsets[i + 1] = (offsets[i] as number) + (inline[i] ?? Buffer.byteLength(fetched.get(i) as string));
  const data = Buffer.allocUnsafe(offsets[messages.length] as number);
  messages.forEach((message, i) => {
    const at = offsets[i] as number;
    if (inline[i] === undefined) data.write(fetched.get(i) as string, at);
    else if (message instanceof StagedEnvelope) message.writePayload(data, at);
    else data.write(message.payload as string, at);
  });
  return writeParquet(
    [...envelopeColumns],
    [...envelopeFieldCells(messages), { offsets, data }, envelopeHeaderCells(messages)],
  );
}
