import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { notFound } from '#shared/domain/errors.ts';
import { triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import { startQuery } from '#shared/domain/pipelines/queries.ts';
import { created } from '#shared/http/responses.ts';
import { jobRoutes } from '#shared/routes/jobs.ts';

const jobs = { ...pipelineStore, dispatchJob };

export const handler = apiHandler(jobRoutes, 'POST /api/jobs', async ({ principal, body }) => {
  if (body.type === 'query') return created({ job_id: (await startQuery(jobs, principal, body)).job_id });
  const pipeline = await jobs.getPipeline(body.pipeline_id);
  // A pipeline named under another tenant than the one given does not exist for this request.
  if (pipeline && body.tenant_id && pipeline.tenant_id !== body.tenant_id) throw notFound('Pipeline');
  return created({
    job_id: (await triggerPipeline(jobs, principal, body.pipeline_id, body)).job_id,
  });
});
