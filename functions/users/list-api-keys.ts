import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listApiKeys } from '#shared/domain/identity/api-keys.ts';
import { ok } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(
  userRoutes,
  'GET /api/users/{user_id}/api-keys',
  async ({ principal, params, query }) => {
    const page = await listApiKeys(identity, principal, params.user_id, query);
    return ok({ api_keys: page.items, next_cursor: page.nextCursor });
  },
);
