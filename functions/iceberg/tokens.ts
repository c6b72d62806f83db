import { findApiKeyByHash, touchApiKey } from '#shared/adapters/dynamo/api-keys.ts';
import { getUser } from '#shared/adapters/dynamo/users.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { exchangeToken } from '#shared/domain/iceberg/catalog.ts';
import { authenticate } from '#shared/domain/identity/authenticate.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

const credentials = { findApiKeyByHash, touchApiKey, getUser };

export const handler = apiHandler(icebergRoutes, 'POST /iceberg/v1/oauth/tokens', async ({ body }) =>
  ok(await exchangeToken((apiKey) => authenticate(credentials, apiKey), body)),
);
