import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, apiClient } from '../support/api.ts';
import { readDeltaTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { createTenant, createUser } from '../support/fixtures.ts';
import { pollUntil } from '../support/poll.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const env = inject('runtimeEnv');

interface Job {
  status: string;
  rows_in: number | null;
  rows_out: number | null;
  rows_rejected: number | null;
  rejection_samples: { message_id: string; reason: string }[];
  error_message: string | null;
  source: { pipeline_version?: number };
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
}

const columns = [
  { name: 'action', path: '$.action', type: 'string' },
  { name: 'number', path: '$.number', type: 'long' },
  { name: 'score', path: '$.metrics["score"]', type: 'double' },
  { name: 'merged', path: '$.pr.merged', type: 'boolean' },
  { name: 'at', path: '$.at', type: 'timestamp' },
  { name: 'first_label', path: '$.labels[0]', type: 'string' },
];

const definitionFor = (dataSetId: string, output = 'pull_requests', cols = columns) => ({
  source: { data_set_id: dataSetId },
  decode: { format: 'json' },
  columns: cols,
  output: { name: output },
});

async function createPipeline(client: ApiClient, hook: Webhook, definition: unknown = definitionFor(hook.dataSetId)) {
  const created = await client.post<{ pipeline_id: string }>('/api/pipelines', {
    json: { tenant_id: hook.tenantId, name: 'pull requests', definition },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.pipeline_id;
}

async function waitForJob(
  client: ApiClient,
  jobId: string,
  done: (job: Job) => boolean = (job) => ['Succeeded', 'Failed', 'Cancelled'].includes(job.status),
  timeoutMs = 30_000,
): Promise<Job> {
  return pollUntil(async () => (await client.get<Job>(`/api/jobs/${jobId}`)).body, done, {
    what: `job ${jobId}`,
    timeoutMs,
  });
}

async function trigger(client: ApiClient, pipelineId: string): Promise<string> {
  const response = await client.post<{ job_id: string }>(`/api/pipelines/${pipelineId}/trigger`, { json: {} });
  expect(response.status, response.text).toBe(201);
  return response.body.job_id;
}

async function outputOf(pipelineId: string) {
  const listed = await api.get<{
    data_sets: { data_set_id: string; storage_location: string; version: number; origin: unknown }[];
  }>(`/api/data-sets?pipeline_id=${pipelineId}`);
  return listed.body.data_sets;
}

describe('pipeline versions', () => {
  it('moves 1/0 → 3/0 → 3/3 → 4/3, and a job started after the last update runs version 3', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook, definitionFor(hook.dataSetId, 'v1', columns.slice(0, 1)));
    const versions = async () => {
      const body = (
        await api.get<{ working_version: number; deployed_version: number }>(`/api/pipelines/${pipelineId}`)
      ).body;
      return [body.working_version, body.deployed_version];
    };
    expect(Object.keys((await api.get(`/api/pipelines/${pipelineId}`)).body as object).sort()).toEqual([
      'created_at',
      'definition',
      'deployed_at',
      'deployed_version',
      'name',
      'pipeline_id',
      'status',
      'tenant_id',
      'updated_at',
      'working_set_id',
      'working_version',
    ]);
    expect(await versions()).toEqual([1, 0]);
    await api.post(`/api/pipelines/${pipelineId}/update-definition`, {
      json: { definition: definitionFor(hook.dataSetId, 'v2', columns.slice(0, 2)) },
    });
    await api.post(`/api/pipelines/${pipelineId}/update-definition`, {
      json: { definition: definitionFor(hook.dataSetId, 'v3', columns.slice(0, 3)) },
    });
    expect(await versions()).toEqual([3, 0]);

    expect((await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: { version: 2 } })).status).toBe(409);
    expect((await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: { version: 3 } })).status).toBe(204);
    const deployed = (await api.get<{ deployed_at: string }>(`/api/pipelines/${pipelineId}`)).body;
    expect(deployed.deployed_at).toEqual(expect.any(String));
    expect(await versions()).toEqual([3, 3]);

    await api.post(`/api/pipelines/${pipelineId}/update-definition`, {
      json: { definition: definitionFor(hook.dataSetId, 'v4', columns) },
    });
    expect(await versions()).toEqual([4, 3]);

    await ingest(api, hook, JSON.stringify({ action: 'opened', number: 7, metrics: { score: 0.5 } }));
    await waitForRows(api, hook.dataSetId, 1);
    const job = await waitForJob(api, await trigger(api, pipelineId));
    expect(job).toMatchObject({ status: 'Succeeded', source: { pipeline_version: 3 } });
    const [output] = await outputOf(pipelineId);
    const table = await readDeltaTable(output?.storage_location as string);
    expect(Object.keys(table.types)).toEqual(['action', 'number', 'score']);
  });
});

describe('a pipeline run', () => {
  let hook: Webhook;
  let pipelineId: string;
  beforeAll(async () => {
    hook = await createWebhook(api);
    pipelineId = await createPipeline(api, hook);
    expect((await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} })).status).toBe(204);
  });

  it('decodes payloads into typed columns, rejects and samples malformed rows, and writes a Delta table', async () => {
    const good = [
      {
        action: 'opened',
        number: 1,
        metrics: { score: 1.5 },
        pr: { merged: false },
        at: '2026-11-21T10:00:00.123456Z',
        labels: ['bug'],
      },
      { action: 'closed', number: '2', metrics: { score: '2.25' }, pr: { merged: true }, at: 1795000000, labels: [] },
      { action: 'edited', number: 3 },
    ];
    for (const payload of good)
      await ingest(api, hook, JSON.stringify(payload), { 'content-type': 'application/json' });
    const badIds = [
      (await ingest(api, hook, '{"action": "broken"')).body.message_id,
      (await ingest(api, hook, JSON.stringify({ number: 'not a number' }))).body.message_id,
      (await ingest(api, hook, JSON.stringify({ pr: { merged: 'yes' } }))).body.message_id,
    ];
    await waitForRows(api, hook.dataSetId, 6);

    const job = await waitForJob(api, await trigger(api, pipelineId));
    expect(Object.keys(job).sort()).toEqual([
      'cancel_requested_at',
      'cancelled_at',
      'committing_at',
      'completed_at',
      'created_at',
      'dispatched_at',
      'error_message',
      'job_id',
      'job_type',
      'partition_key',
      'payload',
      'rejection_samples',
      'rows_filtered',
      'rows_in',
      'rows_out',
      'rows_rejected',
      'runner_id',
      'source',
      'started_at',
      'status',
      'tenant_id',
      'updated_at',
    ]);
    expect(job).toMatchObject({ status: 'Succeeded', rows_in: 6, rows_out: 3, rows_rejected: 3, error_message: null });
    expect(job.rejection_samples.map((sample) => sample.message_id).sort()).toEqual(badIds.sort());
    expect(job.rejection_samples.map((sample) => sample.reason).sort()).toEqual([
      'column merged: expected boolean, got string',
      'column number: expected long, got string',
      'payload is not valid JSON',
    ]);

    const [output] = await outputOf(pipelineId);
    expect(output?.origin).toEqual({ type: 'Pipeline', pipeline_id: pipelineId, pipeline_version: 1 });
    const table = await readDeltaTable(
      output?.storage_location as string,
      `action, number, score, merged, strftime("at" AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%fZ') AS "at", first_label`,
    );
    expect(table.types).toEqual({
      action: 'VARCHAR',
      number: 'BIGINT',
      score: 'DOUBLE',
      merged: 'BOOLEAN',
      at: 'TIMESTAMP WITH TIME ZONE',
      first_label: 'VARCHAR',
    });
    const byAction = new Map(table.rows.map((row) => [row.action, row]));
    expect(byAction.get('opened')).toMatchObject({
      number: '1',
      score: 1.5,
      merged: false,
      at: '2026-11-21T10:00:00.123456Z',
      first_label: 'bug',
    });
    expect(byAction.get('closed')).toMatchObject({
      number: '2',
      score: 2.25,
      merged: true,
      at: '2026-11-18T11:06:40.000000Z',
      first_label: null,
    });
    expect(byAction.get('edited')).toMatchObject({ number: '3', score: null, merged: null, at: null });
    expect(table.rows.every((row) => row.dt === new Date().toISOString().slice(0, 10))).toBe(true);
  });

  it('writes nothing when triggered again without new data, and only the new rows after more arrive', async () => {
    const before = (await outputOf(pipelineId))[0];
    const succeeded = async () =>
      Number(/^tributary_jobs\{status="Succeeded"\} (\d+)$/m.exec((await api.get('/metrics')).text)?.[1] ?? 0);
    const succeededBefore = await succeeded();
    const idle = await waitForJob(api, await trigger(api, pipelineId));
    // The counter moves just after the job does: wait for it rather than race it.
    await pollUntil(succeeded, (count) => count >= succeededBefore + 1, { what: 'the Succeeded jobs counter' });
    expect(idle).toMatchObject({ status: 'Succeeded', rows_in: 0, rows_out: 0 });
    expect((await outputOf(pipelineId))[0]?.version).toBe(before?.version);

    await ingest(api, hook, JSON.stringify({ action: 'reopened', number: 9 }));
    await waitForRows(api, hook.dataSetId, 7);
    const next = await waitForJob(api, await trigger(api, pipelineId));
    expect(next).toMatchObject({ status: 'Succeeded', rows_in: 1, rows_out: 1 });
    const table = await readDeltaTable(before?.storage_location as string, 'action');
    expect(table.rows.map((row) => row.action).sort()).toEqual(['closed', 'edited', 'opened', 'reopened']);
  });

  it('never runs two jobs of one pipeline at the same time', async () => {
    const [first, second] = await Promise.all([trigger(api, pipelineId), trigger(api, pipelineId)]);
    const jobs = await Promise.all([
      waitForJob(api, first as string, undefined, 45_000),
      waitForJob(api, second as string, undefined, 45_000),
    ]);
    expect(jobs.map((job) => job.status)).toEqual(['Succeeded', 'Succeeded']);
    const [a, b] = jobs.sort((x, y) => String(x.started_at).localeCompare(String(y.started_at)));
    expect(String(a?.completed_at) <= String(b?.started_at)).toBe(true);
  });
});

describe('a ranged re-run', () => {
  it('replaces the output rows of the days asked, each once, leaves rows not read yet to the next run, and refuses bad ranges changing nothing', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook);
    expect((await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} })).status).toBe(204);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const jobsOf = async () =>
      (await api.get<{ jobs: unknown[] }>(`/api/jobs?tenant_id=${hook.tenantId}&job_type=Pipeline`)).body.jobs.length;
    const refusals = (pipeline: string): [string, Record<string, unknown>, number][] => [
      ['to before from', { from: today, to: yesterday }, 400],
      ['a month 13', { from: '2026-13-01', to: '2026-13-02' }, 400],
      ['February 30', { from: '2026-02-30', to: '2026-03-01' }, 400],
      ['a day not in YYYY-MM-DD', { from: '1/2/2026', to: today }, 400],
      ['from alone', { from: yesterday }, 400],
      ['to alone', { to: today }, 400],
      ['32 days', { from: '2026-01-01', to: '2026-02-01' }, 400],
      ['a day as a number', { from: 20260101, to: 20260102 }, 400],
      // A pipeline that has not run has nothing a re-run could rebuild.
      [`${pipeline}: never run`, { from: yesterday, to: today }, 409],
    ];

    const refuse = async (stage: string, allowed = true) => {
      for (const [label, body, status] of refusals(stage)) {
        if (!allowed && status === 409) continue;
        for (const [route, json] of [
          [`/api/pipelines/${pipelineId}/trigger`, body],
          ['/api/jobs', { type: 'pipeline', pipeline_id: pipelineId, ...body }],
        ] as const) {
          const response = await api.post<{ code: string }>(route, { json });
          expect({ label, route, status: response.status }).toEqual({ label, route, status });
          expect(response.body.code).toBe(status === 400 ? 'VALIDATION_ERROR' : 'CONFLICT');
        }
      }
    };
    await refuse('before a run');
    expect(await jobsOf()).toBe(0);
    expect(await outputOf(pipelineId)).toEqual([]);

    const first = [1, 2, 3].map((number) => JSON.stringify({ action: 'opened', number }));
    for (const payload of first) await ingest(api, hook, payload);
    await waitForRows(api, hook.dataSetId, 3);
    expect(await waitForJob(api, await trigger(api, pipelineId))).toMatchObject({ status: 'Succeeded', rows_out: 3 });
    const [output] = await outputOf(pipelineId);
    const location = output?.storage_location as string;
    const numbers = async () =>
      (await readDeltaTable(location, 'number')).rows.map((row) => Number(row.number)).sort((a, b) => a - b);
    expect(await numbers()).toEqual([1, 2, 3]);

    // Bad ranges once it has run: still refused, nothing queued, the output as it was.
    const jobsBefore = await jobsOf();
    await refuse('after a run', false);
    expect(await jobsOf()).toBe(jobsBefore);
    expect((await outputOf(pipelineId))[0]?.version).toBe(output?.version);

    // Rows arrive that no run has read yet: a re-run rebuilds what runs have read, and leaves these to the next run.
    for (const number of [4, 5]) await ingest(api, hook, JSON.stringify({ action: 'opened', number }));
    await waitForRows(api, hook.dataSetId, 5);
    const rerun = await api.post<{ job_id: string }>(`/api/pipelines/${pipelineId}/trigger`, {
      json: { from: yesterday, to: today },
    });
    expect(rerun.status, rerun.text).toBe(201);
    const replaced = await waitForJob(api, rerun.body.job_id);
    expect(replaced).toMatchObject({ status: 'Succeeded', rows_in: 3, rows_out: 3, rows_rejected: 0 });
    expect(replaced.source).toMatchObject({
      range: { from: yesterday, to: today },
      output_version: (output?.version as number) + 1,
      files_replaced: 1,
      rows_replaced: 3,
    });
    expect(await numbers()).toEqual([1, 2, 3]);

    // A day with nothing in it: one commit replacing nothing, the output's rows as they were.
    const empty = await api.post<{ job_id: string }>('/api/jobs', {
      json: { type: 'pipeline', pipeline_id: pipelineId, from: '2020-01-01', to: '2020-01-31' },
    });
    expect(empty.status, empty.text).toBe(201);
    expect(await waitForJob(api, empty.body.job_id)).toMatchObject({ status: 'Succeeded', rows_in: 0, rows_out: 0 });
    expect(await numbers()).toEqual([1, 2, 3]);

    // The next run writes the rows the re-run left, once.
    expect(await waitForJob(api, await trigger(api, pipelineId))).toMatchObject({ status: 'Succeeded', rows_out: 2 });
    expect(await numbers()).toEqual([1, 2, 3, 4, 5]);
    const again = await api.post<{ job_id: string }>(`/api/pipelines/${pipelineId}/trigger`, {
      json: { from: today, to: today },
    });
    expect(await waitForJob(api, again.body.job_id)).toMatchObject({ status: 'Succeeded', rows_in: 5, rows_out: 5 });
    expect(await numbers()).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('pipeline states', () => {
  it('refuses to trigger a pipeline never deployed (422) or disabled (422), and runs it again once enabled', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook);
    const notDeployed = await api.post(`/api/pipelines/${pipelineId}/trigger`, { json: {} });
    expect(notDeployed.status).toBe(422);
    expect(notDeployed.body).toMatchObject({ code: 'PIPELINE_NOT_DEPLOYED' });
    await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} });
    expect((await api.post(`/api/pipelines/${pipelineId}/disable`)).status).toBe(204);
    expect((await api.post(`/api/pipelines/${pipelineId}/disable`)).status).toBe(409);
    const disabled = await api.post(`/api/pipelines/${pipelineId}/trigger`, { json: {} });
    expect(disabled.status).toBe(422);
    expect(disabled.body).toMatchObject({ code: 'PIPELINE_DISABLED' });
    expect((await api.post(`/api/pipelines/${pipelineId}/enable`)).status).toBe(204);
    expect(
      (await api.post(`/api/pipelines/${pipelineId}/trigger`, { json: { parameters: { reason: 'test' } } })).status,
    ).toBe(201);
  });

  it('renames, lists by tenant, and deletes a pipeline; its output can be deleted once the pipeline is gone', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook);
    await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} });
    await ingest(api, hook, '{"action":"x"}');
    await waitForRows(api, hook.dataSetId, 1);
    await waitForJob(api, await trigger(api, pipelineId));
    expect((await api.post(`/api/pipelines/${pipelineId}/rename`, { json: { name: 'renamed' } })).status).toBe(204);
    const listed = await api.get<{ pipelines: { pipeline_id: string; name: string }[] }>(
      `/api/pipelines?tenant_id=${hook.tenantId}`,
    );
    expect(listed.body.pipelines.map((p) => [p.pipeline_id, p.name])).toEqual([[pipelineId, 'renamed']]);

    const [output] = await outputOf(pipelineId);
    expect((await api.delete(`/api/data-sets/${output?.data_set_id}`)).status).toBe(409);
    expect((await api.delete(`/api/pipelines/${pipelineId}`)).status).toBe(204);
    expect((await api.get(`/api/pipelines/${pipelineId}`)).status).toBe(404);
    expect((await api.delete(`/api/data-sets/${output?.data_set_id}`)).status).toBe(204);
  });
});

describe('queries', () => {
  it('decodes a data set without writing a table and returns the rows, up to the limit', async () => {
    const hook = await createWebhook(api);
    for (let i = 0; i < 5; i++) await ingest(api, hook, JSON.stringify({ n: i, at: `2026-11-21T10:00:0${i}.000001Z` }));
    await ingest(api, hook, 'garbage');
    await waitForRows(api, hook.dataSetId, 6);
    const started = await api.post<{ job_id: string }>('/api/jobs', {
      json: {
        type: 'query',
        tenant_id: hook.tenantId,
        query: {
          source: { data_set_id: hook.dataSetId },
          decode: { format: 'json' },
          columns: [
            { name: 'n', path: '$.n', type: 'long' },
            { name: 'at', path: '$.at', type: 'timestamp' },
          ],
        },
        limit: 3,
      },
    });
    expect(started.status).toBe(201);
    const job = await waitForJob(api, started.body.job_id);
    expect(job).toMatchObject({ status: 'Succeeded', rows_out: 3 });
    const result = await api.get<{
      columns: unknown[];
      rows: unknown[][];
      truncated: boolean;
      truncated_by: string | null;
      scanned: { files: number; files_total: number; bytes: number; bytes_total: number } | null;
    }>(`/api/jobs/${started.body.job_id}/result`);
    expect(result.status).toBe(200);
    expect(result.body.columns).toEqual([
      { name: 'dt', type: 'string' },
      { name: 'n', type: 'long' },
      { name: 'at', type: 'timestamp' },
    ]);
    expect(result.body.rows).toHaveLength(3);
    expect(result.body.rows[0]).toEqual([
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      expect.any(Number),
      expect.stringMatching(/\.\d{6}Z$/),
    ]);
    expect(result.body.truncated).toBe(true);
    // The limit stopped it, and the answer says how much of the data set it had read.
    expect(result.body.truncated_by).toBe('limit');
    const scanned = result.body.scanned;
    expect(scanned?.files).toBeGreaterThanOrEqual(1);
    expect(scanned?.files).toBeLessThanOrEqual(scanned?.files_total ?? 0);
    expect(scanned?.bytes).toBeGreaterThan(0);
    expect(
      (await api.get<{ data_sets: unknown[] }>(`/api/data-sets?tenant_id=${hook.tenantId}`)).body.data_sets,
    ).toHaveLength(1);
  });

  it('has no result for a pipeline job (404)', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook);
    await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} });
    const jobId = await trigger(api, pipelineId);
    await waitForJob(api, jobId);
    expect((await api.get(`/api/jobs/${jobId}/result`)).status).toBe(404);
  });
});

describe('cancelling and failing jobs', () => {
  let hold: FaultProxy;
  beforeAll(async () => {
    hold = await startFaultProxy(env.AWS_ENDPOINT_URL_S3 as string);
  });
  afterAll(async () => {
    hold.holdWhen(null);
    await hold.close();
  });

  /** A deployed pipeline whose source store answers only when the test lets it. */
  async function slowPipeline(client: ApiClient) {
    const hook = await createWebhook(client, { store: { endpoint: hold.url } });
    await ingest(client, hook, '{"action":"slow"}');
    await waitForRows(client, hook.dataSetId, 1);
    const pipelineId = await createPipeline(client, hook);
    await client.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} });
    return { hook, pipelineId };
  }

  it('stops a Running job before its commit, and cancels the job queued behind it at once; nothing written', async () => {
    const { pipelineId } = await slowPipeline(api);
    hold.holdWhen((request) => request.method === 'GET');
    const jobId = await trigger(api, pipelineId);
    const running = await waitForJob(api, jobId, (job) => job.status === 'Running');
    expect(running.status).toBe('Running');

    // Jobs of one pipeline run one at a time: the next one waits, Queued, until this one ends.
    const queuedId = await trigger(api, pipelineId);
    expect((await api.get<Job>(`/api/jobs/${queuedId}`)).body.status).toBe('Queued');
    expect((await api.post(`/api/jobs/${queuedId}/cancel`)).status).toBe(204);
    expect((await api.get<Job>(`/api/jobs/${queuedId}`)).body).toMatchObject({
      status: 'Cancelled',
      cancelled_at: expect.any(String),
    });
    const again = await api.post(`/api/jobs/${queuedId}/cancel`);
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ code: 'JOB_NOT_CANCELLABLE' });

    expect((await api.post(`/api/jobs/${jobId}/cancel`)).status).toBe(204);
    hold.holdWhen(null);
    const finished = await waitForJob(api, jobId);
    expect(finished).toMatchObject({ status: 'Cancelled', cancelled_at: expect.any(String) });
    expect(await outputOf(pipelineId)).toEqual([]);
  });

  it('refuses to cancel a finished job with 422', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook);
    await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} });
    const jobId = await trigger(api, pipelineId);
    expect((await waitForJob(api, jobId)).status).toBe('Succeeded');
    const response = await api.post(`/api/jobs/${jobId}/cancel`);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'JOB_NOT_CANCELLABLE' });
  });

  it('fails a job whose runner was killed mid-run, with the reason, instead of leaving it Running', async () => {
    let doomed: RuntimeProcess | undefined = await startRuntimeProcess({ ...env, LOCAL_QUEUE_PREFIX: 'doomed-' });
    try {
      const client = apiClient(doomed.url);
      const { pipelineId } = await slowPipeline(client);
      hold.holdWhen((request) => request.method === 'GET');
      const jobId = await trigger(client, pipelineId);
      expect((await waitForJob(api, jobId, (job) => job.status === 'Running')).status).toBe('Running');
      await doomed.kill();
      doomed = undefined;
      const failed = await waitForJob(api, jobId, (job) => job.status !== 'Running', 30_000);
      expect(failed.status).toBe('Failed');
      expect(failed.error_message).toMatch(/runner stopped responding/);
    } finally {
      hold.holdWhen(null);
      await doomed?.kill();
    }
  });

  it('records the output version of a run that stopped between its commit and recording it, when the run comes again', async () => {
    // A runner's invocation ended right after its output's log entry was written: the output table
    // holds the rows, the data set does not know of the version. The run tried again finds its txn in
    // the table and writes nothing; the data set must learn of the version then.
    const hook = await createWebhook(api);
    await ingest(api, hook, JSON.stringify({ action: 'opened' }));
    await waitForRows(api, hook.dataSetId, 1);
    const pipelineId = await createPipeline(api, hook, definitionFor(hook.dataSetId, 'stopped', columns.slice(0, 1)));
    await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: {} });
    expect((await waitForJob(api, await trigger(api, pipelineId))).status).toBe('Succeeded');
    const [output] = await outputOf(pipelineId);
    expect(output?.version).toBe(0);

    useServiceEnvironment();
    const { getDataSet } = await import('../../shared/adapters/dynamo/data-sets.ts');
    const { fixStorage, tableCommitter, tableMetadataOf } = await import('../../shared/adapters/table-storage.ts');
    const { pipelineOutput } = await import('../../shared/adapters/delta-tables.ts');
    const { appendRows } = await import('../../functions/jobs/wiring.ts');
    const { pipelineAppId } = await import('../../shared/domain/pipelines/run-pipeline.ts');
    const found = await getDataSet(output?.data_set_id as string);
    if (!found) throw new Error('The output data set is gone');
    const table = await fixStorage(found);
    const outputColumns = columns.slice(0, 1) as Parameters<typeof appendRows>[1];
    const rows = [{ messageId: 'm', dt: '2026-11-27', cells: ['reopened'] }];
    const txn = { appId: pipelineAppId(pipelineId, hook.dataSetId), version: 7, after: 0, readVersion: 0 };
    const stopped = pipelineOutput(
      {
        ...(await tableCommitter(table)),
        hooks: {
          onCompleted: async () => {
            throw new Error('The invocation ended');
          },
        },
      },
      tableMetadataOf(table),
    );
    await expect(stopped.append(outputColumns, rows, 1, txn)).rejects.toThrow('The invocation ended');
    expect((await outputOf(pipelineId))[0]?.version).toBe(0);

    const again = await appendRows(table, outputColumns, rows, 2, txn);
    expect({ version: again.version, written: again.written }).toEqual({ version: null, written: 0 });
    expect((await outputOf(pipelineId))[0]?.version).toBe(1);
    const read = await readDeltaTable(output?.storage_location as string);
    expect(read.rows.map((row) => row.action).sort()).toEqual(['opened', 'reopened']);
  });
});

describe('bad input changes nothing', () => {
  it('refuses invalid definitions and bodies with 400, and the pipeline stays as it was', async () => {
    const hook = await createWebhook(api);
    const pipelineId = await createPipeline(api, hook);
    const otherTenant = await createWebhook(api);
    const before = (await api.get(`/api/pipelines/${pipelineId}`)).text;
    const valid = definitionFor(hook.dataSetId);
    const attempts: [string, unknown][] = [
      ['unknown key in the definition', { definition: { ...valid, schedule: 'daily' } }],
      ['unknown key in a column', { definition: { ...valid, columns: [{ ...columns[0], default: 'x' }] } }],
      ['a malformed path', { definition: { ...valid, columns: [{ name: 'a', path: 'a.b', type: 'string' }] } }],
      ['an unknown type', { definition: { ...valid, columns: [{ name: 'a', path: '$.a', type: 'date' }] } }],
      ['duplicate columns', { definition: { ...valid, columns: [columns[0], columns[0]] } }],
      ['dt as a column', { definition: { ...valid, columns: [{ name: 'dt', path: '$.a', type: 'string' }] } }],
      ['another tenant’s data set', { definition: definitionFor(otherTenant.dataSetId) }],
      ['no definition', {}],
      ['a null definition', { definition: null }],
      ['an unsupported format', { definition: { ...valid, decode: { format: 'yaml' } } }],
    ];
    for (const [label, body] of attempts) {
      const response = await api.post(`/api/pipelines/${pipelineId}/update-definition`, { json: body });
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
    }
    for (const [label, body] of [
      ['deploy with a string version', { version: '3' }],
      ['deploy with an unknown field', { force: true }],
    ] as const) {
      expect({ label, status: (await api.post(`/api/pipelines/${pipelineId}/deploy`, { json: body })).status }).toEqual(
        { label, status: 400 },
      );
    }
    expect((await api.post(`/api/pipelines/${pipelineId}/rename`, { json: { name: '' } })).status).toBe(400);
    expect((await api.post(`/api/pipelines/${pipelineId}/trigger`, { json: { parameters: 'x' } })).status).toBe(400);
    expect((await api.get(`/api/pipelines/${pipelineId}`)).text).toBe(before);

    for (const body of [
      { type: 'report', tenant_id: hook.tenantId },
      { type: 'query', tenant_id: hook.tenantId, query: { source: { data_set_id: hook.dataSetId } } },
      { type: 'query', tenant_id: hook.tenantId, query: definitionFor(hook.dataSetId) },
      { type: 'pipeline' },
    ]) {
      expect((await api.post('/api/jobs', { json: body })).status).toBe(400);
    }
    expect((await api.get<{ jobs: unknown[] }>(`/api/jobs?tenant_id=${hook.tenantId}`)).body.jobs).toEqual([]);
  });

  it('lets an editor run pipelines and a viewer only read them', async () => {
    const tenantId = await createTenant(api);
    const hook = await createWebhook(api, { tenantId });
    const editor = await createUser(api, tenantId, 'TenantEditor');
    const viewer = await createUser(api, tenantId, 'TenantViewer');
    const created = await api.post<{ pipeline_id: string }>('/api/pipelines', {
      key: editor.key,
      json: { name: 'by editor', definition: definitionFor(hook.dataSetId) },
    });
    expect(created.status).toBe(201);
    expect(
      (await api.post(`/api/pipelines/${created.body.pipeline_id}/deploy`, { key: viewer.key, json: {} })).status,
    ).toBe(403);
    expect((await api.get(`/api/pipelines/${created.body.pipeline_id}`, { key: viewer.key })).status).toBe(200);
  });
});
