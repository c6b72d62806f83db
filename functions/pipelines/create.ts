import { pipelineStore } from '#shared/adapters/repositories.ts';
import { createPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { created } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/pipelines', async ({ principal, body }) => {
  const pipeline = await createPipeline(pipelineStore, principal, body);
  return created({ pipeline_id: pipeline.pipeline_id });
});
