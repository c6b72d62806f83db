import { dataSetStore } from '#shared/adapters/repositories/data-sets.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { shownDataSet } from '#shared/domain/datasets/model.ts';
import { visibleDataSet } from '#shared/domain/datasets/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

export const handler = apiHandler(dataSetRoutes, 'GET /api/data-sets/{data_set_id}', async ({ principal, params }) =>
  ok(shownDataSet(await visibleDataSet(dataSetStore, principal, params.data_set_id))),
);
