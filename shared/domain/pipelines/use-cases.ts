import { randomUUID } from 'node:crypto';
import type { DataSet } from '../datasets/model.ts';
import { conflict, invalid, notFound, refused } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import { effectiveTenantId, type Principal, requireTenantVisible } from '../principal.ts';
import { type TenantIntent, tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';
import type { PipelineDefinition, QuerySpecification } from './definition.ts';
import type { Pipeline, PipelineStatus } from './model.ts';
import type { PipelineRepository } from './ports.ts';

export type PipelineDeps = PipelineRepository & {
  getTenant(tenantId: string): Promise<Tenant | null>;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
};

/** The data set a definition reads must exist in the pipeline's own tenant. */
export async function requireSourceInTenant(
  deps: Pick<PipelineDeps, 'getDataSet'>,
  spec: QuerySpecification,
  tenantId: string,
  path = 'definition',
): Promise<DataSet> {
  const source = await deps.getDataSet(spec.source.data_set_id);
  if (!source || source.tenant_id !== tenantId) {
    throw invalid('The definition reads an unknown data set', [
      { path: `${path}.source.data_set_id`, message: 'No such data set in this tenant' },
    ]);
  }
  return source;
}

/**
 * Create a pipeline.
 * Input: tenant, name, optional definition. Output: the pipeline at working version 1, never deployed.
 */
export async function createPipeline(
  deps: PipelineDeps,
  principal: Principal,
  input: { tenant_id?: string | undefined; name: string; definition?: PipelineDefinition | null | undefined },
  now = new Date(),
): Promise<Pipeline> {
  const tenantId = effectiveTenantId(principal, input.tenant_id);
  if (!tenantId) throw invalid('A pipeline belongs to a tenant', [{ path: 'tenant_id', message: 'Required' }]);
  await tenantFor(deps, principal, tenantId, 'write');
  if (input.definition) await requireSourceInTenant(deps, input.definition, tenantId);
  const at = now.toISOString();
  const pipeline: Pipeline = {
    pipeline_id: randomUUID(),
    tenant_id: tenantId,
    name: input.name,
    definition: input.definition ?? null,
    status: 'Active',
    working_set_id: randomUUID(),
    working_version: 1,
    deployed_version: 0,
    deployed_at: null,
    created_at: at,
    updated_at: at,
  };
  await deps.createPipeline(pipeline);
  return pipeline;
}

export async function visiblePipeline(
  deps: PipelineDeps,
  principal: Principal,
  pipelineId: string,
  intent: TenantIntent,
) {
  const pipeline = await deps.getPipeline(pipelineId);
  if (!pipeline) throw notFound('Pipeline');
  requireTenantVisible(principal, pipeline.tenant_id, 'Pipeline');
  await tenantFor(deps, principal, pipeline.tenant_id, intent);
  return pipeline;
}

export function publicPipeline(pipeline: Pipeline): Pipeline {
  return {
    pipeline_id: pipeline.pipeline_id,
    tenant_id: pipeline.tenant_id,
    name: pipeline.name,
    definition: pipeline.definition,
    status: pipeline.status,
    working_set_id: pipeline.working_set_id,
    working_version: pipeline.working_version,
    deployed_version: pipeline.deployed_version,
    deployed_at: pipeline.deployed_at,
    created_at: pipeline.created_at,
    updated_at: pipeline.updated_at,
  };
}

export async function listPipelines(
  deps: PipelineDeps,
  principal: Principal,
  query: { tenant_id?: string | undefined } & PageRequest,
): Promise<Page<Pipeline>> {
  const tenantId = effectiveTenantId(principal, query.tenant_id);
  return tenantId ? deps.listPipelinesByTenant(tenantId, query) : deps.listAllPipelines(query);
}

/** A new working definition: validated against its source, and the working version moves up by one. */
export async function updateDefinition(
  deps: PipelineDeps,
  principal: Principal,
  pipelineId: string,
  definition: PipelineDefinition,
  now = new Date(),
): Promise<void> {
  const pipeline = await visiblePipeline(deps, principal, pipelineId, 'write');
  await requireSourceInTenant(deps, definition, pipeline.tenant_id);
  await deps.updatePipeline(
    pipelineId,
    pipeline.working_version,
    { definition, working_version: pipeline.working_version + 1 },
    now,
  );
}

/**
 * Deploy the working definition.
 * Input: the pipeline and, optionally, the working version the caller expects. Output: none.
 *  1. 409 when the caller's version is not the working version, or there is nothing to deploy.
 *  2. The definition is frozen as an immutable snapshot; deployed_version becomes the working version.
 *     Later edits change the working copy only: jobs run the snapshot.
 */
export async function deployPipeline(
  deps: PipelineDeps,
  principal: Principal,
  pipelineId: string,
  expectedVersion: number | undefined,
  now = new Date(),
): Promise<void> {
  const pipeline = await visiblePipeline(deps, principal, pipelineId, 'write');
  if (expectedVersion !== undefined && expectedVersion !== pipeline.working_version) {
    throw conflict(`The working version is ${pipeline.working_version}, not ${expectedVersion}`);
  }
  if (!pipeline.definition) throw conflict('The pipeline has no definition to deploy');
  if (pipeline.deployed_version === pipeline.working_version) return;
  await deps.deployVersion(
    {
      pipeline_id: pipelineId,
      version: pipeline.working_version,
      definition: pipeline.definition,
      deployed_at: now.toISOString(),
    },
    now,
  );
}

export async function setPipelineStatus(
  deps: PipelineDeps,
  principal: Principal,
  pipelineId: string,
  status: PipelineStatus,
  now = new Date(),
): Promise<void> {
  const pipeline = await visiblePipeline(deps, principal, pipelineId, status === 'Disabled' ? 'restrict' : 'write');
  if (pipeline.status === status) throw conflict(`The pipeline is already ${status}`);
  await deps.updatePipeline(pipelineId, pipeline.working_version, { status }, now);
}

export async function renamePipeline(
  deps: PipelineDeps,
  principal: Principal,
  pipelineId: string,
  name: string,
  now = new Date(),
): Promise<void> {
  const pipeline = await visiblePipeline(deps, principal, pipelineId, 'write');
  await deps.updatePipeline(pipelineId, pipeline.working_version, { name }, now);
}

/** Deleting a pipeline keeps its output data set (which nothing writes to any more, so it can be deleted next). */
export async function deletePipeline(deps: PipelineDeps, principal: Principal, pipelineId: string): Promise<void> {
  await visiblePipeline(deps, principal, pipelineId, 'write');
  await deps.deletePipeline(pipelineId);
}

/** What a trigger needs: an Active pipeline with a deployed version. */
export function requireRunnable(pipeline: Pipeline): void {
  if (pipeline.status !== 'Active') throw refused('PIPELINE_DISABLED', 'The pipeline is disabled');
  if (pipeline.deployed_version === 0)
    throw refused('PIPELINE_NOT_DEPLOYED', 'The pipeline has no deployed version; deploy it first');
}
