import { readSourceHistory } from '#shared/adapters/dynamo/counters.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { connectionHistory } from '#shared/domain/monitoring/history.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/connections/{connection_id}/stats/history',
  async ({ principal, params, query }) =>
    ok(await connectionHistory({ ...connectivity, readSourceHistory }, principal, params.connection_id, query)),
);
