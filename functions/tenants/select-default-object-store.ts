import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { selectDefaultObjectStore } from '#shared/domain/tenants/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  'POST /api/tenants/{tenant_id}/select-default-object-store',
  async ({ principal, params, body }) => {
    await selectDefaultObjectStore(tenancy, principal, params.tenant_id, body.object_store_id);
    return noContent();
  },
);
