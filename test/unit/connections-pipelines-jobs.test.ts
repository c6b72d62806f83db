/**
 * The connection, pipeline and job use cases, in process through in-memory ports
 * (test/support/memory.ts). The running service checks the wiring of the same routes.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getSecurity, putSecurity, rotateSigningSecret } from '#shared/domain/connections/security-use-cases.ts';
import {
  createConnection,
  deleteConnection,
  moveConnection,
  regenerateToken,
} from '#shared/domain/connections/use-cases.ts';
import { cancelJob, listJobs, startQuery, triggerPipeline } from '#shared/domain/jobs/use-cases.ts';
import type { PipelineDefinition } from '#shared/domain/pipelines/definition.ts';
import {
  createPipeline,
  deletePipeline,
  deployPipeline,
  listPipelines,
  renamePipeline,
  setPipelineStatus,
  updateDefinition,
} from '#shared/domain/pipelines/use-cases.ts';
import { createTenant, suspendTenant } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';

const now = new Date('2026-11-21T10:00:00.000Z');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function withConnection() {
  const store = memoryStore();
  const tenant = await createTenant(store, { name: 'Acme' }, now);
  const created = await createConnection(
    store,
    platformAdmin,
    tenant.tenant_id,
    { type: 'Webhook', name: 'github' },
    now,
    'https://tributary.example',
  );
  return { store, tenantId: tenant.tenant_id, ...created };
}

describe.concurrent('connections', () => {
  it('issue an ingest token shown once and kept as its SHA-256, with one Pending Delta data set', async () => {
    const { store, tenantId, connection, dataSet, ingestToken } = await withConnection();
    expect(ingestToken).toMatch(/^trb_ing_[A-Za-z0-9_-]{43}$/);
    expect(connection).toMatchObject({
      tenant_id: tenantId,
      type: 'Webhook',
      name: 'github',
      status: 'Active',
      source_status: 'Active',
      token_prefix: ingestToken.slice(0, 12),
      data_set_id: dataSet.data_set_id,
    });
    expect(store.state.sources.get(connection.source_id)).toEqual({
      source_id: connection.source_id,
      connection_id: connection.connection_id,
      tenant_id: tenantId,
      data_set_id: dataSet.data_set_id,
      token_hash: sha256(ingestToken),
      source_status: 'Active',
      connection_status: 'Active',
      security: {
        auth_mode: 'bearer',
        signature: null,
        dedup_window_seconds: 0,
        dedup_key: null,
        rate_limit: null,
        ip_allowlist: null,
      },
      ingest_url: `https://tributary.example/api/ingest/${connection.source_id}`,
    });
    expect(store.state.dataSets.get(dataSet.data_set_id)).toMatchObject({
      tenant_id: tenantId,
      tenant_slug: 'acme',
      name: 'github',
      data_set_type: 'Delta',
      storage_tier: 'Tributary',
      status: 'Pending',
      storage_location: null,
      object_store_id: null,
      version: null,
      origin: { type: 'Webhook', connection_id: connection.connection_id, source_id: connection.source_id },
      partitioning: { columns: ['dt'], granularity: 'day' },
    });
    expect(dataSet.schema_json.fields.map((field) => [field.name, field.type, field.nullable])).toEqual([
      ['dt', 'string', false],
      ['message_id', 'string', false],
      ['ingested_at', 'timestamp', false],
      ['source_id', 'string', false],
      ['tenant_id', 'string', false],
      ['content_type', 'string', true],
      ['payload_size', 'long', false],
      ['payload', 'string', false],
    ]);
  });

  it('move between states once (409 for the state they are in); reducing ones work while the tenant is suspended', async () => {
    const { store, tenantId, connection } = await withConnection();
    const id = connection.connection_id;
    await moveConnection(store, platformAdmin, id, { field: 'source_status', to: 'Paused' });
    expect(
      await refusal(moveConnection(store, platformAdmin, id, { field: 'source_status', to: 'Paused' })),
    ).toMatchObject({ code: 'CONFLICT' });
    expect(store.state.sources.get(connection.source_id)?.source_status).toBe('Paused');
    await suspendTenant(store, platformAdmin, tenantId);
    await moveConnection(store, platformAdmin, id, { field: 'status', to: 'Inactive' });
    expect(await refusal(moveConnection(store, platformAdmin, id, { field: 'status', to: 'Active' }))).toMatchObject({
      code: 'TENANT_SUSPENDED',
    });
    expect(store.state.sources.get(connection.source_id)?.connection_status).toBe('Inactive');
  });

  it('replace the token: the source keeps only the new one’s hash', async () => {
    const { store, connection, ingestToken } = await withConnection();
    const fresh = await regenerateToken(store, platformAdmin, connection.connection_id);
    expect(fresh).not.toBe(ingestToken);
    expect(store.state.sources.get(connection.source_id)?.token_hash).toBe(sha256(fresh));
  });

  it('generate a signing secret shown once, keep it sealed, and keep the old one for the grace period on rotation', async () => {
    const { store, connection } = await withConnection();
    const id = connection.connection_id;
    const put = await putSecurity(
      store,
      platformAdmin,
      id,
      {
        auth_mode: 'signature',
        signature: { scheme: 'standard-webhooks' },
        dedup_window_seconds: 300,
        rate_limit: { requests_per_second: 5, burst: 10 },
        ip_allowlist: ['192.0.2.0/24'],
      },
      now,
    );
    expect(put.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = JSON.stringify(store.state.sources.get(connection.source_id)?.security);
    expect(stored).not.toContain(put.signing_secret);
    expect(await getSecurity(store, platformAdmin, id)).toEqual({
      auth_mode: 'signature',
      signature: {
        scheme: 'standard-webhooks',
        header: null,
        encoding: null,
        tolerance_seconds: 300,
        public_key: null,
        verify_token_set: false,
        secrets: [{ created_at: now.toISOString(), expires_at: null }],
      },
      dedup_window_seconds: 300,
      dedup_key: null,
      rate_limit: { requests_per_second: 5, burst: 10 },
      ip_allowlist: ['192.0.2.0/24'],
    });
    const rotated = await rotateSigningSecret(store, platformAdmin, id, { grace_seconds: 60 }, now);
    expect(rotated.signing_secret).not.toBe(put.signing_secret);
    expect((await getSecurity(store, platformAdmin, id)).signature?.secrets).toEqual([
      { created_at: now.toISOString(), expires_at: null },
      { created_at: now.toISOString(), expires_at: '2026-11-21T10:01:00.000Z' },
    ]);
  });

  it('are gone once deleted, while their data set stays; another tenant’s caller gets 404', async () => {
    const { store, connection, dataSet } = await withConnection();
    const stranger = tenantPrincipal((await createTenant(store, { name: 'Other' })).tenant_id, 'TenantAdmin');
    expect(await refusal(deleteConnection(store, stranger, connection.connection_id))).toMatchObject({
      code: 'NOT_FOUND',
    });
    await deleteConnection(store, platformAdmin, connection.connection_id);
    expect(store.state.connections.has(connection.connection_id)).toBe(false);
    expect(store.state.dataSets.has(dataSet.data_set_id)).toBe(true);
    expect(await refusal(regenerateToken(store, platformAdmin, connection.connection_id))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

const definitionFor = (dataSetId: string, output = 'pull_requests', columns = 1): PipelineDefinition => ({
  source: { data_set_id: dataSetId },
  decode: { format: 'json' },
  columns: [
    { name: 'action', path: '$.action', type: 'string' as const },
    { name: 'number', path: '$.number', type: 'long' as const },
    { name: 'score', path: '$.metrics["score"]', type: 'double' as const },
  ].slice(0, columns),
  output: { name: output },
});

async function withPipeline() {
  const setup = await withConnection();
  const pipeline = await createPipeline(
    setup.store,
    platformAdmin,
    { tenant_id: setup.tenantId, name: 'prs', definition: definitionFor(setup.dataSet.data_set_id) },
    now,
  );
  return { ...setup, pipeline, pipelineId: pipeline.pipeline_id };
}

describe.concurrent('pipelines', () => {
  it('move 1/0 → 3/0 → 3/3 → 4/3; a deploy naming another version is 409, and a trigger runs the deployed one', async () => {
    const { store, dataSet, pipeline, pipelineId } = await withPipeline();
    const versions = () => {
      const stored = store.state.pipelines.get(pipelineId);
      return [stored?.working_version, stored?.deployed_version];
    };
    expect(pipeline).toMatchObject({ status: 'Active', working_version: 1, deployed_version: 0, deployed_at: null });
    await updateDefinition(store, platformAdmin, pipelineId, definitionFor(dataSet.data_set_id, 'v2', 2));
    await updateDefinition(store, platformAdmin, pipelineId, definitionFor(dataSet.data_set_id, 'v3', 3));
    expect(versions()).toEqual([3, 0]);
    expect(await refusal(deployPipeline(store, platformAdmin, pipelineId, 2))).toMatchObject({ code: 'CONFLICT' });
    await deployPipeline(store, platformAdmin, pipelineId, 3, now);
    expect(versions()).toEqual([3, 3]);
    expect(store.state.pipelines.get(pipelineId)?.deployed_at).toBe(now.toISOString());
    await updateDefinition(store, platformAdmin, pipelineId, definitionFor(dataSet.data_set_id, 'v4', 3));
    expect(versions()).toEqual([4, 3]);

    const job = await triggerPipeline(store, platformAdmin, pipelineId, { parameters: { reason: 'test' } }, now);
    expect(job).toMatchObject({
      job_type: 'Pipeline',
      status: 'Queued',
      partition_key: pipelineId,
      payload: { parameters: { reason: 'test' } },
      source: { pipeline_id: pipelineId, pipeline_version: 3 },
    });
    expect(store.state.dispatched).toEqual([{ jobId: job.job_id, delaySeconds: 0 }]);
    expect(store.state.deployed.get(`${pipelineId}#3`)?.definition.output.name).toBe('v3');
  });

  it('refuse a definition reading another tenant’s data set, and change nothing', async () => {
    const { store, pipelineId } = await withPipeline();
    const elsewhere = await withConnection();
    const before = JSON.stringify(store.state.pipelines.get(pipelineId));
    expect(
      await refusal(updateDefinition(store, platformAdmin, pipelineId, definitionFor(elsewhere.dataSet.data_set_id))),
    ).toEqual({ code: 'VALIDATION_ERROR', paths: ['definition.source.data_set_id'] });
    expect(JSON.stringify(store.state.pipelines.get(pipelineId))).toBe(before);
  });

  it('refuse to trigger when never deployed (422) or disabled (422), and trigger again once enabled', async () => {
    const { store, pipelineId } = await withPipeline();
    expect(await refusal(triggerPipeline(store, platformAdmin, pipelineId, null))).toEqual({
      code: 'PIPELINE_NOT_DEPLOYED',
      paths: [],
    });
    await deployPipeline(store, platformAdmin, pipelineId, undefined);
    await setPipelineStatus(store, platformAdmin, pipelineId, 'Disabled');
    expect(await refusal(setPipelineStatus(store, platformAdmin, pipelineId, 'Disabled'))).toMatchObject({
      code: 'CONFLICT',
    });
    expect(await refusal(triggerPipeline(store, platformAdmin, pipelineId, null))).toEqual({
      code: 'PIPELINE_DISABLED',
      paths: [],
    });
    await setPipelineStatus(store, platformAdmin, pipelineId, 'Active');
    await triggerPipeline(store, platformAdmin, pipelineId, null);
  });

  it('are created and renamed by an editor, listed by tenant, and deleted', async () => {
    const { store, tenantId, pipelineId, dataSet } = await withPipeline();
    await renamePipeline(store, tenantPrincipal(tenantId, 'TenantEditor'), pipelineId, 'renamed');
    const byEditor = await createPipeline(store, tenantPrincipal(tenantId, 'TenantEditor'), {
      name: 'by editor',
      definition: definitionFor(dataSet.data_set_id),
    });
    expect(byEditor.tenant_id).toBe(tenantId);
    const listed = await listPipelines(store, tenantPrincipal(tenantId, 'TenantViewer'), { limit: 10 });
    expect(listed.items.map((pipeline) => pipeline.name)).toEqual(['renamed', 'by editor']);
    await deletePipeline(store, platformAdmin, pipelineId);
    expect(await refusal(renamePipeline(store, platformAdmin, pipelineId, 'x'))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe.concurrent('jobs', () => {
  async function queued() {
    const setup = await withPipeline();
    await deployPipeline(setup.store, platformAdmin, setup.pipelineId, undefined);
    const job = await triggerPipeline(setup.store, platformAdmin, setup.pipelineId, null);
    return { ...setup, job };
  }

  it('cancel a Queued job at once, and refuse to cancel it again (422 JOB_NOT_CANCELLABLE)', async () => {
    const { store, job } = await queued();
    await cancelJob(store, platformAdmin, job.job_id, now);
    expect(store.state.jobs.get(job.job_id)).toMatchObject({
      status: 'Cancelled',
      cancelled_at: now.toISOString(),
      completed_at: now.toISOString(),
    });
    expect(await refusal(cancelJob(store, platformAdmin, job.job_id))).toEqual({
      code: 'JOB_NOT_CANCELLABLE',
      paths: [],
    });
  });

  it('ask a Running job to stop, unless its runner has begun committing (422)', async () => {
    const { store, job } = await queued();
    await store.moveJob(job.job_id, ['Queued'], { status: 'Running' }, now);
    await cancelJob(store, platformAdmin, job.job_id, now);
    expect(store.state.jobs.get(job.job_id)).toMatchObject({
      status: 'Running',
      cancel_requested_at: now.toISOString(),
    });
    await cancelJob(store, platformAdmin, job.job_id, now);

    const other = await queued();
    await other.store.moveJob(other.job.job_id, ['Queued'], { status: 'Running' }, now);
    expect(await other.store.beginCommit(other.job.job_id, now)).toBe(true);
    expect(await refusal(cancelJob(other.store, platformAdmin, other.job.job_id))).toMatchObject({
      code: 'JOB_NOT_CANCELLABLE',
    });
  });

  it('fail, saying why, when the job cannot be put on the queue', async () => {
    const { store, pipelineId } = await withPipeline();
    await deployPipeline(store, platformAdmin, pipelineId, undefined);
    const broken = {
      ...store,
      dispatchJob: async () => {
        throw new Error('queue unreachable');
      },
    };
    await expect(triggerPipeline(broken, platformAdmin, pipelineId, null, now)).rejects.toThrow('queue unreachable');
    expect([...store.state.jobs.values()].map((job) => [job.status, job.error_message])).toEqual([
      ['Failed', 'The job could not be queued'],
    ]);
  });

  it('run queries over the caller’s own data sets only, and list by type and status', async () => {
    const { store, tenantId, dataSet } = await withConnection();
    const { output: _output, ...query } = definitionFor(dataSet.data_set_id);
    const job = await startQuery(store, tenantPrincipal(tenantId, 'TenantEditor'), { query }, now);
    expect(job).toMatchObject({
      job_type: 'Query',
      partition_key: job.job_id,
      payload: { query, limit: 1000 },
      source: { data_set_id: dataSet.data_set_id },
    });
    const elsewhere = await withConnection();
    const { output: _other, ...foreign } = definitionFor(elsewhere.dataSet.data_set_id);
    expect(await refusal(startQuery(store, tenantPrincipal(tenantId, 'TenantEditor'), { query: foreign }))).toEqual({
      code: 'VALIDATION_ERROR',
      paths: ['query.source.data_set_id'],
    });
    const listed = await listJobs(store, tenantPrincipal(tenantId, 'TenantViewer'), {
      job_type: 'Query',
      status: 'Queued',
      limit: 10,
    });
    expect(listed.items.map((item) => item.job_id)).toEqual([job.job_id]);
  });
});
