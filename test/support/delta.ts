/**
 * Reads a Delta table the way an outside reader would: the `_delta_log/` commits from S3, replayed
 * from version 0 (adds minus removes), then the live Parquet files, through DuckDB (an independent
 * Parquet reader). It checks the log as it
 * goes: consecutive versions from 0, protocol and metadata in version 0, every added file present
 * with the size and record count the log claims, partition values matching the path.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect, inject } from 'vitest';

export function localS3(): S3Client {
  return new S3Client({
    endpoint: inject('runtimeEnv').AWS_ENDPOINT_URL_S3,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function listKeys(s3: S3Client, bucket: string, prefix: string): Promise<{ key: string; size: number }[]> {
  const keys: { key: string; size: number }[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((object) => ({ key: object.Key ?? '', size: Number(object.Size) })));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

async function getBytes(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const result = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await (result.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

export interface EnvelopeRow {
  dt: string;
  message_id: string;
  ingested_at: string;
  source_id: string;
  tenant_id: string;
  content_type: string | null;
  payload_size: number;
  payload: Buffer;
}

export interface TableRead<Row> {
  versions: number[];
  rows: Row[];
  /** DuckDB's type for each column, e.g. ingested_at: TIMESTAMP WITH TIME ZONE. */
  types: Record<string, string>;
}

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>> | undefined;

/**
 * Any Delta table: the log checked, every added file read by DuckDB with `select` (timestamps are
 * best selected as text), `dt` taken from the add's partition values.
 */
export async function readDeltaTable(location: string, select = '*'): Promise<TableRead<Record<string, unknown>>> {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(location);
  if (!match) throw new Error(`Not an s3 location: ${location}`);
  const [bucket, root] = [match[1] as string, match[2] as string];
  const s3 = localS3();
  const logKeys = (await listKeys(s3, bucket, `${root}/_delta_log/`))
    .map((object) => object.key)
    .filter((key) => /\/\d{20}\.json$/.test(key))
    .sort();
  const versions = logKeys.map((key) => Number(/(\d{20})\.json$/.exec(key)?.[1]));
  expect(versions, 'versions are consecutive from 0').toEqual(versions.map((_, i) => i));

  // Replayed by hand: a file is live when its newest action is an add (compaction removes files).
  const live = new Map<
    string,
    { path: string; partitionValues: Record<string, string>; size: number; stats: string }
  >();
  for (const [index, key] of logKeys.entries()) {
    const actions = (await getBytes(s3, bucket, key))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    if (index === 0) {
      expect(actions.find((action) => action.protocol)?.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
      const metaData = actions.find((action) => action.metaData)?.metaData;
      expect(metaData.partitionColumns).toEqual(['dt']);
      expect(metaData.format).toEqual({ provider: 'parquet', options: {} });
      expect(JSON.parse(metaData.schemaString).type).toBe('struct');
    }
    expect(actions[0]?.commitInfo).toBeDefined();
    for (const action of actions) {
      if (action.add) live.set(action.add.path, action.add);
      if (action.remove) live.delete(action.remove.path);
    }
  }
  const adds = [...live.values()];

  const directory = mkdtempSync(path.join(os.tmpdir(), 'delta-read-'));
  duck ??= await DuckDBInstance.create(':memory:');
  const connection = await duck.connect();
  const rows: Record<string, unknown>[] = [];
  let types: Record<string, string> = {};
  for (const [index, add] of adds.entries()) {
    const dt = /(?:^|\/)dt=([^/]+)\//.exec(add.path)?.[1];
    expect(add.partitionValues).toEqual({ dt });
    const bytes = await getBytes(s3, bucket, `${root}/${add.path}`);
    expect(bytes.length).toBe(add.size);
    const file = path.join(directory, `${index}.parquet`);
    writeFileSync(file, bytes);
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    types = Object.fromEntries(
      described.getRowObjectsJson().map((row) => [String(row.column_name), String(row.column_type)]),
    );
    const fileRows = (
      await connection.runAndReadAll(`SELECT ${select} FROM read_parquet('${file}')`)
    ).getRowObjectsJson();
    expect(fileRows.length).toBe(JSON.parse(add.stats).numRecords);
    for (const row of fileRows) rows.push({ dt, ...row });
  }
  connection.closeSync();
  return { versions, rows, types };
}

/** A webhook connection's table, rows as envelopes (payload decoded back to bytes). */
export async function readEnvelopeTable(location: string): Promise<TableRead<EnvelopeRow>> {
  const table = await readDeltaTable(
    location,
    `message_id, strftime(ingested_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%fZ') AS ingested_at, source_id, tenant_id, content_type, payload_size, payload`,
  );
  return {
    ...table,
    rows: table.rows.map((row) => ({
      dt: String(row.dt),
      message_id: String(row.message_id),
      ingested_at: String(row.ingested_at),
      source_id: String(row.source_id),
      tenant_id: String(row.tenant_id),
      content_type: row.content_type === null ? null : String(row.content_type),
      payload_size: Number(row.payload_size),
      payload: Buffer.from(String(row.payload), 'base64'),
    })),
  };
}

/** The table properties (metaData.configuration) of the table's latest version, read from its JSON commits. */
export async function tableConfiguration(location: string): Promise<Record<string, string>> {
  const [, bucket, root] = /^s3:\/\/([^/]+)\/(.+)$/.exec(location) ?? [];
  if (!bucket || !root) throw new Error(`Not an s3 location: ${location}`);
  const s3 = localS3();
  const logKeys = (await listKeys(s3, bucket, `${root}/_delta_log/`))
    .map((object) => object.key)
    .filter((key) => /\/\d{20}\.json$/.test(key))
    .sort();
  let configuration: Record<string, string> = {};
  for (const key of logKeys)
    for (const line of (await getBytes(s3, bucket, key)).toString('utf8').trim().split('\n')) {
      const action = JSON.parse(line);
      if (action.metaData) configuration = action.metaData.configuration;
    }
  return configuration;
}
