import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { regenerateToken } from '#shared/domain/connections/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'POST /api/connections/{connection_id}/regenerate-token',
  async ({ principal, params }) =>
    ok({ ingest_token: await regenerateToken(connectivity, principal, params.connection_id) }),
);
