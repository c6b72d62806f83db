import { pipelineStore } from '#shared/adapters/repositories.ts';
import { cancelJob } from '#shared/domain/jobs/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/jobs/{job_id}/cancel', async ({ principal, params }) => {
  await cancelJob(pipelineStore, principal, params.job_id);
  return noContent();
});
