import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { rotateSigningSecret } from '#shared/domain/connections/security-use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'POST /api/connections/{connection_id}/rotate-signing-secret',
  async ({ principal, params, body }) =>
    ok(await rotateSigningSecret(connectivity, principal, params.connection_id, body)),
);
