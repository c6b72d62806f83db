/**
 * The pipeline use cases, in process through in-memory ports (test/support/memory.ts). The running
 * service checks the wiring of the same routes.
 */
import { describe, expect, it } from 'vitest';
import { triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import {
  createPipeline,
  deletePipeline,
  deployPipeline,
  listPipelines,
  renamePipeline,
  setPipelineStatus,
  updateDefinition,
} from '#shared/domain/pipelines/use-cases.ts';
import { platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';
import { definitionFor, now, withConnection, withPipeline } from '../support/use-case-setups.ts';

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
    expect(store.state.dispatched).toEqual([{ jobId: job.job_id, offer: 0, delaySeconds: 0 }]);
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
