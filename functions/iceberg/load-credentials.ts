import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { tableReadAccess } from '#shared/adapters/s3/vended-credentials.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { loadCredentials } from '#shared/domain/iceberg/catalog.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

const catalog = { ...catalogRecords, readAccess: tableReadAccess };

export const handler = apiHandler(
  icebergRoutes,
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}/credentials',
  async ({ principal, params }) => ok(await loadCredentials(catalog, principal, params.namespace, params.table)),
);
