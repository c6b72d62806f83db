/** Data sets: their records and logs in DynamoDB. (Their files in the tenant's store: data-set-files.ts.) */
import type { DataSet } from '../../domain/datasets/model.ts';
import type { DataSetRecords } from '../../domain/datasets/use-cases.ts';
import { getConnection } from '../dynamo/connections.ts';
import * as dataSets from '../dynamo/data-sets.ts';
import { deleteTableLog } from '../dynamo/delta-log.ts';
import { leases } from '../dynamo/jobs.ts';
import { getPipeline } from '../dynamo/pipelines.ts';
import { getTenant } from '../dynamo/tenants.ts';

export const dataSetStore: DataSetRecords = {
  ...dataSets,
  getTenant,
  async hasWriter(dataSet: DataSet) {
    if (dataSet.origin.type === 'Webhook') return (await getConnection(dataSet.origin.connection_id)) !== null;
    return (await getPipeline(dataSet.origin.pipeline_id)) !== null;
  },
  async pipelineRunUnderWay(pipelineId: string) {
    // A pipeline's runs hold the lease of its partition (its id); one a stopped runner left lapses.
    const holder = await leases.leaseHolder(pipelineId);
    return holder !== null && holder.expiresAt.getTime() > Date.now();
  },
  deleteLog: deleteTableLog,
};
