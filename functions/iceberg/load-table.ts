import { icebergTables } from '#shared/adapters/iceberg-tables.ts';
import { catalogRecords } from '#shared/adapters/repositories/iceberg-catalog.ts';
import { tableReadAccess } from '#shared/adapters/s3/vended-credentials.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { loadTable } from '#shared/domain/iceberg/catalog.ts';
import { header } from '#shared/http/request.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

const catalog = { ...catalogRecords, loadTable: icebergTables.load, readAccess: tableReadAccess };

export const handler = apiHandler(
  icebergRoutes,
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}',
  async ({ principal, params, event }) =>
    ok(
      await loadTable(catalog, principal, {
        ...params,
        vendCredentials: (header(event, 'x-iceberg-access-delegation') ?? '')
          .split(',')
          .some((mechanism) => mechanism.trim() === 'vended-credentials'),
      }),
    ),
);
