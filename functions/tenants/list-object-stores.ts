import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listObjectStores } from '#shared/domain/tenants/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  'GET /api/tenants/{tenant_id}/object-stores',
  async ({ principal, params, query }) => {
    const page = await listObjectStores(tenancy, principal, params.tenant_id, query);
    return ok({ object_stores: page.items, next_cursor: page.nextCursor });
  },
);
