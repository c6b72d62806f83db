import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { deployPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(
  pipelineRoutes,
  'POST /api/pipelines/{pipeline_id}/deploy',
  async ({ principal, params, body }) => {
    await deployPipeline(pipelineStore, principal, params.pipeline_id, body.version);
    return noContent();
  },
);
