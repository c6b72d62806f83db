import { openCursor, sealCursor } from '#shared/adapters/dynamo/cursors.ts';
import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { getResult } from '#shared/adapters/s3/job-results.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { queryResult } from '#shared/domain/pipelines/queries.ts';
import { ok } from '#shared/http/responses.ts';
import { jobRoutes } from '#shared/routes/jobs.ts';

export const handler = apiHandler(jobRoutes, 'GET /api/jobs/{job_id}/result', async ({ principal, params, query }) => {
  const list = `job-result|${params.job_id}`;
  const cursors = {
    seal: (position: unknown) => sealCursor(list, position),
    open: (cursor: string) => openCursor(list, cursor),
  };
  return ok(await queryResult({ getJob: pipelineStore.getJob, getResult, cursors }, principal, params.job_id, query));
});
