import { pipelineStore } from '#shared/adapters/repositories.ts';
import { queryResult } from '#shared/domain/jobs/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/jobs/{job_id}/result', async ({ principal, params }) =>
  ok(await queryResult(pipelineStore, principal, params.job_id)),
);
