import { apiHandler } from '#shared/api-handler.ts';
import { apiReferencePage } from '#shared/http/api-reference.ts';
import { openApiDocument } from '#shared/http/openapi.ts';
import { publicBaseUrl } from '#shared/http/request.ts';
import { referenceRoutes } from '#shared/routes/reference.ts';
import { routes } from '#shared/routes.ts';

export const handler = apiHandler(referenceRoutes, 'GET /docs', async ({ event }) => ({
  status: 200,
  // The page is self-contained: it needs nothing but its own inline styles.
  headers: { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
  raw: {
    contentType: 'text/html; charset=utf-8',
    content: apiReferencePage(openApiDocument(routes, publicBaseUrl(event))),
  },
}));
