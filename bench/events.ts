/**
 * The events route's read path in a process of its own: one request's worth of files (16, as the
 * batch writer encodes them) read back and filtered by readEvents: a plain listing, a search for
 * text found in no body (every body tested), and a JSON value. The files are in memory, so this
 * is the function's own work (Parquet decode, base64 decode, matching), not the store's latency.
 */

import { envelopeGroups } from '#shared/adapters/parquet/envelope-reader.ts';
import { encodeEnvelopes } from '#shared/adapters/parquet/envelope-writer.ts';
import {
  type EventFile,
  type EventQuery,
  type EventReadDeps,
  maxFilesPerRead,
  readEvents,
} from '#shared/domain/monitoring/events.ts';
import { makeEnvelopes } from './envelopes.ts';
import { trackPeakMemory } from './peak-memory.ts';

const rowsPerFile = Number(process.argv[2] ?? 5_000);
const envelopes = makeEnvelopes(rowsPerFile * maxFilesPerRead);
const rawBytes = envelopes.reduce((sum, envelope) => sum + envelope.payload_size, 0);
let fetched = 0;
// Each file read by byte ranges from memory, as the events route reads it from its store.
const files = Array.from({ length: maxFilesPerRead }, (_, index): EventFile => {
  const { bytes, stats } = encodeEnvelopes(envelopes.slice(index * rowsPerFile, (index + 1) * rowsPerFile));
  return {
    size: bytes.length,
    stats,
    groups: () =>
      envelopeGroups({
        byteLength: bytes.length,
        read: async (start, end) => {
          fetched += end - start;
          return bytes.subarray(start, end);
        },
      }),
  };
});
const deps: EventReadDeps = {
  snapshotFiles: async () => files,
  stagedSources: async () => [],
  bytesFetched: () => fetched,
  cursors: { seal: async () => 'cursor', open: async () => ({}) },
};

async function measure(query: Omit<EventQuery, 'limit'>) {
  fetched = 0;
  const memory = trackPeakMemory();
  const started = performance.now();
  const page = await readEvents(deps, { limit: 50, ...query });
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds,
    peakRss: memory.stop(),
    filesRead: page.files_read,
    bytesRead: page.bytes_read,
    scanned: page.events_scanned,
    found: page.events.length,
  };
}

// A listing stops at its first file (it holds the newest 50); a search for text no body holds tests every body.
const results = {
  listing: await measure({}),
  containsNothing: await measure({ contains: 'no body holds this' }),
  containsRare: await measure({ contains: `"sequence":${rowsPerFile * 3 + 7},` }),
  // A string value: bodies without it (and without escapes) are passed over unparsed.
  jsonString: await measure({
    json_path: '$.id',
    json_equals: (
      JSON.parse(Buffer.from(envelopes[rowsPerFile * 3 + 7]?.payload ?? '', 'base64').toString()) as { id: string }
    ).id,
  }),
  // A number: every body is parsed, and these bodies' keys are all different (V8's slowest case).
  jsonNumber: await measure({ json_path: '$.sequence', json_equals: String(rowsPerFile * 3 + 7) }),
};
process.stdout.write(
  JSON.stringify({
    rowsPerFile,
    files: files.length,
    rawBytes,
    parquetBytes: files.reduce((sum, file) => sum + file.size, 0),
    results,
  }),
);
