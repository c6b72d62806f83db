import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listTables } from '#shared/domain/iceberg/catalog.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(
  icebergRoutes,
  'GET /iceberg/v1/namespaces/{namespace}/tables',
  async ({ principal, params }) => ok(await listTables(catalogRecords, principal, params.namespace)),
);
