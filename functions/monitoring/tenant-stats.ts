import { readSourceCounters } from '#shared/adapters/dynamo/counters.ts';
import { stagedFor } from '#shared/adapters/dynamo/staging-heads.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { tenantConnectionStats } from '#shared/domain/monitoring/tenant-stats.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/tenants/{tenant_id}/stats',
  async ({ principal, params, query }) => {
    const page = await tenantConnectionStats(
      { ...connectivity, readSourceCounters, stagedFor },
      principal,
      params.tenant_id,
      query,
    );
    return ok({ connections: page.items, next_cursor: page.nextCursor });
  },
);
