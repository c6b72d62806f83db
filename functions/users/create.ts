import { identity } from '#shared/adapters/repositories.ts';
import { createUser } from '#shared/domain/identity/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { created } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/users', async ({ principal, body }) => {
  const user = await createUser(identity, principal, body);
  return created({ email: user.email, user_id: user.user_id });
});
