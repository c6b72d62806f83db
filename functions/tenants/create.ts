import { tenancy } from '#shared/adapters/repositories.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { created } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/tenants', async ({ body }) => {
  const tenant = await createTenant(tenancy, body);
  return created({ tenant_id: tenant.tenant_id });
});
