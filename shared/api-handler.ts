/**
 * The edge of every API route (shared/http/api-handler.ts), bound to the key store in the table:
 * users and API keys, loaded with the first authenticated request. A key hash the table does not
 * know is remembered for the ingest cache's window, so a flood of one wrong key costs one read per
 * window, not one per request.
 */
import { apiEdge } from './http/api-handler.ts';

export const apiHandler = apiEdge(async () => {
  const [keys, users, cache] = await Promise.all([
    import('./adapters/dynamo/api-keys.ts'),
    import('./adapters/dynamo/users.ts'),
    import('./adapters/dynamo/ingest-cache.ts'),
  ]);
  return {
    findApiKeyByHash: cache.rememberingMisses(keys.findApiKeyByHash),
    touchApiKey: keys.touchApiKey,
    getUser: users.getUser,
  };
});
