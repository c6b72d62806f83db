import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { setPipelineStatus } from '#shared/domain/pipelines/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { pipelineRoutes } from '#shared/routes/pipelines.ts';

export const handler = apiHandler(
  pipelineRoutes,
  'POST /api/pipelines/{pipeline_id}/enable',
  async ({ principal, params }) => {
    await setPipelineStatus(pipelineStore, principal, params.pipeline_id, 'Active');
    return noContent();
  },
);
