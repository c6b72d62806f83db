import { dataSetStore } from '#shared/adapters/repositories.ts';
import { listDataSets } from '#shared/domain/datasets/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/data-sets', async ({ principal, query }) => {
  const page = await listDataSets(dataSetStore, principal, query);
  return ok({ data_sets: page.items, next_cursor: page.nextCursor });
});
