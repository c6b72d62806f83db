/** Pipelines and jobs: definitions and runs, dispatched onto the jobs queue. (Results: s3/job-results.ts.) */
import { getDataSet } from '../dynamo/data-sets.ts';
import { jobs } from '../dynamo/jobs.ts';
import * as pipelines from '../dynamo/pipelines.ts';
import { getTenant } from '../dynamo/tenants.ts';
import { dispatchJob } from '../sqs/jobs-queue.ts';

export const pipelineStore = {
  ...pipelines,
  ...jobs,
  dispatchJob,
  getTenant,
  getDataSet,
};
