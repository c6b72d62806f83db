/** Pipelines and jobs: definitions and runs. (Dispatch: sqs/jobs-queue.ts; results: s3/job-results.ts.) */
import { getDataSet } from '../dynamo/data-sets.ts';
import { jobs } from '../dynamo/jobs.ts';
import * as pipelines from '../dynamo/pipelines.ts';
import { getTenant } from '../dynamo/tenants.ts';

export const pipelineStore = {
  ...pipelines,
  ...jobs,
  getTenant,
  getDataSet,
};
