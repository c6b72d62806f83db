import { findApiKeyByHash } from '#shared/adapters/dynamo/api-keys.ts';
import { getUser } from '#shared/adapters/dynamo/users.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { exchangeToken } from '#shared/domain/iceberg/catalog.ts';
import { authenticate } from '#shared/domain/identity/authenticate.ts';
import { ok } from '#shared/http/responses.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';

/**
 * The exchange only checks the key (it reads the table); the catalog requests the token then
 * authorises record the key's use, as every API-key request does.
 */
const credentials = { findApiKeyByHash, getUser, touchApiKey: async () => undefined };

export const handler = apiHandler(icebergRoutes, 'POST /iceberg/v1/oauth/tokens', async ({ body }) =>
  ok(await exchangeToken((apiKey) => authenticate(credentials, apiKey), body)),
);
