import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { getNamespace } from '#shared/domain/iceberg/catalog.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(
  icebergRoutes,
  'GET /iceberg/v1/namespaces/{namespace}',
  async ({ principal, params }) => ok(await getNamespace(catalogRecords, principal, params.namespace)),
);
