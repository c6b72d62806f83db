import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { publicPipeline, visiblePipeline } from '#shared/domain/pipelines/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(pipelineRoutes, 'GET /api/pipelines/{pipeline_id}', async ({ principal, params }) =>
  ok(publicPipeline(await visiblePipeline(pipelineStore, principal, params.pipeline_id, 'read'))),
);
