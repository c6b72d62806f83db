import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { moveConnection } from '#shared/domain/connections/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'POST /api/connections/{connection_id}/resume-source',
  async ({ principal, params }) => {
    await moveConnection(connectivity, principal, params.connection_id, { field: 'source_status', to: 'Active' });
    return noContent();
  },
);
