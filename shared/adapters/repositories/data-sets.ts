/** Data sets: their records in DynamoDB and their Delta tables' files in the tenant's store. */
import type { DataSet } from '../../domain/datasets/model.ts';
import type { DataSetDeps } from '../../domain/datasets/use-cases.ts';
import { getConnection } from '../dynamo/connections.ts';
import * as dataSets from '../dynamo/data-sets.ts';
import { deleteTableLog, deltaLog } from '../dynamo/delta-log.ts';
import { getPipeline } from '../dynamo/pipelines.ts';
import { getTenant } from '../dynamo/tenants.ts';
import { tableFiles } from '../table-storage.ts';

export const dataSetStore: DataSetDeps = {
  ...dataSets,
  getTenant,
  async hasWriter(dataSet: DataSet) {
    if (dataSet.origin.type === 'Webhook') return (await getConnection(dataSet.origin.connection_id)) !== null;
    return (await getPipeline(dataSet.origin.pipeline_id)) !== null;
  },
  logEntries: (dataSetId) => deltaLog.allEntries(dataSetId),
  filesOf: tableFiles,
  deleteLog: deleteTableLog,
};
