import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleJob } from '#shared/domain/jobs/manage-jobs.ts';
import { ok } from '#shared/http/responses.ts';
import { jobRoutes } from '#shared/routes/jobs.ts';

export const handler = apiHandler(jobRoutes, 'GET /api/jobs/{job_id}', async ({ principal, params }) =>
  ok(await visibleJob(pipelineStore, principal, params.job_id)),
);
