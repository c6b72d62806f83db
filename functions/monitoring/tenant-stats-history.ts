import { readSourceHistory } from '#shared/adapters/dynamo/counters.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { tenantHistory } from '#shared/domain/monitoring/history.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/tenants/{tenant_id}/stats/history',
  async ({ principal, params, query }) =>
    ok(await tenantHistory({ ...connectivity, readSourceHistory }, principal, params.tenant_id, query)),
);
