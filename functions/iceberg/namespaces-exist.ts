import { apiHandler } from '#shared/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

/** HEAD of the namespace list: the key was checked (and its data-sets.read) before this runs. */
export const handler = apiHandler(icebergRoutes, 'HEAD /iceberg/v1/namespaces', async () => noContent());
