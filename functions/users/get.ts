import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { publicUser, visibleUser } from '#shared/domain/identity/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(userRoutes, 'GET /api/users/{user_id}', async ({ principal, params }) =>
  ok(publicUser(await visibleUser(identity, principal, params.user_id))),
);
