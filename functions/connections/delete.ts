import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { deleteConnection } from '#shared/domain/connections/use-cases.ts';
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
