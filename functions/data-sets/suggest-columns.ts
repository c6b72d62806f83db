import { pipelineSources } from '#shared/adapters/repositories/pipeline-sources.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { suggestColumns } from '#shared/domain/pipelines/suggest-columns.ts';
import { ok } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

export const handler = apiHandler(
  dataSetRoutes,
  'POST /api/data-sets/{data_set_id}/suggest-columns',
  async ({ principal, params, body }) => ok(await suggestColumns(pipelineSources, principal, params.data_set_id, body)),
);
