import { dataSetStore } from '#shared/adapters/repositories.ts';
import { visibleDataSet } from '#shared/domain/datasets/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/data-sets/{data_set_id}', async ({ principal, params }) =>
  ok(await visibleDataSet(dataSetStore, principal, params.data_set_id)),
);
