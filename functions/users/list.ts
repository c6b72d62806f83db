import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listUsers } from '#shared/domain/identity/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(userRoutes, 'GET /api/users', async ({ principal, query }) => {
  const page = await listUsers(identity, principal, query);
  return ok({ users: page.items, next_cursor: page.nextCursor });
});
