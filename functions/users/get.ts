import { identity } from '#shared/adapters/repositories.ts';
import { publicUser, visibleUser } from '#shared/domain/identity/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/users/{user_id}', async ({ principal, params }) =>
  ok(publicUser(await visibleUser(identity, principal, params.user_id))),
);
