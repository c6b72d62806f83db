import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { created } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(tenantRoutes, 'POST /api/tenants', async ({ body }) => {
  const tenant = await createTenant(tenancy, body);
  return created({ tenant_id: tenant.tenant_id });
});
