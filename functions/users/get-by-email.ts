import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { getUserByEmail, publicUser } from '#shared/domain/identity/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(userRoutes, 'GET /api/users/by-email', async ({ principal, query }) =>
  ok(publicUser(await getUserByEmail(identity, principal, query.email))),
);
