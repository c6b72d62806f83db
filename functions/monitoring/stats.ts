import { readSourceCounters } from '#shared/adapters/dynamo/counters.ts';
import { stagedFor } from '#shared/adapters/dynamo/staging-heads.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleConnection } from '#shared/domain/connections/use-cases.ts';
import { statsFrom } from '#shared/domain/monitoring/views.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/connections/{connection_id}/stats',
  async ({ principal, params }) => {
    const connection = await visibleConnection(connectivity, principal, params.connection_id, 'read');
    const [series, staged] = await Promise.all([
      readSourceCounters(connection.source_id),
      stagedFor(connection.data_set_id),
    ]);
    return ok(statsFrom(series, staged));
  },
);
