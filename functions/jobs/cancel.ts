import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { cancelJob } from '#shared/domain/jobs/manage-jobs.ts';
import { noContent } from '#shared/http/responses.ts';
import { jobRoutes } from '#shared/routes/jobs.ts';

export const handler = apiHandler(jobRoutes, 'POST /api/jobs/{job_id}/cancel', async ({ principal, params }) => {
  await cancelJob(pipelineStore, principal, params.job_id);
  return noContent();
});
