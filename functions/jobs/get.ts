import { pipelineStore } from '#shared/adapters/repositories.ts';
import { visibleJob } from '#shared/domain/jobs/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/jobs/{job_id}', async ({ principal, params }) =>
  ok(await visibleJob(pipelineStore, principal, params.job_id)),
);
