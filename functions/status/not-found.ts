import { notFound } from '#shared/domain/errors.ts';
import { httpEdge } from '#shared/http/api-handler.ts';

/** API Gateway's `$default` route: anything that matches no route gets a 404 in the error shape. */
export const handler = httpEdge('$default', async (event) => {
  throw notFound(`Route ${event.requestContext.http.method} ${event.rawPath}`);
});
