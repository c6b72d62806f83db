/**
 * Every data set is also an Iceberg v2 table over the same Parquet files, read here by a reader
 * Tributary did not write (icebird, over HTTP from the local S3 stand-in) and compared row by row
 * with the Delta table read through DuckDB: a webhook table, after compaction, a pipeline's typed
 * output and after its ranged replace. The metadata is brought up to date as the catalog does
 * (icebergTables.load), in this process against the service's stand-ins.
 *
 * icebird resolves `s3://bucket/key` as `https://bucket.s3.amazonaws.com/key` with the global fetch
 * (src/fetch.js translateS3Url); the metadata keeps the `s3://` locations AWS engines expect, and this
 * test maps that host to the stand-in's path-style address. icebird 0.3 reads a column of the schema
 * from the file when the file holds no Iceberg schema, so it does not fill `dt` (kept in the Delta
 * paths only) from the manifest entry's partition value as the spec's projection rule 1 says: `dt`
 * is compared through the manifests icebird reads (rows per day), the other columns row by row.
 */
import { icebergManifests, icebergMetadata, icebergRead } from 'icebird';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TableMetadata } from '#iceberg/mirror.ts';
import { apiClient } from '../support/api.ts';
import { readDeltaTable } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const s3Endpoint = inject('runtimeEnv').AWS_ENDPOINT_URL_S3;

const originalFetch = globalThis.fetch;
beforeAll(() => {
  globalThis.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const aws = /^https:\/\/([^./]+)\.s3\.amazonaws\.com\/(.*)$/.exec(url);
    return originalFetch(aws ? `${s3Endpoint}/${aws[1]}/${aws[2]}` : input, init);
  };
});
afterAll(() => {
  globalThis.fetch = originalFetch;
});

interface DataSetBody {
  data_set_id: string;
  storage_location: string;
  version: number;
  iceberg: { metadata_location: string | null; delta_version: number | null; status: string } | null;
}

/** The data set's Iceberg metadata brought up to date, as the catalog's table load does. */
async function loadIceberg(dataSetId: string) {
  useServiceEnvironment();
  const { getDataSet } = await import('../../shared/adapters/dynamo/data-sets.ts');
  const { icebergTables } = await import('../../shared/adapters/iceberg-tables.ts');
  const dataSet = await getDataSet(dataSetId);
  if (!dataSet) throw new Error(`no data set ${dataSetId}`);
  const loaded = await icebergTables.load(dataSet);
  if (!loaded) throw new Error(`no Iceberg metadata for ${dataSetId}`);
  return { ...loaded, metadata: loaded.metadata as TableMetadata };
}

/** A value as both readers' rows are compared: text, numbers as numbers, bytes as base64, timestamps as ISO. */
function normal(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return value;
}

const rowKey = (row: Record<string, unknown>) => JSON.stringify(row);

/**
 * The table read by icebird from its version hint, as a file-system catalog reader does: the rows
 * (without `dt`), and the rows per `dt` as its manifests say (partition value and record count).
 */
async function readIceberg(location: string, columns: string[]) {
  const metadata = await icebergMetadata({ tableUrl: location });
  const rows = await icebergRead({ tableUrl: location, metadata });
  const perDay: Record<string, number> = {};
  for (const manifest of await icebergManifests(metadata))
    for (const entry of manifest.entries) {
      if (entry.status === 2) continue;
      // The partition tuple has one field, dt (icebird keys it by field id).
      const day = String(Object.values(entry.data_file.partition)[0]);
      perDay[day] = (perDay[day] ?? 0) + Number(entry.data_file.record_count);
    }
  return {
    rows: rows
      .map((row) => Object.fromEntries(columns.filter((c) => c !== 'dt').map((c) => [c, normal(row[c])])))
      .sort((a, b) => (rowKey(a) < rowKey(b) ? -1 : 1)),
    perDay,
  };
}

/** The Delta rows as icebird's read is compared with them: rows without `dt`, and rows per `dt`. */
function asIcebergRead(rows: Record<string, unknown>[]) {
  const perDay: Record<string, number> = {};
  for (const row of rows) perDay[String(row.dt)] = (perDay[String(row.dt)] ?? 0) + 1;
  return {
    rows: rows
      .map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'dt')))
      .sort((a, b) => (rowKey(a) < rowKey(b) ? -1 : 1)),
    perDay,
  };
}

/** The same table read through its Delta log and DuckDB; timestamps selected as ISO text. */
async function readDelta(location: string, select: string, columns: string[]) {
  const table = await readDeltaTable(location, select);
  return table.rows
    .map((row) =>
      Object.fromEntries(
        columns.map((c) => {
          const value = row[c];
          return [c, typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : normal(value)];
        }),
      ),
    )
    .sort((a, b) => (rowKey(a) < rowKey(b) ? -1 : 1));
}

const currentSnapshot = (metadata: TableMetadata) =>
  metadata.snapshots.find((snapshot) => snapshot['snapshot-id'] === metadata['current-snapshot-id']);

const envelopeColumns = ['dt', 'message_id', 'ingested_at', 'source_id', 'tenant_id', 'payload_size', 'payload'];
const envelopeSelect = `message_id, strftime(ingested_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS ingested_at, source_id, tenant_id, payload_size, payload`;

describe('data sets as Iceberg v2 tables, read by icebird', () => {
  it('a webhook table, then the same after compaction: every row as the Delta table has it', async () => {
    // Prepare: several commits of one table
    const hook = await createWebhook(api);
    for (let i = 0; i < 3; i++) await ingest(api, hook, JSON.stringify({ n: i, text: `event ${i}` }));
    await waitForRows(api, hook.dataSetId, 3);
    for (let i = 3; i < 5; i++) await ingest(api, hook, JSON.stringify({ n: i }));
    await waitForRows(api, hook.dataSetId, 5);

    // Act
    const loaded = await loadIceberg(hook.dataSetId);

    // Assess
    const dataSet = (await api.get<DataSetBody>(`/api/data-sets/${hook.dataSetId}`)).body;
    expect(loaded.metadata_location).toMatch(
      new RegExp(`^${dataSet.storage_location}/metadata/v\\d+\\.metadata\\.json$`),
    );
    expect(dataSet.iceberg).toMatchObject({
      metadata_location: loaded.metadata_location,
      delta_version: dataSet.version,
      status: 'Current',
    });
    expect(currentSnapshot(loaded.metadata)?.summary['delta-version']).toBe(String(dataSet.version));
    const delta = await readDelta(dataSet.storage_location, envelopeSelect, envelopeColumns);
    expect(delta).toHaveLength(5);
    expect(await readIceberg(dataSet.storage_location, envelopeColumns)).toEqual(asIcebergRead(delta));

    // Act: compaction
    const started = await api.post<{ job_id: string }>(`/api/data-sets/${hook.dataSetId}/optimize`, { json: {} });
    expect(started.status).toBe(202);
    await pollUntil(
      async () => (await api.get<{ status: string }>(`/api/jobs/${started.body.job_id}`)).body.status,
      (status) => status === 'Succeeded' || status === 'Failed',
      { what: 'the optimize job', timeoutMs: 60_000 },
    );
    const optimized = await loadIceberg(hook.dataSetId);

    // Assess
    const snapshot = currentSnapshot(optimized.metadata);
    expect(snapshot?.summary.operation).toBe('replace');
    expect(snapshot?.summary['total-data-files']).toBe('1');
    expect(await readIceberg(dataSet.storage_location, envelopeColumns)).toEqual(asIcebergRead(delta));
  });

  it("a pipeline's typed output, then the same after a ranged replace", async () => {
    // Prepare
    const hook = await createWebhook(api);
    const columns = [
      { name: 'action', path: '$.action', type: 'string' },
      { name: 'number', path: '$.number', type: 'long' },
      { name: 'score', path: '$.score', type: 'double' },
      { name: 'merged', path: '$.merged', type: 'boolean' },
      { name: 'happened_at', path: '$.at', type: 'timestamp' },
    ];
    const created = await api.post<{ pipeline_id: string }>('/api/pipelines', {
      json: {
        tenant_id: hook.tenantId,
        name: 'typed',
        definition: {
          source: { data_set_id: hook.dataSetId },
          decode: { format: 'json' },
          columns,
          output: { name: 'typed' },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const pipelineId = created.body.pipeline_id;
    expect((await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} })).status).toBe(204);
    for (const number of [1, 2, 3])
      await ingest(
        api,
        hook,
        JSON.stringify({
          action: `opened ${number}`,
          number,
          score: number / 4,
          merged: number % 2 === 0,
          at: `2026-11-2${number}T10:00:00Z`,
        }),
      );
    await waitForRows(api, hook.dataSetId, 3);
    const runJob = async (json: Record<string, unknown>) => {
      const run = await api.post<{ job_id: string }>(`/api/pipelines/${pipelineId}/trigger`, { json });
      expect(run.status, run.text).toBe(201);
      return pollUntil(
        async () => (await api.get<{ status: string }>(`/api/jobs/${run.body.job_id}`)).body,
        (job) => ['Succeeded', 'Failed', 'Cancelled'].includes(job.status),
        { what: 'the pipeline job', timeoutMs: 60_000 },
      );
    };
    expect(await runJob({})).toMatchObject({ status: 'Succeeded' });
    const output = (await api.get<{ data_sets: DataSetBody[] }>(`/api/data-sets?pipeline_id=${pipelineId}`)).body
      .data_sets[0] as DataSetBody;
    const names = ['dt', 'action', 'number', 'score', 'merged', 'happened_at'];
    const select = `action, number, score, merged, strftime(happened_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS happened_at`;

    // Act
    const loaded = await loadIceberg(output.data_set_id);

    // Assess
    const schema = loaded.metadata.schemas.find((s) => s['schema-id'] === loaded.metadata['current-schema-id']);
    expect(schema?.fields.map((field) => [field.name, field.type])).toEqual([
      ['dt', 'string'],
      ['action', 'string'],
      ['number', 'long'],
      ['score', 'double'],
      ['merged', 'boolean'],
      ['happened_at', 'timestamptz'],
    ]);
    const delta = await readDelta(output.storage_location, select, names);
    expect(delta.map((row) => row.number)).toEqual([1, 2, 3]);
    expect(await readIceberg(output.storage_location, names)).toEqual(asIcebergRead(delta));

    // Act: a ranged re-run replaces the days it covers
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(await runJob({ from: yesterday, to: today })).toMatchObject({ status: 'Succeeded' });
    const replaced = await loadIceberg(output.data_set_id);

    // Assess
    expect(currentSnapshot(replaced.metadata)?.summary.operation).toBe('overwrite');
    const after = await readDelta(output.storage_location, select, names);
    expect(after).toEqual(delta);
    expect(await readIceberg(output.storage_location, names)).toEqual(asIcebergRead(after));
  });
});
