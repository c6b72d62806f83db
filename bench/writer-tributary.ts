/**
 * One side of the writer benchmark, in a process of its own: a staged commit's read and encode path,
 * from the staged NDJSON to Parquet files. The input is a file standing in for the platform bucket
 * (bench/staged-input.ts writes it). The timed part reads each slice as a commit reads it from the
 * bucket and parses its lines (every row held, as a commit holds them until its files are written),
 * then cuts and encodes the files as a commit does (at most maxRowsPerFile rows and
 * maxPayloadBytesPerFile payload bytes each). Peak memory is this process's: the input in the store
 * is not in it, the rows read back are.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writePartitionedFiles } from '#delta/operations/data-files.ts';
import { encodeStaged, maxPayloadBytesPerFile, maxRowsPerFile } from '#shared/adapters/parquet/envelope-writer.ts';
import { parseStagedSlice } from '#shared/adapters/staged-rows.ts';
import type { StagedRow } from '#shared/domain/ingest/commit-table.ts';
import { trackPeakMemory } from './peak-memory.ts';

const rows = Number(process.argv[2] ?? 100_000);
const directory = mkdtempSync(path.join(os.tmpdir(), 'bench-writer-'));
const store = path.join(directory, 'staged.ndjson');
// Written by a process of its own: building it here would leave this process's heap grown.
const { slices, rawBytes } = JSON.parse(
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'staged-input.ts'), String(rows), store],
    { encoding: 'utf8' },
  ),
) as { slices: { offset: number; length: number }[]; rawBytes: number };
const memory = trackPeakMemory();

const started = performance.now();
// Read back as a commit reads its slices (a ranged GET each), every row held until the files are written.
const fd = openSync(store, 'r');
const staged: StagedRow[] = [];
for (const [index, slice] of slices.entries()) {
  const bytes = Buffer.allocUnsafe(slice.length);
  readSync(fd, bytes, 0, slice.length, slice.offset);
  for (const message of parseStagedSlice(bytes)) staged.push({ batch: `batch-${index}`, message });
}
closeSync(fd);
const readSeconds = (performance.now() - started) / 1000;
memory.sample();
const rowsRss = process.memoryUsage().rss;
let fileBytes = 0;
let files = 0;
await writePartitionedFiles(
  {
    async put(_key, body) {
      fileBytes += body.length;
      files++;
      memory.sample();
    },
  },
  staged,
  {
    partitionOf: (row) => ({ dt: row.message.dt }),
    maxRowsPerFile,
    weight: (row) => row.message.payload_size,
    maxWeightPerFile: maxPayloadBytesPerFile,
    encode: encodeStaged,
  },
);
const seconds = (performance.now() - started) / 1000;
const peakRss = memory.stop();
rmSync(directory, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify({
    rows: staged.length,
    seconds,
    readSeconds,
    rawBytes,
    fileBytes,
    files,
    peakRss,
    baselineRss: memory.baselineRss,
    rowsRss,
  }),
);
