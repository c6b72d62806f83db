import { tenancy } from '#shared/adapters/repositories.ts';
import { suspendTenant } from '#shared/domain/tenants/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/tenants/{tenant_id}/suspend', async ({ principal, params }) => {
  await suspendTenant(tenancy, principal, params.tenant_id);
  return noContent();
});
