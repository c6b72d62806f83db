/** Tenants, their object stores and dashboard connections. (Queuing dashboard provisioning: sqs/dashboard-queue.ts.) */
import { config } from '../../config.ts';
import * as dashboard from '../dynamo/dashboard-connections.ts';
import * as objectStores from '../dynamo/object-stores.ts';
import * as tenants from '../dynamo/tenants.ts';
import { secretBox } from '../secret-box.ts';

export const tenancy = {
  ...tenants,
  ...objectStores,
  ...dashboard,
  secrets: secretBox,
  allowedStoreEndpoints: config.allowedStoreEndpoints,
};
