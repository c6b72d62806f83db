import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listPipelines, publicPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(pipelineRoutes, 'GET /api/pipelines', async ({ principal, query }) => {
  const page = await listPipelines(pipelineStore, principal, query);
  return ok({ pipelines: page.items.map(publicPipeline), next_cursor: page.nextCursor });
});
