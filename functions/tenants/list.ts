import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listTenants } from '#shared/domain/tenants/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(tenantRoutes, 'GET /api/tenants', async ({ principal, query }) => {
  const page = await listTenants(tenancy, principal, query);
  return ok({ tenants: page.items, next_cursor: page.nextCursor });
});
