import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { requestDashboardProvisioning } from '#shared/adapters/sqs/dashboard-queue.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { rotateDashboardCredential } from '#shared/domain/tenants/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { tenantRoutes } from '#shared/routes/tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  'POST /api/tenants/{tenant_id}/dashboard-connection/rotate',
  async ({ principal, params }) => {
    await rotateDashboardCredential({ ...tenancy, requestDashboardProvisioning }, principal, params.tenant_id);
    return noContent();
  },
);
