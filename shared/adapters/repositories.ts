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
import { jobs, leases } from './dynamo/jobs.ts';
import * as objectStores from './dynamo/object-stores.ts';
import * as pipelines from './dynamo/pipelines.ts';
import * as tenants from './dynamo/tenants.ts';
import * as users from './dynamo/users.ts';
import { wiki } from './dynamo/wiki.ts';
import * as jobResults from './s3/job-results.ts';
import { secretBox } from './secret-box.ts';
import { requestDashboardProvisioning } from './sqs/dashboard-queue.ts';
import { dispatchJob } from './sqs/jobs-queue.ts';
import { tableFiles } from './table-storage.ts';

export const identity = { ...users, ...apiKeys, getTenant: tenants.getTenant };

export const tenancy = {
  ...tenants,
  ...objectStores,
  ...dashboard,
  requestDashboardProvisioning,
  secrets: secretBox,
};

export const connectivity = { ...connections, getTenant: tenants.getTenant, secrets: secretBox };

export const dataSetStore: DataSetDeps = {
  ...dataSets,
  getTenant: tenants.getTenant,
  async hasWriter(dataSet: DataSet) {
    if (dataSet.origin.type === 'Webhook')
      return (await connections.getConnection(dataSet.origin.connection_id)) !== null;
    return (await pipelines.getPipeline(dataSet.origin.pipeline_id)) !== null;
  },
  logEntries: (dataSetId) => deltaLog.allEntries(dataSetId),
  filesOf: tableFiles,
  deleteLog: deleteTableLog,
};

export const pipelineStore = {
  ...pipelines,
  ...jobs,
  ...jobResults,
  dispatchJob,
  getTenant: tenants.getTenant,
  getDataSet: dataSets.getDataSet,
};

export const runnerStore = { ...jobs, ...leases, dispatchJob };

export const wikiStore = { ...wiki, getTenant: tenants.getTenant };
