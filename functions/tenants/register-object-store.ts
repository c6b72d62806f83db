import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { tenantRoleChecks } from '#shared/adapters/tenant-roles.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { registerObjectStore } from '#shared/domain/tenants/use-cases.ts';
import { created } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  'POST /api/tenants/{tenant_id}/register-object-store',
  async ({ principal, params, body }) => {
    const store = await registerObjectStore({ ...tenancy, roles: tenantRoleChecks }, principal, params.tenant_id, body);
    return created({ object_store_id: store.object_store_id });
  },
);
