/**
 * One side of the writer benchmark, in a process of its own: envelopes → Parquet files as a staged
 * commit cuts and encodes them (at most maxRowsPerFile rows and maxPayloadBytesPerFile payload bytes each).
 */
import { encodeEnvelopes, maxPayloadBytesPerFile, maxRowsPerFile } from '#shared/adapters/staged-commits.ts';
import { chunksOf } from '#shared/domain/delta/daily-files.ts';
import { makeEnvelopes } from './envelopes.ts';
import { trackPeakMemory } from './peak-memory.ts';

const rows = Number(process.argv[2] ?? 100_000);
const envelopes = makeEnvelopes(rows);
const rawBytes = envelopes.reduce((sum, envelope) => sum + envelope.payload_size, 0);
const memory = trackPeakMemory();

const started = performance.now();
let fileBytes = 0;
let files = 0;
for (const chunk of chunksOf(envelopes, maxRowsPerFile, (envelope) => envelope.payload_size, maxPayloadBytesPerFile)) {
  const file = encodeEnvelopes(chunk);
  fileBytes += file.bytes.length;
  files++;
  memory.sample();
}
const seconds = (performance.now() - started) / 1000;
const peakRss = memory.stop();
process.stdout.write(
  JSON.stringify({ rows, seconds, rawBytes, fileBytes, files, peakRss, baselineRss: memory.baselineRss }),
);
