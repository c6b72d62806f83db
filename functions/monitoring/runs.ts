import { completedEntries } from '#shared/adapters/dynamo/delta-log.ts';
import { dataSetStore } from '#shared/adapters/repositories/data-sets.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleDataSet } from '#shared/domain/datasets/use-cases.ts';
import { runOf } from '#shared/domain/monitoring/views.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/data-sets/{data_set_id}/runs',
  async ({ principal, params, query }) => {
    await visibleDataSet(dataSetStore, principal, params.data_set_id);
    const page = await completedEntries(params.data_set_id, query);
    return ok({
      runs: page.items.map((entry) => runOf({ ...entry, completedAt: entry.completedAt ?? null })),
      next_cursor: page.nextCursor,
    });
  },
);
