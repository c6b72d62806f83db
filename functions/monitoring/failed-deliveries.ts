import { listFailedDeliveries } from '#shared/adapters/dynamo/deliveries.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleConnection } from '#shared/domain/connections/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/connections/{connection_id}/failed-deliveries',
  async ({ principal, params, query }) => {
    const connection = await visibleConnection(connectivity, principal, params.connection_id, 'read');
    const page = await listFailedDeliveries(connection.data_set_id, query);
    return ok({
      failed_deliveries: page.items.map(({ message_id, failed_at, attempts, last_error }) => ({
        message_id,
        failed_at,
        attempts,
        last_error,
      })),
      next_cursor: page.nextCursor,
    });
  },
);
