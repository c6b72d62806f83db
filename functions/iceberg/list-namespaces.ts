import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listNamespaces } from '#shared/domain/iceberg/catalog.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(icebergRoutes, 'GET /iceberg/v1/namespaces', async ({ principal, query }) =>
  ok(await listNamespaces(catalogRecords, principal, query.parent)),
);
