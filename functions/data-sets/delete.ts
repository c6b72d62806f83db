import { dataSetFileStore } from '#shared/adapters/repositories/data-set-files.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { deleteDataSet } from '#shared/domain/datasets/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

export const handler = apiHandler(
  dataSetRoutes,
  'DELETE /api/data-sets/{data_set_id}',
  async ({ principal, params }) => {
    await deleteDataSet(dataSetFileStore, principal, params.data_set_id);
    return noContent();
  },
);
