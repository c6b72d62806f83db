/**
 * The edge of every API route (shared/http/api-handler.ts), bound to the key store in the table:
 * users and API keys, loaded with the first authenticated request.
 */
import { apiEdge } from './http/api-handler.ts';

export const apiHandler = apiEdge(async () => {
  const [keys, users] = await Promise.all([
    import('./adapters/dynamo/api-keys.ts'),
    import('./adapters/dynamo/users.ts'),
  ]);
  return { findApiKeyByHash: keys.findApiKeyByHash, touchApiKey: keys.touchApiKey, getUser: users.getUser };
});
