/** One side of the writer benchmark, in a process of its own: envelopes → Parquet with the batch writer's encoder. */
import { batchWriterDeps } from '#functions/ingest/write-batch.ts';
import { makeEnvelopes } from './envelopes.ts';

const rows = Number(process.argv[2] ?? 100_000);
const envelopes = makeEnvelopes(rows);
const rawBytes = envelopes.reduce((sum, envelope) => sum + envelope.payload_size, 0);
// What is left of building the input is garbage; collect it so the baseline is the input itself.
(globalThis as { gc?: () => void }).gc?.();
const baselineRss = process.memoryUsage().rss;
let peak = baselineRss;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);

const started = performance.now();
let fileBytes = 0;
let files = 0;
for (let i = 0; i < envelopes.length; i += batchWriterDeps.maxRowsPerFile) {
  const file = batchWriterDeps.encode(envelopes.slice(i, i + batchWriterDeps.maxRowsPerFile));
  fileBytes += file.bytes.length;
  files++;
  peak = Math.max(peak, process.memoryUsage().rss);
}
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
process.stdout.write(JSON.stringify({ rows, seconds, rawBytes, fileBytes, files, peakRss: peak, baselineRss }));
