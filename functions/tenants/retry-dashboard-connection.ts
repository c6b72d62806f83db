import { tenancy } from '#shared/adapters/repositories.ts';
import { retryDashboardConnection } from '#shared/domain/tenants/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler(
  'POST /api/tenants/{tenant_id}/dashboard-connection/retry',
  async ({ principal, params }) => ok(await retryDashboardConnection(tenancy, principal, params.tenant_id)),
);
