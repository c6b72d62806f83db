import { tenancy } from '#shared/adapters/repositories.ts';
import { listTenants } from '#shared/domain/tenants/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/tenants', async ({ principal, query }) => {
  const page = await listTenants(tenancy, principal, query);
  return ok({ tenants: page.items, next_cursor: page.nextCursor });
});
