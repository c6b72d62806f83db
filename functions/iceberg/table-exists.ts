import { icebergTables } from '#shared/adapters/iceberg-tables.ts';
import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { requireTable } from '#shared/domain/iceberg/catalog.ts';
import { noContent } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

const catalog = { ...catalogRecords, loadTable: icebergTables.load };

export const handler = apiHandler(
  icebergRoutes,
  'HEAD /iceberg/v1/namespaces/{namespace}/tables/{table}',
  async ({ principal, params }) => {
    await requireTable(catalog, principal, params.namespace, params.table);
    return noContent();
  },
);
