import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { eventsOf } from '#shared/adapters/repositories/events.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleConnection } from '#shared/domain/connections/use-cases.ts';
import { readEvents } from '#shared/domain/monitoring/events.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/connections/{connection_id}/events',
  async ({ principal, params, query }) => {
    const connection = await visibleConnection(connectivity, principal, params.connection_id, 'read');
    return ok(await readEvents(await eventsOf(connection.data_set_id), query));
  },
);
