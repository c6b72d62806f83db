import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { deleteConnection } from '#shared/domain/connections/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'DELETE /api/connections/{connection_id}',
  async ({ principal, params }) => {
    await deleteConnection(connectivity, principal, params.connection_id);
    return noContent();
  },
);
