/**
 * Table maintenance as wired in the service: the batch writer's checkpoints land in the tenant's
 * store, `POST /api/data-sets/{id}/optimize` queues a job of type Optimize that the job runner
 * carries out, and the table read back from S3 (JSON replay, DuckDB) holds every row once.
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/lambda-context.ts';
import { apiClient } from '../support/api.ts';
import { listKeys, localS3, readEnvelopeTable } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { envelopeFor, sqsEvent } from '../support/sqs-event.ts';
import { createWebhook, type Webhook } from '../support/webhooks.ts';

const api = apiClient();

function batchOf(hook: Webhook, count: number): { event: SQSEvent; ids: string[] } {
  const ids = Array.from({ length: count }, () => randomUUID());
  return { ids, event: sqsEvent(ids.map((messageId) => envelopeFor(hook, '{}', messageId))) };
}

describe('table maintenance in the service', () => {
  it('checkpoints every 10 versions, sets table properties, then compacts a day on request, every row still there once', async () => {
    const hook = await createWebhook(api);
    useServiceEnvironment();
    const { handler } = await import('../../functions/ingest/write-batch.ts');
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) {
      const batch = batchOf(hook, 3);
      sent.push(...batch.ids);
      expect((await handler(batch.event, lambdaContext('ingest-write-batch', 120))).batchItemFailures).toEqual([]);
    }
    const dataSet = await api.get<{ storage_location: string; version: number }>(`/api/data-sets/${hook.dataSetId}`);
    expect(dataSet.body.version).toBe(11);
    const location = dataSet.body.storage_location;
    const [, bucket, root] = /^s3:\/\/([^/]+)\/(.+)$/.exec(location) as RegExpExecArray;
    const logKeys = (await listKeys(localS3(), bucket as string, `${root}/_delta_log/`)).map((object) => object.key);
    expect(logKeys).toContain(`${root}/_delta_log/00000000000000000010.checkpoint.parquet`);
    expect(logKeys).toContain(`${root}/_delta_log/_last_checkpoint`);

    const before = await api.get<{ files: unknown[] }>(`/api/data-sets/${hook.dataSetId}/files`);
    expect(before.body.files).toHaveLength(12);

    const propertiesPath = `/api/data-sets/${hook.dataSetId}/table-properties`;
    const unknown = await api.put(propertiesPath, { json: { properties: { 'delta.appendOnly': 'true' } } });
    expect(unknown.status).toBe(400);
    const unsafe = await api.put(propertiesPath, {
      json: { properties: { 'delta.deletedFileRetentionDuration': 'interval 1 second' } },
    });
    expect(unsafe.status).toBe(400);
    const set = await api.put<{
      version: number;
      effective: { target_file_size: number; checkpoint_interval: number };
    }>(propertiesPath, {
      json: { properties: { 'delta.targetFileSize': '2097152', 'delta.checkpointInterval': '20' } },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      version: 12,
      effective: { target_file_size: 2_097_152, checkpoint_interval: 20 },
    });
    const read = await api.get(propertiesPath);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      version: 12,
      properties: { 'delta.targetFileSize': '2097152', 'delta.checkpointInterval': '20' },
      effective: { target_file_size: 2_097_152, checkpoint_interval: 20 },
    });

    const refused = await api.post(`/api/data-sets/${hook.dataSetId}/optimize`, { json: { target_size: 1 } });
    expect(refused.status).toBe(400);
    const missing = await api.post(`/api/data-sets/${randomUUID()}/optimize`, { json: {} });
    expect(missing.status).toBe(404);

    const started = await api.post<{ job_id: string }>(`/api/data-sets/${hook.dataSetId}/optimize`, { json: {} });
    expect(started.status).toBe(202);
    let job: { status: string; job_type: string; rows_in: number | null; error_message: string | null } | undefined;
    for (let i = 0; i < 120 && !['Succeeded', 'Failed'].includes(job?.status ?? ''); i++) {
      job = (await api.get<typeof job>(`/api/jobs/${started.body.job_id}`)).body;
      if (!['Succeeded', 'Failed'].includes(job?.status ?? ''))
        await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(job).toMatchObject({ status: 'Succeeded', job_type: 'Optimize', rows_in: 36, error_message: null });
    // Out of Queued, it is off the sweep's list of Queued jobs at once (the sweep reads only the jobs still Queued).
    useServiceEnvironment();
    const { db, table: tableName } = await import('../../shared/adapters/dynamo/table.ts');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const queuedEntry = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: { pk: 'QUEUED_JOBS', sk: started.body.job_id },
        ConsistentRead: true,
      }),
    );
    expect(queuedEntry.Item).toBeUndefined();
    const listed = await api.get<{ jobs: { job_id: string }[] }>(
      `/api/jobs?tenant_id=${hook.tenantId}&job_type=Optimize`,
    );
    expect(listed.body.jobs.map((listedJob) => listedJob.job_id)).toEqual([started.body.job_id]);

    const after = await api.get<{ version: number; files: { num_records: number }[] }>(
      `/api/data-sets/${hook.dataSetId}/files`,
    );
    expect(after.body.files).toHaveLength(1);
    expect(after.body.version).toBe(13);
    const table = await readEnvelopeTable(location);
    expect(table.rows.map((row) => row.message_id).sort()).toEqual(sent.sort());
  });

  it('deletes a table a maintenance run holds only after the run, and forgets that it was due', async () => {
    // Prepare: a written table marked due, its maintenance partition held as a running job holds it.
    const hook = await createWebhook(api);
    useServiceEnvironment();
    const { handler } = await import('../../functions/ingest/write-batch.ts');
    const batch = batchOf(hook, 3);
    expect((await handler(batch.event, lambdaContext('ingest-write-batch', 120))).batchItemFailures).toEqual([]);
    const { markMaintenanceDue, maintenanceKeys } = await import('../../shared/adapters/dynamo/table-maintenance.ts');
    const { leases } = await import('../../shared/adapters/dynamo/jobs.ts');
    const { db, table } = await import('../../shared/adapters/dynamo/table.ts');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const dueItem = async () =>
      (await db.send(new GetCommand({ TableName: table(), Key: maintenanceKeys.due(hook.dataSetId) }))).Item;
    await markMaintenanceDue(hook.dataSetId, hook.tenantId, new Date(Date.now() + 86_400_000));
    expect(await dueItem()).toMatchObject({ data_set_id: hook.dataSetId });
    const run = `job-${randomUUID()}`;
    const partition = `optimize:${hook.dataSetId}`;
    expect(await leases.acquireLease(partition, run, 'a runner', 60_000, new Date())).toBe(true);
    expect((await api.delete(`/api/connections/${hook.connectionId}`)).status).toBe(204);
    const location = (await api.get<{ storage_location: string }>(`/api/data-sets/${hook.dataSetId}`)).body
      .storage_location;
    const [, bucket, root] = /^s3:\/\/([^/]+)\/(.+)$/.exec(location) as RegExpExecArray;
    const objects = () => listKeys(localS3(), bucket as string, `${root}/`);

    // Act: delete while the run holds the table.
    const deletion = await api.delete<{ job_id: string }>(`/api/data-sets/${hook.dataSetId}`);

    // Assess: a Delete job, and the table whole while the run holds it.
    expect(deletion.status).toBe(202);
    expect((await api.get<{ job_type: string }>(`/api/jobs/${deletion.body.job_id}`)).body).toMatchObject({
      job_type: 'Delete',
    });
    expect((await objects()).length).toBeGreaterThan(0);
    expect((await api.get(`/api/data-sets/${hook.dataSetId}`)).status).toBe(200);

    // Act: the run ends and lets the table go (the job waiting behind it is offered again within 10 s).
    await leases.releaseLease(partition, run, 'a runner');
    const done = await pollUntil(
      async () => (await api.get<{ status: string }>(`/api/jobs/${deletion.body.job_id}`)).body,
      (job) => ['Succeeded', 'Failed'].includes(job.status),
      { what: 'the Delete job to end', timeoutMs: 60_000, intervalMs: 250 },
    );
    // Assess: the table, the data set and its maintenance item gone.
    expect(done).toMatchObject({ status: 'Succeeded' });
    expect({
      objects: await objects(),
      dataSet: (await api.get(`/api/data-sets/${hook.dataSetId}`)).status,
      due: await dueItem(),
    }).toEqual({ objects: [], dataSet: 404, due: undefined });
  });
});
