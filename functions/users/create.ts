import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { createUser } from '#shared/domain/identity/use-cases.ts';
import { created } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(userRoutes, 'POST /api/users', async ({ principal, body }) => {
  const user = await createUser(identity, principal, body);
  return created({ email: user.email, user_id: user.user_id });
});
