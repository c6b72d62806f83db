import { pipelineStore } from '#shared/adapters/repositories.ts';
import { deployPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/pipelines/{pipeline_id}/deploy', async ({ principal, params, body }) => {
  await deployPipeline(pipelineStore, principal, params.pipeline_id, body.version);
  return noContent();
});
