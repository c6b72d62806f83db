import { dataSetFileStore, fileCursors } from '#shared/adapters/repositories/data-set-files.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listDataSetFiles } from '#shared/domain/datasets/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

export const handler = apiHandler(
  dataSetRoutes,
  'GET /api/data-sets/{data_set_id}/files',
  async ({ principal, params, query }) =>
    ok(
      await listDataSetFiles(
        { ...dataSetFileStore, cursors: fileCursors(params.data_set_id) },
        principal,
        params.data_set_id,
        query,
      ),
    ),
);
