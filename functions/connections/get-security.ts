import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { getSecurity } from '#shared/domain/connections/security-use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'GET /api/connections/{connection_id}/security',
  async ({ principal, params }) => ok(await getSecurity(connectivity, principal, params.connection_id)),
);
