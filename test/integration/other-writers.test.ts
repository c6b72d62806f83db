/**
 * Other engines on a Tributary table, as a tenant's Spark or delta-rs job would meet it: commits
 * written straight into the store (a conditional PUT of the next `_delta_log/<v>.json`, as delta-rs
 * does), data files written by DuckDB (not by Tributary's encoder). Checked against the store's own
 * log and DuckDB's reading of every live file.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, apiClient } from '../support/api.ts';
import { listKeys, localS3, readEnvelopeTable } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const api: ApiClient = apiClient(inject('baseUrl'), inject('adminKey'));
const s3 = localS3();
const today = new Date().toISOString().slice(0, 10);

function split(location: string) {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(location);
  if (!match) throw new Error(`Not an s3 location: ${location}`);
  return { bucket: match[1] as string, root: match[2] as string };
}

async function logVersions(location: string): Promise<number[]> {
  const { bucket, root } = split(location);
  return (await listKeys(s3, bucket, `${root}/_delta_log/`))
    .map((object) => /\/(\d{20})\.json$/.exec(object.key)?.[1])
    .filter((version): version is string => version !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Another engine's data file: envelope-shaped rows written by DuckDB into a Parquet file of its own. */
async function externalFile(ids: string[]): Promise<Buffer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'other-writer-'));
  const file = path.join(directory, 'part.parquet');
  const duck = await DuckDBInstance.create(':memory:');
  const connection = await duck.connect();
  const values = ids
    .map(
      (id) =>
        `('${id}', TIMESTAMPTZ '${new Date().toISOString()}', 'backfill', 'backfill', 'application/json', ${id.length}::BIGINT, '${Buffer.from(id).toString('base64')}')`,
    )
    .join(', ');
  await connection.run(
    `COPY (SELECT * FROM (VALUES ${values}) AS t(message_id, ingested_at, source_id, tenant_id, content_type, payload_size, payload)) TO '${file}' (FORMAT PARQUET)`,
  );
  connection.closeSync();
  return readFileSync(file);
}

/** A commit as another engine writes it: commitInfo first, put only if the version is free. */
async function externalCommit(location: string, version: number, actions: object[]): Promise<boolean> {
  const { bucket, root } = split(location);
  const lines = [
    { commitInfo: { timestamp: Date.now(), operation: 'WRITE', engineInfo: 'Apache-Spark/3.5.1 Delta-Lake/3.2.0' } },
    ...actions,
  ];
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${root}/_delta_log/${String(version).padStart(20, '0')}.json`,
        Body: `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
        IfNoneMatch: '*',
      }),
    );
    return true;
  } catch (error) {
    // 412: the version is taken; 409: another conditional write of it is under way (try again).
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 412 || status === 409) return false;
    throw error;
  }
}

/** Another engine appends rows: its own file, then its commit at the next free version (in `day`'s partition). */
async function externalAppend(location: string, ids: string[], day = today): Promise<number> {
  const { bucket, root } = split(location);
  const bytes = await externalFile(ids);
  const file = `dt=${day}/part-00000-${randomUUID()}.c000.snappy.parquet`;
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${root}/${file}`, Body: bytes }));
  const add = {
    add: {
      path: file,
      partitionValues: { dt: day },
      size: bytes.length,
      modificationTime: Date.now(),
      dataChange: true,
      stats: JSON.stringify({ numRecords: ids.length }),
    },
  };
  for (;;) {
    const version = Math.max(-1, ...(await logVersions(location))) + 1;
    if (await externalCommit(location, version, [add])) return version;
  }
}

describe('another engine writing to a Tributary table', () => {
  let hook: Webhook;
  beforeAll(async () => {
    hook = await createWebhook(api);
  });

  it("never overwrites another engine's commit: its version stays as written and its rows stay live", async () => {
    const ours: string[] = [];
    for (let i = 0; i < 2; i++) ours.push((await ingest(api, hook, `{"ours":${i}}`)).body.message_id);
    const location = await waitForRows(api, hook.dataSetId, 2);
    const theirs = [randomUUID(), randomUUID(), randomUUID()];
    const version = await externalAppend(location, theirs);
    const { bucket, root } = split(location);
    const before = (await listKeys(s3, bucket, `${root}/_delta_log/`)).find((object) =>
      object.key.endsWith(`${String(version).padStart(20, '0')}.json`),
    );
    for (let i = 2; i < 4; i++) ours.push((await ingest(api, hook, `{"ours":${i}}`)).body.message_id);
    await waitForRows(api, hook.dataSetId, 7);

    const table = await readEnvelopeTable(location);
    expect(table.rows.map((row) => row.message_id).sort()).toEqual([...ours, ...theirs].sort());
    expect(await logVersions(location)).toContain(version + 1);
    const after = (await listKeys(s3, bucket, `${root}/_delta_log/`)).find((object) =>
      object.key.endsWith(`${String(version).padStart(20, '0')}.json`),
    );
    expect(after?.size).toBe(before?.size);
  });

  it('refuses a table upgraded to a feature it does not implement: failed deliveries, then written after a redrive', async () => {
    const upgraded = await createWebhook(api);
    const first = (await ingest(api, upgraded, '{"before":true}')).body.message_id;
    const location = await waitForRows(api, upgraded.dataSetId, 1);
    const upgradeVersion = Math.max(...(await logVersions(location))) + 1;
    expect(
      await externalCommit(location, upgradeVersion, [
        {
          protocol: {
            minReaderVersion: 3,
            minWriterVersion: 7,
            readerFeatures: [],
            writerFeatures: ['appendOnly', 'futureFeature'],
          },
        },
      ]),
    ).toBe(true);

    const refused: string[] = [];
    for (let i = 0; i < 3; i++) refused.push((await ingest(api, upgraded, `{"after":${i}}`)).body.message_id);
    const failed = await pollUntil(
      () =>
        api.get<{ failed_deliveries: { message_id: string; last_error: string }[] }>(
          `/api/connections/${upgraded.connectionId}/failed-deliveries`,
        ),
      (response) => response.body.failed_deliveries.length === 3,
      { what: 'three failed deliveries', timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect(failed.body.failed_deliveries.map((delivery) => delivery.message_id).sort()).toEqual([...refused].sort());
    for (const delivery of failed.body.failed_deliveries)
      expect(delivery.last_error).toMatch(/^TABLE_PROTOCOL_UNSUPPORTED: .*futureFeature/);
    // Nothing of Tributary's after the upgrade.
    expect(Math.max(...(await logVersions(location)))).toBe(upgradeVersion);

    // The tenant drops the feature (a newer protocol without it), then redrives.
    expect(
      await externalCommit(location, upgradeVersion + 1, [{ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }]),
    ).toBe(true);
    const redriven = await api.post<{ redriven: number }>(
      `/api/connections/${upgraded.connectionId}/failed-deliveries/redrive`,
      { json: {} },
    );
    expect(redriven.body.redriven).toBe(3);
    await waitForRows(api, upgraded.dataSetId, 4, 60_000);
    const table = await readEnvelopeTable(location);
    expect(table.rows.map((row) => row.message_id).sort()).toEqual([first, ...refused].sort());
  });
});

/** A version's actions as the store holds them. */
async function commitActions(location: string, version: number): Promise<Record<string, Record<string, unknown>>[]> {
  const { bucket, root } = split(location);
  const object = await s3.send(
    new GetObjectCommand({ Bucket: bucket, Key: `${root}/_delta_log/${String(version).padStart(20, '0')}.json` }),
  );
  return ((await object.Body?.transformToString()) ?? '')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('a data retention on a table another engine backfilled', () => {
  it('removes the days older than it in one DELETE version on a maintenance run; DuckDB reads exactly the rows inside the window', async () => {
    const hook = await createWebhook(api);
    const ours = [(await ingest(api, hook, '{"recent":1}')).body.message_id];
    const location = await waitForRows(api, hook.dataSetId, 1);
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    // A backfill of old days: two outside a 30-day window, one inside it.
    const ancient = [randomUUID(), randomUUID(), randomUUID()];
    const outside = [randomUUID(), randomUUID()];
    const inside = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await externalAppend(location, ancient, '2020-01-15');
    await externalAppend(location, outside, daysAgo(45));
    await externalAppend(location, inside, daysAgo(10));
    expect((await readEnvelopeTable(location)).rows).toHaveLength(10);

    const propertiesPath = `/api/data-sets/${hook.dataSetId}/table-properties`;
    const versions = await logVersions(location);
    for (const bad of ['interval 23 hours', 'interval 0 days', 'forever', '30', 'interval 36501 days', 42]) {
      const refused = await api.put<{ code: string }>(propertiesPath, {
        json: { properties: { 'tributary.dataRetention': bad } },
      });
      expect({ status: refused.status, code: refused.body.code }, String(bad)).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
      });
    }
    expect(await logVersions(location)).toEqual(versions);

    const set = await api.put<{ version: number; effective: { data_retention_seconds: number | null } }>(
      propertiesPath,
      { json: { properties: { 'tributary.dataRetention': 'interval 30 days' } } },
    );
    expect(set.status).toBe(200);
    expect(set.body.effective.data_retention_seconds).toBe(30 * 86_400);

    // The property change asked for a maintenance run already (the sweep may start it first); an
    // Optimize started now is a second. Exactly one of the two removes the old days.
    const started = await api.post<{ job_id: string }>(`/api/data-sets/${hook.dataSetId}/optimize`, { json: {} });
    expect(started.status).toBe(202);
    type MaintenanceJob = {
      job_id: string;
      status: string;
      payload: { data_set_id: string };
      source: { retention: Record<string, unknown> };
    };
    const runs = await pollUntil(
      async () => {
        const listed = await api.get<{ jobs: MaintenanceJob[] }>(
          `/api/jobs?tenant_id=${hook.tenantId}&job_type=Optimize&limit=100`,
        );
        return listed.body.jobs.filter((one) => one.payload.data_set_id === hook.dataSetId);
      },
      (jobs) =>
        jobs.some((one) => one.job_id === started.body.job_id) &&
        jobs.every((one) => ['Succeeded', 'Failed', 'Cancelled'].includes(one.status)),
      { what: 'the maintenance jobs to finish', timeoutMs: 60_000 },
    );
    expect(runs.map((one) => one.status)).toEqual(runs.map(() => 'Succeeded'));
    const removing = runs.filter((one) => one.source.retention.version !== null);
    expect(removing).toHaveLength(1);
    expect(removing[0]?.source.retention).toMatchObject({
      seconds: 30 * 86_400,
      kept_from: daysAgo(30),
      version: set.body.version + 1,
      partitions_removed: 2,
      files_removed: 2,
      rows_removed: 5,
    });

    // One DELETE version that removes exactly the two old days' files and adds nothing.
    const deleted = await commitActions(location, set.body.version + 1);
    expect(deleted[0]?.commitInfo).toMatchObject({ operation: 'DELETE' });
    expect(deleted.filter((action) => action.add)).toEqual([]);
    const removes = deleted.flatMap((action) => (action.remove ? [action.remove] : []));
    expect(removes.map((remove) => (remove.partitionValues as { dt: string }).dt).sort()).toEqual(
      ['2020-01-15', daysAgo(45)].sort(),
    );
    for (const remove of removes) expect(remove.dataChange).toBe(true);

    const table = await readEnvelopeTable(location);
    expect(table.rows.map((row) => row.message_id).sort()).toEqual([...ours, ...inside].sort());
    const listed = await api.get<{ files: { partition_values: { dt: string } }[] }>(
      `/api/data-sets/${hook.dataSetId}/files`,
    );
    expect(listed.body.files.map((file) => file.partition_values.dt).sort()).toEqual([daysAgo(10), today].sort());
  });
});

describe('two writers of ours and another engine racing on one table', () => {
  it('writes every version exactly once, and every row of each writer once', { timeout: 240_000 }, async () => {
    useServiceEnvironment();
    const { getObjectStore } = await import('#shared/adapters/dynamo/object-stores.ts');
    const { getDataSet } = await import('#shared/adapters/dynamo/data-sets.ts');
    const { tableLocation } = await import('#shared/adapters/s3/tenant-stores.ts');
    const { secretBox } = await import('#shared/adapters/secret-box.ts');
    const { getTenant } = await import('#shared/adapters/dynamo/tenants.ts');
    const { connectStore } = await import('#shared/domain/tenants/store-access.ts');
    const { commitRecords } = await import('#shared/adapters/dynamo/delta-log.ts');
    const { decodeCheckpoint } = await import('#delta/parquet/checkpoint-reader.ts');
    const { encodeEnvelopes } = await import('#shared/adapters/parquet/envelope-writer.ts');
    const { appendToTable } = await import('#delta/operations/append.ts');
    const { conditionalArbiter } = await import('#delta/log-store/arbiter.ts');
    const { writePartitionedFiles } = await import('#delta/operations/data-files.ts');
    const { exactlyOncePerMessage, tributaryEngine } = await import('#shared/domain/datasets/exactly-once.ts');
    const { SnapshotCache } = await import('#delta/kernel/snapshot.ts');

    const hook = await createWebhook(api);
    const seed = (await ingest(api, hook, '{"seed":true}')).body.message_id;
    const location = await waitForRows(api, hook.dataSetId, 1);
    const dataSet = await getDataSet(hook.dataSetId);
    const store = await getObjectStore(hook.tenantId, dataSet?.object_store_id as string);
    if (!dataSet || !store) throw new Error('The data set has no store');
    const storage = await tableLocation(
      await connectStore({ secrets: secretBox, getTenant }, store, 'readWrite'),
      location,
    );

    /** A writer of ours: a function instance of its own (its own snapshot cache). */
    const writer = () => ({
      storage,
      arbiter: conditionalArbiter(storage),
      records: commitRecords,
      snapshots: new SnapshotCache().source({ storage, decodeCheckpoint }),
      hooks: { onCompleted: async () => undefined },
      engine: tributaryEngine,
    });
    // A message is ingested once: every copy of it carries the same ingest time.
    const ingestedAt = new Map<string, bigint>();
    const ingestTimeOf = (id: string) => {
      if (!ingestedAt.has(id)) ingestedAt.set(id, BigInt(Date.now()) * 1000n);
      return ingestedAt.get(id) as bigint;
    };
    type Row = { message_id: string; ingested_at_us: bigint; dt: string };
    const append = (deps: ReturnType<typeof writer>, ids: string[]) =>
      appendToTable<Row>(deps, {
        tableId: hook.dataSetId,
        metadata: {
          tableId: hook.dataSetId,
          name: dataSet.name,
          schema: dataSet.schema_json,
          partitionColumns: ['dt'],
          createdTime: Date.parse(dataSet.created_at),
        },
        rows: ids.map((id) => ({
          v: 1 as const,
          message_id: id,
          data_set_id: hook.dataSetId,
          dt: today,
          ingested_at_us: ingestTimeOf(id),
          source_id: hook.sourceId,
          tenant_id: hook.tenantId,
          content_type: 'application/json',
          payload_size: id.length,
          payload: Buffer.from(id).toString('base64'),
        })),
        deduplication: exactlyOncePerMessage(commitRecords, hook.dataSetId, (row) => ({
          messageId: row.message_id,
          ingestedAt: Number(row.ingested_at_us / 1000n),
        })),
        attempt: 1,
        writeFiles: (rows) =>
          writePartitionedFiles(storage, rows, {
            partitionOf: (row) => ({ dt: row.dt }),
            encode: encodeEnvelopes,
            maxRowsPerFile: 1000,
          }),
      });

    const rounds = 12;
    const expected = new Set<string>([seed]);
    const ourWriters = [writer(), writer()];
    const runs = ourWriters.map(async (deps, w) => {
      for (let round = 0; round < rounds; round++) {
        // Each writer's own rows, and a row both of ours write (a message delivered twice).
        const ids = [randomUUID(), randomUUID(), `shared-${round}`];
        for (const id of ids) expected.add(id);
        await append(deps, w === 0 ? ids : [ids[2] as string, ...ids.slice(0, 2)]);
      }
    });
    const theirs = (async () => {
      for (let round = 0; round < rounds; round++) {
        const ids = [randomUUID(), randomUUID()];
        for (const id of ids) expected.add(id);
        await externalAppend(location, ids);
      }
    })();
    await Promise.all([...runs, theirs]);

    const versions = await logVersions(location);
    expect(versions).toEqual(versions.map((_, i) => i));
    const table = await readEnvelopeTable(location);
    const seen = table.rows.map((row) => row.message_id);
    expect(seen.length).toBe(new Set(seen).size);
    expect(new Set(seen)).toEqual(expected);
    // Another engine's 12 commits, ours at least 12 each: no version was written twice.
    const { bucket, root } = split(location);
    let external = 0;
    for (const version of versions) {
      const commit = await s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: `${root}/_delta_log/${String(version).padStart(20, '0')}.json` }),
      );
      if ((await commit.Body?.transformToString())?.includes('Apache-Spark')) external++;
    }
    expect(external).toBe(rounds);
  });
});
