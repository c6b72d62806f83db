/**
 * The adapters, grouped the way the use cases ask for them. Handlers pass these to use cases;
 * unit tests pass in-memory implementations of the same ports instead.
 */
import * as apiKeys from './dynamo/api-keys.ts';
import * as dashboard from './dynamo/dashboard-connections.ts';
import * as objectStores from './dynamo/object-stores.ts';
import * as tenants from './dynamo/tenants.ts';
import * as users from './dynamo/users.ts';
import { secretBox } from './secret-box.ts';
import { requestDashboardProvisioning } from './sqs/dashboard-queue.ts';

export const identity = { ...users, ...apiKeys, getTenant: tenants.getTenant };

export const tenancy = {
  ...tenants,
  ...objectStores,
  ...dashboard,
  requestDashboardProvisioning,
  secrets: secretBox,
};
