import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { eventsOf } from '#shared/adapters/repositories/events.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { secretHeadersOf } from '#shared/domain/connections/signature-headers.ts';
import { visibleConnection } from '#shared/domain/connections/use-cases.ts';
import { eventTypeField, readEvents } from '#shared/domain/monitoring/events.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/connections/{connection_id}/events',
  async ({ principal, params, query }) => {
    const connection = await visibleConnection(connectivity, principal, params.connection_id, 'read');
    const [events, source] = await Promise.all([
      eventsOf(connection.data_set_id),
      connectivity.getSource(connection.source_id),
    ]);
    const secretHeaders = secretHeadersOf(source?.security.signature ?? null);
    return ok(await readEvents({ ...events, eventType: eventTypeField(source), secretHeaders }, query));
  },
);
