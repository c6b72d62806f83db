import { apiHandler } from '#shared/api-handler.ts';
import { catalogConfig } from '#shared/domain/iceberg/catalog.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(icebergRoutes, 'GET /iceberg/v1/config', async () => ok(catalogConfig()));
