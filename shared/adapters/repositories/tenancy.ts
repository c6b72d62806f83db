/** Tenants, their object stores (and which data sets have their tables in one) and dashboard connections. (Queuing dashboard provisioning: sqs/dashboard-queue.ts.) */
import { config } from '../../config.ts';
import * as dashboard from '../dynamo/dashboard-connections.ts';
import { dataSetsInStore } from '../dynamo/data-sets.ts';
import * as objectStores from '../dynamo/object-stores.ts';
import * as tenants from '../dynamo/tenants.ts';
import { secretBox } from '../secret-box.ts';

export const tenancy = {
  ...tenants,
  ...objectStores,
  ...dashboard,
  dataSetsInStore,
  secrets: secretBox,
  allowedStoreEndpoints: config.allowedStoreEndpoints,
  tenantBuckets: config.tenantBuckets,
};
