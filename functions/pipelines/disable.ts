import { pipelineStore } from '#shared/adapters/repositories.ts';
import { setPipelineStatus } from '#shared/domain/pipelines/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/pipelines/{pipeline_id}/disable', async ({ principal, params }) => {
  await setPipelineStatus(pipelineStore, principal, params.pipeline_id, 'Disabled');
  return noContent();
});
