import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listJobs } from '#shared/domain/jobs/manage-jobs.ts';
import { ok } from '#shared/http/responses.ts';
import { jobRoutes } from '#shared/routes/jobs.ts';

export const handler = apiHandler(jobRoutes, 'GET /api/jobs', async ({ principal, query }) => {
  const page = await listJobs(pipelineStore, principal, query);
  return ok({ jobs: page.items, next_cursor: page.nextCursor });
});
