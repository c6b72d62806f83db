import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { reactivateUser } from '#shared/domain/identity/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(userRoutes, 'POST /api/users/{user_id}/reactivate', async ({ principal, params }) => {
  await reactivateUser(identity, principal, params.user_id);
  return noContent();
});
