import { pipelineStore } from '#shared/adapters/repositories.ts';
import { updateDefinition } from '#shared/domain/pipelines/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler(
  'POST /api/pipelines/{pipeline_id}/update-definition',
  async ({ principal, params, body }) => {
    await updateDefinition(pipelineStore, principal, params.pipeline_id, body.definition);
    return noContent();
  },
);
