/** One side of the writer benchmark, in a process of its own: envelopes → Parquet with the batch writer's encoder. */
import { batchWriterDeps } from '#functions/ingest/write-batch.ts';
import { makeEnvelopes } from './envelopes.ts';
import { trackPeakMemory } from './peak-memory.ts';

const rows = Number(process.argv[2] ?? 100_000);
const envelopes = makeEnvelopes(rows);
const rawBytes = envelopes.reduce((sum, envelope) => sum + envelope.payload_size, 0);
const memory = trackPeakMemory();

const started = performance.now();
let fileBytes = 0;
let files = 0;
for (let i = 0; i < envelopes.length; i += batchWriterDeps.maxRowsPerFile) {
  const file = batchWriterDeps.encode(envelopes.slice(i, i + batchWriterDeps.maxRowsPerFile));
  fileBytes += file.bytes.length;
  files++;
  memory.sample();
}
const seconds = (performance.now() - started) / 1000;
const peakRss = memory.stop();
process.stdout.write(
  JSON.stringify({ rows, seconds, rawBytes, fileBytes, files, peakRss, baselineRss: memory.baselineRss }),
);
