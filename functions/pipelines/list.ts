import { pipelineStore } from '#shared/adapters/repositories.ts';
import { listPipelines, publicPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/pipelines', async ({ principal, query }) => {
  const page = await listPipelines(pipelineStore, principal, query);
  return ok({ pipelines: page.items.map(publicPipeline), next_cursor: page.nextCursor });
});
