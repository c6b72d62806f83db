import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { publicDashboardConnection } from '#shared/domain/tenants/dashboard.ts';
import { tenantFor } from '#shared/domain/tenants/guard.ts';
import { ok } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  'GET /api/tenants/{tenant_id}/dashboard-connection',
  async ({ principal, params }) => {
    await tenantFor(tenancy, principal, params.tenant_id, 'read');
    return ok(publicDashboardConnection(await tenancy.getDashboardConnection(params.tenant_id)));
  },
);
