import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { putSecurity } from '#shared/domain/connections/security-use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'PUT /api/connections/{connection_id}/security',
  async ({ principal, params, body }) => ok(await putSecurity(connectivity, principal, params.connection_id, body)),
);
