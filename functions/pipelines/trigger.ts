import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import { created } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(
  pipelineRoutes,
  'POST /api/pipelines/{pipeline_id}/trigger',
  async ({ principal, params, body }) => {
    const job = await triggerPipeline({ ...pipelineStore, dispatchJob }, principal, params.pipeline_id, body);
    return created({ job_id: job.job_id });
  },
);
