import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { createPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { created } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(pipelineRoutes, 'POST /api/pipelines', async ({ principal, body }) => {
  const pipeline = await createPipeline(pipelineStore, principal, body);
  return created({ pipeline_id: pipeline.pipeline_id });
});
