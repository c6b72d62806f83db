import { identity } from '#shared/adapters/repositories.ts';
import { getUserByEmail, publicUser } from '#shared/domain/identity/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/users/by-email', async ({ principal, query }) =>
  ok(publicUser(await getUserByEmail(identity, principal, query.email))),
);
