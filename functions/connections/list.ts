import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listConnections } from '#shared/domain/connections/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'GET /api/tenants/{tenant_id}/connections',
  async ({ principal, params, query }) => {
    const page = await listConnections(connectivity, principal, params.tenant_id, query);
    return ok({ connections: page.items, next_cursor: page.nextCursor });
  },
);
