import { tenancy } from '#shared/adapters/repositories.ts';
import { tenantFor } from '#shared/domain/tenants/guard.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/tenants/{tenant_id}', async ({ principal, params }) =>
  ok(await tenantFor(tenancy, principal, params.tenant_id, 'read')),
);
