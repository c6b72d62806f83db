/** Tenants, their object stores and dashboard connections. */
import * as dashboard from '../dynamo/dashboard-connections.ts';
import * as objectStores from '../dynamo/object-stores.ts';
import * as tenants from '../dynamo/tenants.ts';
import { secretBox } from '../secret-box.ts';
import { requestDashboardProvisioning } from '../sqs/dashboard-queue.ts';

export const tenancy = {
  ...tenants,
  ...objectStores,
  ...dashboard,
  requestDashboardProvisioning,
  secrets: secretBox,
};
