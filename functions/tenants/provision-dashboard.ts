import * as z from 'zod';
import { dashboardToolFromEnv } from '#shared/adapters/dashboard-tool.ts';
import { tenancy } from '#shared/adapters/repositories/tenancy.ts';
import { requestDashboardProvisioning } from '#shared/adapters/sqs/dashboard-queue.ts';
import { provisionDashboard } from '#shared/domain/tenants/provision-dashboard.ts';
import { recordHandler } from '#shared/queue-handler.ts';

const dashboardTool = dashboardToolFromEnv();

export const handler = recordHandler(
  'dashboard provisioning',
  z.object({ tenant_id: z.uuid(), redeliver: z.boolean().optional() }),
  async (message) => {
    await provisionDashboard(
      { ...tenancy, dashboardTool, requestDashboardProvisioning },
      message.tenant_id,
      new Date(),
      message.redeliver === true,
    );
  },
);
