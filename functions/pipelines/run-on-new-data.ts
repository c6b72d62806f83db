/**
 * Runs on new data: every minute, each pipeline with on_new_data whose source committed rows
 * since its checkpoint gets a run (one at a time). Only sources marked by a commit are read.
 */
import { getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { jobs } from '#shared/adapters/dynamo/jobs.ts';
import { getDeployedVersion, getPipeline, recordAutomaticRun } from '#shared/adapters/dynamo/pipelines.ts';
import { sourceWatch } from '#shared/adapters/dynamo/source-watches.ts';
import { getTenant } from '#shared/adapters/dynamo/tenants.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { type NewDataDeps, startRunsOnNewData } from '#shared/domain/pipelines/on-new-data.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

const deps = {
  ...sourceWatch,
  getPipeline,
  getDeployedVersion,
  recordAutomaticRun,
  getJob: jobs.getJob,
  createJob: jobs.createJob,
  moveJob: jobs.moveJob,
  dispatchJob,
  getDataSet,
  getTenant,
  warn: (message, fields) => logger.warn(message, fields),
} satisfies NewDataDeps;

export const handler = scheduledHandler(async () => {
  const queued = await startRunsOnNewData(deps);
  if (queued > 0) logger.info('Queued pipeline runs on new data', { queued });
});
