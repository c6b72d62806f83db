import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { requireTable } from '#shared/domain/iceberg/catalog.ts';
import { noContent } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(
  icebergRoutes,
  'HEAD /iceberg/v1/namespaces/{namespace}/tables/{table}',
  async ({ principal, params }) => {
    await requireTable(catalogRecords, principal, params.namespace, params.table);
    return noContent();
  },
);
