/**
 * The other side of the writer benchmark: DuckDB, single-threaded, from the same envelopes (loaded
 * with its appender) to a zstd Parquet file with COPY. Load and COPY are timed together and apart.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, DuckDBTimestampTZValue } from '@duckdb/node-api';
import { makeEnvelopes } from './envelopes.ts';
import { trackPeakMemory } from './peak-memory.ts';

const rows = Number(process.argv[2] ?? 100_000);
const envelopes = makeEnvelopes(rows);
const directory = mkdtempSync(path.join(os.tmpdir(), 'bench-duckdb-'));
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const connection = await instance.connect();
await connection.run('SET threads = 1');
await connection.run(
  'CREATE TABLE envelopes (message_id VARCHAR, ingested_at TIMESTAMPTZ, source_id VARCHAR, tenant_id VARCHAR, content_type VARCHAR, payload_size BIGINT, payload VARCHAR)',
);
const memory = trackPeakMemory();

const started = performance.now();
const appender = await connection.createAppender('envelopes');
for (const envelope of envelopes) {
  appender.appendVarchar(envelope.message_id);
  appender.appendTimestampTZ(new DuckDBTimestampTZValue(envelope.ingested_at_us));
  appender.appendVarchar(envelope.source_id);
  appender.appendVarchar(envelope.tenant_id);
  if (envelope.content_type === null) appender.appendNull();
  else appender.appendVarchar(envelope.content_type);
  appender.appendBigInt(BigInt(envelope.payload_size));
  appender.appendVarchar(envelope.payload);
  appender.endRow();
}
appender.closeSync();
const loaded = performance.now();
const file = path.join(directory, 'envelopes.parquet');
await connection.run(`COPY envelopes TO '${file}' (FORMAT parquet, COMPRESSION zstd)`);
const finished = performance.now();
const peakRss = memory.stop();
const fileBytes = statSync(file).size;
rmSync(directory, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify({
    rows,
    seconds: (finished - started) / 1000,
    copySeconds: (finished - loaded) / 1000,
    fileBytes,
    peakRss,
    baselineRss: memory.baselineRss,
  }),
);
