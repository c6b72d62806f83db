/**
 * Staged envelopes as a commit reads them back (shared/adapters/staged-rows.ts) and the Parquet file
 * a commit writes of them (encodeStaged), read by DuckDB: every field as it was queued, the payload's
 * base64 text byte for byte (bodies of every length modulo 3, binary ones, one whose base64 Node
 * would not write itself), timestamps in microseconds, UTC.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { encodeStaged } from '#shared/adapters/parquet/envelope-writer.ts';
import { parseStagedSlice } from '#shared/adapters/staged-rows.ts';

const DATA_SET = '00000000-0000-4000-8000-00000000da7a';
const SOURCE = '00000000-0000-4000-8000-000000000500';
const TENANT = '00000000-0000-4000-8000-000000000007';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Every byte value, so that the base64 alphabet and the one-byte representation are all exercised. */
const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i));

/** Envelopes as the ingest function queues them, the text of each line written out. */
const queued = [
  {
    v: 1,
    message_id: id(1),
    data_set_id: DATA_SET,
    dt: '2026-11-18',
    ingested_at_us: '1795000000123456',
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: 'application/json',
    payload_size: 15,
    receipt: { epoch: 'door-1', accepted: 41, duplicates: 0 },
    headers: { 'x-github-event': 'push', 'x-github-delivery': 'd-1' },
    payload: 'eyJldmVudCI6InB1c2gifQ==',
  },
  {
    v: 1,
    message_id: id(2),
    data_set_id: DATA_SET,
    dt: '2026-11-18',
    ingested_at_us: '1795000000123457',
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: null,
    payload_size: 256,
    payload: binary.toString('base64'),
  },
  {
    v: 1,
    message_id: id(3),
    data_set_id: DATA_SET,
    dt: '2026-11-19',
    ingested_at_us: '1795086400000001',
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: 'text/plain; charset=utf-8',
    payload_size: 0,
    payload: '',
  },
  {
    v: 1,
    message_id: id(4),
    data_set_id: DATA_SET,
    dt: '2026-11-19',
    ingested_at_us: '1795086400000002',
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: 'application/x-www-form-urlencoded',
    payload_size: 2,
    payload: 'aGk',
  },
  {
    v: 1,
    message_id: id(5),
    data_set_id: DATA_SET,
    dt: '2026-11-19',
    ingested_at_us: '1795086400000003',
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: 'application/octet-stream',
    payload_size: 3,
    payload: 'A-_B',
  },
  {
    v: 1,
    message_id: id(6),
    data_set_id: DATA_SET,
    dt: '2026-11-19',
    ingested_at_us: '1795086400000004',
    source_id: SOURCE,
    tenant_id: TENANT,
    content_type: 'application/xml',
    payload_size: 2,
    payload: 'PHg+',
  },
];

const claimChecked = {
  v: 1,
  message_id: id(7),
  data_set_id: DATA_SET,
  dt: '2026-11-19',
  ingested_at_us: '1795086400000005',
  source_id: SOURCE,
  tenant_id: TENANT,
  content_type: 'application/json',
  payload_size: 3_000_000,
  payload_ref: { bucket: 'tributary-platform', key: `claims/${id(7)}` },
};

const slice = (envelopes: object[], trailing = '\n') =>
  Buffer.from(envelopes.map((envelope) => JSON.stringify(envelope)).join('\n') + trailing);

describe('staged envelopes read back for a commit', () => {
  it('are the envelopes that were staged, field for field, whatever the slice ends with', () => {
    for (const trailing of ['\n', '', '\n\n']) {
      const read = parseStagedSlice(slice([...queued, claimChecked], trailing));
      expect(read.map((envelope) => JSON.parse(JSON.stringify(envelope)))).toEqual([...queued, claimChecked]);
      expect(read.map((envelope) => envelope.payload)).toEqual([
        ...queued.map((envelope) => envelope.payload),
        undefined,
      ]);
      expect(read.map((envelope) => envelope.receipt)).toEqual([queued[0]?.receipt, ...Array(6).fill(undefined)]);
    }
  });

  it('refuse a slice with a line that is not an envelope', () => {
    const { message_id: _, ...noId } = queued[0] as (typeof queued)[number];
    expect(() => parseStagedSlice(slice([queued[1] as object, noId]))).toThrow(/message_id/);
    expect(() => parseStagedSlice(Buffer.from(`${JSON.stringify(queued[1])}\n{"v":1,`))).toThrow(SyntaxError);
  });
});

describe('a file of staged envelopes', () => {
  it('is read by DuckDB as the envelopes were queued: payload text byte for byte, ingested_at in µs UTC', async () => {
    const rows = parseStagedSlice(slice(queued)).map((message) => ({ batch: 'batch-1', message }));
    const file = await encodeStaged(rows);
    expect(file.stats).toMatchObject({
      numRecords: 6,
      nullCount: { content_type: 1, payload: 0, message_id: 0 },
      minValues: { message_id: id(1), ingested_at: '2026-11-18T11:06:40.123Z', payload_size: 0 },
      maxValues: { message_id: id(6), ingested_at: '2026-11-19T11:06:40.001Z', payload_size: 256 },
    });

    const directory = mkdtempSync(path.join(os.tmpdir(), 'staged-rows-'));
    try {
      const parquet = path.join(directory, 'file.parquet');
      writeFileSync(parquet, file.bytes);
      const duck = await DuckDBInstance.create(':memory:');
      const connection = await duck.connect();
      const types = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${parquet}')`))
        .getRowObjectsJson()
        .map((row) => [row.column_name, row.column_type]);
      expect(types).toEqual([
        ['message_id', 'VARCHAR'],
        ['ingested_at', 'TIMESTAMP WITH TIME ZONE'],
        ['source_id', 'VARCHAR'],
        ['tenant_id', 'VARCHAR'],
        ['content_type', 'VARCHAR'],
        ['payload_size', 'BIGINT'],
        ['payload', 'VARCHAR'],
        ['headers', 'VARCHAR'],
      ]);
      const read = (
        await connection.runAndReadAll(
          `SELECT message_id, epoch_us(ingested_at) AS us, source_id, tenant_id, content_type, payload_size, payload, headers
           FROM read_parquet('${parquet}')`,
        )
      ).getRowObjectsJson();
      connection.closeSync();
      expect(read).toEqual(
        queued.map((envelope) => ({
          message_id: envelope.message_id,
          us: envelope.ingested_at_us,
          source_id: SOURCE,
          tenant_id: TENANT,
          content_type: envelope.content_type,
          payload_size: String(envelope.payload_size),
          payload: envelope.payload,
          // Envelopes queued before headers were kept have none: null.
          headers: envelope.message_id === id(1) ? '{"x-github-event":"push","x-github-delivery":"d-1"}' : null,
        })),
      );
      // The bodies themselves: what a reader decoding the payload gets back.
      expect(Buffer.from(String(read[1]?.payload), 'base64')).toEqual(binary);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
