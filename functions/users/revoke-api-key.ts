import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { revokeApiKey } from '#shared/domain/identity/api-keys.ts';
import { noContent } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(
  userRoutes,
  'DELETE /api/users/{user_id}/api-keys/{api_key_id}',
  async ({ principal, params }) => {
    await revokeApiKey(identity, principal, params.user_id, params.api_key_id);
    return noContent();
  },
);
