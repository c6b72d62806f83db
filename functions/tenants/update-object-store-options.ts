import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { tenantRoleChecks } from '#shared/adapters/tenant-roles.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { updateObjectStoreOptions } from '#shared/domain/tenants/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  'POST /api/tenants/{tenant_id}/update-object-store-options',
  async ({ principal, params, body }) => {
    await updateObjectStoreOptions({ ...tenancy, roles: tenantRoleChecks }, principal, params.tenant_id, body);
    return noContent();
  },
);
