/**
 * The writer benchmark's input as the platform bucket holds it: the benchmark's envelopes as the
 * writer stages them, one NDJSON line each, in slices of 1,000 lines (a writer batch each), written
 * to a file. Answers the slices' byte ranges and the raw payload bytes.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { envelopeStream, queuedEnvelope } from './envelopes.ts';

const [rows, file] = [Number(process.argv[2] ?? 100_000), process.argv[3] as string];
const linesPerSlice = 1000;
const slices: { offset: number; length: number }[] = [];
let rawBytes = 0;
let offset = 0;
let lines: string[] = [];
const fd = openSync(file, 'w');
for (const envelope of envelopeStream(rows)) {
  rawBytes += envelope.payload_size;
  lines.push(queuedEnvelope(envelope, slices.length * linesPerSlice + lines.length + 1));
  if (lines.length === linesPerSlice || slices.length * linesPerSlice + lines.length === rows) {
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    writeSync(fd, bytes);
    slices.push({ offset, length: bytes.length });
    offset += bytes.length;
    lines = [];
  }
}
closeSync(fd);
process.stdout.write(JSON.stringify({ slices, rawBytes }));
