import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { deletePipeline } from '#shared/domain/pipelines/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(
  pipelineRoutes,
  'DELETE /api/pipelines/{pipeline_id}',
  async ({ principal, params }) => {
    await deletePipeline(pipelineStore, principal, params.pipeline_id);
    return noContent();
  },
);
