import { dataSetStore } from '#shared/adapters/repositories/data-sets.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { shownDataSet } from '#shared/domain/datasets/model.ts';
import { listDataSets } from '#shared/domain/datasets/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

export const handler = apiHandler(dataSetRoutes, 'GET /api/data-sets', async ({ principal, query }) => {
  const page = await listDataSets(dataSetStore, principal, query);
  return ok({ data_sets: page.items.map(shownDataSet), next_cursor: page.nextCursor });
});
