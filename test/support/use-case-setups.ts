/**
 * What the use-case tests start from, in a fresh in-memory store (test/support/memory.ts): a tenant
 * with a webhook connection and its data set, and a pipeline reading that data set.
 */
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import type { PipelineDefinition } from '#shared/domain/pipelines/definition.ts';
import { createPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin } from './memory.ts';

export const now = new Date('2026-11-21T10:00:00.000Z');

/** The tenant Acme with a webhook connection (and so its source and data set). */
export async function withConnection(name = 'github') {
  const store = memoryStore();
  const tenant = await createTenant(store, { name: 'Acme' }, now);
  const created = await createConnection(
    store,
    platformAdmin,
    tenant.tenant_id,
    { type: 'Webhook', name },
    now,
    'https://tributary.example',
  );
  return { store, tenantId: tenant.tenant_id, ...created };
}

/** A connection's data set, by id. */
export async function withDataSet() {
  const { store, tenantId, connection, dataSet } = await withConnection('hook');
  return { store, tenantId, connection, dataSetId: dataSet.data_set_id };
}

export const definitionFor = (dataSetId: string, output = 'pull_requests', columns = 1): PipelineDefinition => ({
  source: { data_set_id: dataSetId },
  decode: { format: 'json' },
  columns: [
    { name: 'action', path: '$.action', type: 'string' as const },
    { name: 'number', path: '$.number', type: 'long' as const },
    { name: 'score', path: '$.metrics["score"]', type: 'double' as const },
  ].slice(0, columns),
  output: { name: output },
});

/** A pipeline reading the connection's data set. */
export async function withPipeline() {
  const setup = await withConnection();
  const pipeline = await createPipeline(
    setup.store,
    platformAdmin,
    { tenant_id: setup.tenantId, name: 'prs', definition: definitionFor(setup.dataSet.data_set_id) },
    now,
  );
  return { ...setup, pipeline, pipelineId: pipeline.pipeline_id };
}
