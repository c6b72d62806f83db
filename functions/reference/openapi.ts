import { apiHandler } from '#shared/api-handler.ts';
import { openApiDocument } from '#shared/http/openapi.ts';
import { publicBaseUrl } from '#shared/http/request.ts';
import { ok } from '#shared/http/responses.ts';
import { referenceRoutes } from '#shared/routes/reference.ts';
import { routes } from '#shared/routes.ts';

export const handler = apiHandler(referenceRoutes, 'GET /openapi.json', async ({ event }) =>
  ok(openApiDocument(routes, publicBaseUrl(event))),
);
