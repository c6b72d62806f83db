import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleNamespace } from '#shared/domain/iceberg/catalog.ts';
import { noContent } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(
  icebergRoutes,
  'HEAD /iceberg/v1/namespaces/{namespace}',
  async ({ principal, params }) => {
    await visibleNamespace(catalogRecords, principal, params.namespace);
    return noContent();
  },
);
