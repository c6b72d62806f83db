import { dataSetStore } from '#shared/adapters/repositories.ts';
import { deleteDataSet } from '#shared/domain/datasets/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('DELETE /api/data-sets/{data_set_id}', async ({ principal, params }) => {
  await deleteDataSet(dataSetStore, principal, params.data_set_id);
  return noContent();
});
