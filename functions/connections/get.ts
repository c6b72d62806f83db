import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { connectionDetail } from '#shared/domain/connections/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'GET /api/connections/{connection_id}',
  async ({ principal, params }) => ok(await connectionDetail(connectivity, principal, params.connection_id)),
);
