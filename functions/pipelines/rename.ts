import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { renamePipeline } from '#shared/domain/pipelines/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(
  pipelineRoutes,
  'POST /api/pipelines/{pipeline_id}/rename',
  async ({ principal, params, body }) => {
    await renamePipeline(pipelineStore, principal, params.pipeline_id, body.name);
    return noContent();
  },
);
