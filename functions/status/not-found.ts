import { notFound } from '#shared/domain/errors.ts';
import { httpEdge } from '#shared/http/api-handler.ts';

/**
 * API Gateway's `$default` route: anything that matches no route gets a 404 in the error shape, and
 * under /iceberg in the Iceberg catalog's error model (CONTRACT 5a: every error there is one).
 */
export const handler = httpEdge(
  '$default',
  async (event) => {
    throw notFound(`Route ${event.requestContext.http.method} ${event.rawPath}`);
  },
  {
    protocol: (event) =>
      event.rawPath === '/iceberg' || event.rawPath.startsWith('/iceberg/') ? 'iceberg' : undefined,
  },
);
