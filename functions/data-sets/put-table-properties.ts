import { recordFreshnessTarget } from '#shared/adapters/dynamo/data-sets.ts';
import { leases, offers } from '#shared/adapters/dynamo/jobs.ts';
import { markMaintenanceDue } from '#shared/adapters/dynamo/table-maintenance.ts';
import { dataSetStore } from '#shared/adapters/repositories/data-sets.ts';
import { commitTriggers } from '#shared/adapters/sqs/commit-triggers.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { commitTableProperties, fixStorage } from '#shared/adapters/table-storage.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { config } from '#shared/config.ts';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import { setTableProperties } from '#shared/domain/datasets/table-properties.ts';
import { tablePropertyRules } from '#shared/domain/datasets/table-settings.ts';
import { freshnessKeptMs } from '#shared/domain/ingest/staging.ts';
import { holdTableWaiting } from '#shared/domain/jobs/maintenance-jobs.ts';
import { ok } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

const deps = {
  ...dataSetStore,
  commitProperties: commitTableProperties,
  rules: tablePropertyRules,
  fixStorage,
  recordFreshnessTarget,
  askCommitter: (dataSetId: string) =>
    commitTriggers.send([
      { tableId: dataSetId, at: Date.now() },
      { tableId: dataSetId, at: Date.now() + freshnessKeptMs + 1000 },
    ]),
  defaultFreshnessMs: config.tableFreshnessMs(),
  defaultDataRetentionMs: config.dataRetentionMs(),
  markMaintenanceDue: (dataSet: DataSet, at: Date) => markMaintenanceDue(dataSet.data_set_id, dataSet.tenant_id, at),
  holdTable: (dataSetId: string) => holdTableWaiting({ ...leases, ...offers, dispatchJob }, dataSetId),
};

export const handler = apiHandler(
  dataSetRoutes,
  'PUT /api/data-sets/{data_set_id}/table-properties',
  async ({ principal, params, body }) =>
    ok(await setTableProperties(deps, principal, params.data_set_id, body.properties)),
);
