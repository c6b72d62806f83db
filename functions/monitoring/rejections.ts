import { listRejections } from '#shared/adapters/dynamo/rejections.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { connectionRejections } from '#shared/domain/monitoring/rejections.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

export const handler = apiHandler(
  monitoringRoutes,
  'GET /api/connections/{connection_id}/rejections',
  async ({ principal, params, query }) => {
    const page = await connectionRejections(
      { ...connectivity, listRejections },
      principal,
      params.connection_id,
      query,
    );
    return ok({ rejections: page.items, next_cursor: page.nextCursor });
  },
);
