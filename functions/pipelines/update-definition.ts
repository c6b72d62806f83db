import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { updateDefinition } from '#shared/domain/pipelines/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(
  pipelineRoutes,
  'POST /api/pipelines/{pipeline_id}/update-definition',
  async ({ principal, params, body }) => {
    await updateDefinition(pipelineStore, principal, params.pipeline_id, body.definition);
    return noContent();
  },
);
