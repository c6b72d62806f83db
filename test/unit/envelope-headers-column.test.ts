/**
 * The envelope's `headers` column on a table made before it existed: the first commit since adds
 * it to the table's schema (a metaData action, the column nullable and at the end), the files
 * written before simply lack it, and a reader we did not write (DuckDB) reads every row, the old
 * ones with null headers. An envelope queued before headers were kept is written with null too.
 * Real Parquet files in an in-memory store, through the writer's own commit path (envelopeOutput).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFileName } from '#delta/kernel/log.ts';
import { appendToTable } from '#delta/operations/append.ts';
import { writePartitionedFiles } from '#delta/operations/data-files.ts';
import { writeParquet } from '#delta/parquet/parquet-files.ts';
import { envelopeOutput } from '#shared/adapters/delta-tables.ts';
import { StagedEnvelope } from '#shared/adapters/staged-rows.ts';
import { type DataSet, envelopeSchema, newDataSet } from '#shared/domain/datasets/model.ts';
import { type EnvelopeMessage, envelopeColumns } from '#shared/domain/ingest/envelope.ts';
import { memoryTable, writerOf } from '../support/memory-table.ts';

const dt = '2026-12-01';
const ingestedAt = Date.parse(`${dt}T10:00:00Z`);
/** The envelope schema and columns as they were before `headers`. */
const oldSchema = { ...envelopeSchema, fields: envelopeSchema.fields.filter((field) => field.name !== 'headers') };
const oldColumns = envelopeColumns.filter((column) => column.name !== 'headers');

const dataSet: DataSet = newDataSet(
  {
    data_set_id: randomUUID(),
    tenant_id: randomUUID(),
    tenant_slug: 'acme',
    name: 'hooks',
    origin: { type: 'Webhook', connection_id: randomUUID(), source_id: 'src' },
    // The data set as it was recorded when it was made: the old envelope schema.
    schema_json: oldSchema,
  },
  new Date(ingestedAt).toISOString(),
);

function message(id: string, headers?: Record<string, string>): EnvelopeMessage {
  return {
    v: 1,
    message_id: id,
    data_set_id: dataSet.data_set_id,
    dt,
    ingested_at_us: String(BigInt(ingestedAt) * 1000n),
    source_id: 'src',
    tenant_id: dataSet.tenant_id,
    content_type: 'application/json',
    payload_size: 2,
    payload: Buffer.from('{}').toString('base64'),
    ...(headers ? { headers } : {}),
  };
}

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>>;
let connection: Awaited<ReturnType<typeof duck.connect>>;
const directory = mkdtempSync(path.join(os.tmpdir(), 'envelope-headers-'));
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
  connection = await duck.connect();
});
afterAll(() => connection.closeSync());

const logLines = (objects: Map<string, { bytes: Buffer }>, version: number) =>
  (objects.get(logFileName(version))?.bytes.toString('utf8') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('the headers column on a table made before it', () => {
  it('is added by the next commit’s schema change; DuckDB reads the old file’s rows with null headers', async () => {
    const table = memoryTable({ jitter: false });
    const writer = writerOf(table);
    const oldIds = [randomUUID(), randomUUID()];
    // Version 0 as the writer made it before headers were kept: the old schema, files without the column.
    await appendToTable(writer, {
      tableId: dataSet.data_set_id,
      metadata: {
        tableId: dataSet.data_set_id,
        name: dataSet.name,
        schema: oldSchema,
        partitionColumns: ['dt'],
        createdTime: ingestedAt,
      },
      rows: oldIds,
      attempt: 1,
      writeFiles: (rows) =>
        writePartitionedFiles(table.storage, rows, {
          partitionOf: () => ({ dt: dt }),
          maxRowsPerFile: 1000,
          encode: (chunk) =>
            writeParquet(
              [...oldColumns],
              [
                chunk,
                chunk.map(() => BigInt(ingestedAt) * 1000n),
                chunk.map(() => 'src'),
                chunk.map(() => dataSet.tenant_id),
                chunk.map(() => 'application/json'),
                chunk.map(() => 2n),
                chunk.map(() => Buffer.from('{}').toString('base64')),
              ],
            ),
        }),
    });

    const withHeaders = randomUUID();
    const queuedBefore = randomUUID();
    const result = await envelopeOutput(writer, { ids: table.records, defaultRetentionMs: null })(
      dataSet,
      [
        { batch: 'b1', message: new StagedEnvelope(message(withHeaders, { 'x-github-event': 'push' })) },
        // Staged from a queue message of before the change: no headers field at all.
        { batch: 'b1', message: new StagedEnvelope(message(queuedBefore)) },
      ],
      { attempt: 1, keeps: () => () => true },
    );
    expect(result).toMatchObject({ version: 1, written: 2 });

    // Version 1 carries the schema change: the old fields as they were, then headers, nullable.
    const metaData = logLines(table.objects, 1).find((action) => action.metaData)?.metaData;
    expect(JSON.parse(metaData.schemaString)).toEqual({
      type: 'struct',
      fields: [...oldSchema.fields, { name: 'headers', type: 'string', nullable: true, metadata: {} }],
    });
    expect(metaData.id).toBe(logLines(table.objects, 0).find((action) => action.metaData)?.metaData.id);
    expect(metaData.partitionColumns).toEqual(['dt']);
    // A later commit changes the schema no more.
    await envelopeOutput(writer, { ids: table.records, defaultRetentionMs: null })(
      dataSet,
      [{ batch: 'b2', message: new StagedEnvelope(message(randomUUID(), { 'x-a': 'b' })) }],
      { attempt: 1, keeps: () => () => true },
    );
    expect(logLines(table.objects, 2).some((action) => action.metaData)).toBe(false);

    const files = [0, 1].flatMap((version) =>
      logLines(table.objects, version)
        .filter((action) => action.add)
        .map((action) => {
          const file = path.join(directory, `${randomUUID()}.parquet`);
          writeFileSync(file, table.objects.get(action.add.path)?.bytes as Buffer);
          return file;
        }),
    );
    expect(files).toHaveLength(2);
    const [oldFile, newFile] = files as [string, string];
    const columnsOf = async (file: string) =>
      (await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`))
        .getRowObjectsJson()
        .map((row) => String(row.column_name));
    expect(await columnsOf(oldFile)).not.toContain('headers');
    expect(await columnsOf(newFile)).toEqual([...oldColumns.map((column) => column.name), 'headers']);

    const rows = (
      await connection.runAndReadAll(
        `SELECT message_id, headers FROM read_parquet(['${oldFile}', '${newFile}'], union_by_name = true) ORDER BY message_id`,
      )
    ).getRowObjectsJson();
    expect(rows).toEqual(
      [
        ...oldIds.map((id) => ({ message_id: id, headers: null })),
        { message_id: withHeaders, headers: '{"x-github-event":"push"}' },
        { message_id: queuedBefore, headers: null },
      ].sort((a, b) => a.message_id.localeCompare(b.message_id)),
    );
  });
});
