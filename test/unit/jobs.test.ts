/**
 * The job use cases, in process through in-memory ports (test/support/memory.ts). The running
 * service checks the wiring of the same routes.
 */
import { describe, expect, it } from 'vitest';
import { cancelJob, listJobs } from '#shared/domain/jobs/manage-jobs.ts';
import { offerUnansweredJobs } from '#shared/domain/jobs/offers.ts';
import { triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import { startQuery } from '#shared/domain/pipelines/queries.ts';
import { deployPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';
import { definitionFor, now, withConnection, withPipeline } from '../support/use-case-setups.ts';

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

  it('fail, saying why, when the job cannot be put on the queue: 503, and nothing of it runs', async () => {
    const { store, pipelineId } = await withPipeline();
    await deployPipeline(store, platformAdmin, pipelineId, undefined);
    const broken = {
      ...store,
      dispatchJob: async () => {
        throw new Error('queue unreachable');
      },
    };
    expect(await refusal(triggerPipeline(broken, platformAdmin, pipelineId, null, now))).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      paths: [],
    });
    expect([...store.state.jobs.values()].map((job) => [job.status, job.error_message])).toEqual([
      ['Failed', 'The job could not be queued'],
    ]);
    // The sweep of unanswered offers leaves it: the caller was told to ask again.
    expect(
      await offerUnansweredJobs({ ...store, countOfferedAgain: () => undefined }, new Date('2026-11-22T10:00:00.000Z')),
    ).toBe(0);
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
