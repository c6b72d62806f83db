import { apiHandler } from '#shared/api-handler.ts';
import { refuseCatalogRequest } from '#shared/domain/iceberg/catalog.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

export const handler = apiHandler(icebergRoutes, 'ANY /iceberg/{path+}', async ({ event }) =>
  refuseCatalogRequest(event.requestContext.http.method, event.rawPath),
);
