/**
 * The adapters, grouped the way the use cases ask for them. Handlers pass these to use cases;
 * unit tests pass in-memory implementations of the same ports instead.
 */
import type { DataSet } from '../domain/datasets/model.ts';
import type { DataSetDeps } from '../domain/datasets/use-cases.ts';
import * as apiKeys from './dynamo/api-keys.ts';
import * as connections from './dynamo/connections.ts';
import * as dashboard from './dynamo/dashboard-connections.ts';
import * as dataSets from './dynamo/data-sets.ts';
import { deleteTableLog, deltaLog } from './dynamo/delta-log.ts';
import * as objectStores from './dynamo/object-stores.ts';
import * as tenants from './dynamo/tenants.ts';
import * as users from './dynamo/users.ts';
import { tableLocation } from './s3/tenant-stores.ts';
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

export const connectivity = { ...connections, getTenant: tenants.getTenant };

export const dataSetStore: DataSetDeps = {
  ...dataSets,
  getTenant: tenants.getTenant,
  async hasWriter(dataSet: DataSet) {
    if (dataSet.origin.type === 'Webhook')
      return (await connections.getConnection(dataSet.origin.connection_id)) !== null;
    return false;
  },
  logEntries: (dataSetId) => deltaLog.allEntries(dataSetId),
  async filesOf(dataSet) {
    const store = dataSet.object_store_id
      ? await objectStores.getObjectStore(dataSet.tenant_id, dataSet.object_store_id)
      : null;
    if (!store || !dataSet.storage_location) throw new Error(`Data set ${dataSet.data_set_id} has no storage yet`);
    return tableLocation(store, dataSet.storage_location);
  },
  deleteLog: deleteTableLog,
};
