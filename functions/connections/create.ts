import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import { publicBaseUrl } from '#shared/http/request.ts';
import { created } from '#shared/http/responses.ts';
import { connectionRoutes } from '#shared/routes/connections.ts';

export const handler = apiHandler(
  connectionRoutes,
  'POST /api/tenants/{tenant_id}/connections',
  async ({ principal, params, body, event }) => {
    const { connection, ingestToken, ingestUrl } = await createConnection(
      connectivity,
      principal,
      params.tenant_id,
      body,
      new Date(),
      publicBaseUrl(event),
    );
    return created({
      connection_id: connection.connection_id,
      source_id: connection.source_id,
      data_set_id: connection.data_set_id,
      ingest_token: ingestToken,
      ingest_url: ingestUrl ?? '',
    });
  },
);
