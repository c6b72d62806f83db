/**
 * The job runner: the jobs queue's consumer. One job per invocation; pipeline runs write Delta
 * tables, queries leave their rows in the platform bucket, Optimize jobs maintain a table, Delete
 * jobs remove a data set too large to delete within a request.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { appendRows, maintainDataSet, replaceRows } from '#shared/adapters/delta-tables.ts';
import { createDataSet, getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { allFailedDeliveries, removeFailedDeliveries } from '#shared/adapters/dynamo/deliveries.ts';
import { getDeployedVersion, getPipeline, saveProgress } from '#shared/adapters/dynamo/pipelines.ts';
import { finishMaintenance, markMaintenanceDue } from '#shared/adapters/dynamo/table-maintenance.ts';
import { icebergSyncDeps } from '#shared/adapters/iceberg-tables.ts';
import { dataSetFileStore } from '#shared/adapters/repositories/data-set-files.ts';
import { pipelineSources as source } from '#shared/adapters/repositories/pipeline-sources.ts';
import { runnerStore } from '#shared/adapters/repositories/runner.ts';
import { deleteDeadLetters } from '#shared/adapters/s3/dead-letters.ts';
import { putResult } from '#shared/adapters/s3/job-results.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { config, intEnv } from '#shared/config.ts';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import type { JobType } from '#shared/domain/jobs/model.ts';
import { runDelete } from '#shared/domain/jobs/run-delete.ts';
import { type JobWork, runJob } from '#shared/domain/jobs/run-job.ts';
import { runOptimize } from '#shared/domain/jobs/run-optimize.ts';
import { runPipeline, runQuery } from '#shared/domain/pipelines/run-pipeline.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordHandler } from '#shared/queue-handler.ts';

/** Where the writers of a job ask for a table's maintenance run, and keep its Iceberg metadata in step. */
const maintenanceRequests = {
  markMaintenanceDue: (dataSet: DataSet, at: Date) => markMaintenanceDue(dataSet.data_set_id, dataSet.tenant_id, at),
  warn: (message: string, fields: Record<string, unknown>) => logger.warn(message, fields),
  iceberg: icebergSyncDeps,
};

/** Each job type's work; each reads its job's payload with the schema its type declares. */
const workByType: Record<JobType, JobWork> = {
  Pipeline: (job, control) =>
    runPipeline(
      {
        ...source,
        ...maintenanceRequests,
        getPipeline,
        getDeployedVersion,
        createDataSet,
        saveProgress,
        appendRows,
        replaceRows,
      },
      job,
      control,
    ),
  Optimize: (job, control) =>
    runOptimize(
      {
        getDataSet,
        maintain: (dataSet, minFiles, runControl) =>
          maintainDataSet(dataSet, minFiles === undefined ? {} : { minFiles }, runControl),
        failedDeliveries: {
          allFailedDeliveries,
          async forgetExpired(failed) {
            await deleteDeadLetters(failed.map((one) => one.body_key));
            await removeFailedDeliveries(failed);
          },
        },
        defaultRetentionMs: config.dataRetentionMs(),
        ...maintenanceRequests,
        finish: (dataSet, next, startedAt) =>
          finishMaintenance(dataSet.data_set_id, dataSet.tenant_id, next, startedAt),
      },
      job,
      control,
    ),
  Delete: (job, control) => runDelete(dataSetFileStore, job, control),
  Query: async (job, control) => {
    const { result, ...outcome } = await runQuery(source, job, control);
    await control.beginCommit();
    await putResult(job.job_id, result);
    return outcome;
  },
};

const deps = {
  ...runnerStore,
  dispatchJob,
  leaseMs: intEnv('JOB_LEASE_SECONDS', 60) * 1000,
  reportError: (jobId: string, error: unknown) => logger.error('Job failed', { job_id: jobId, error: error as Error }),
};

export const handler = recordHandler('job', z.object({ job_id: z.uuid() }), async (message) => {
  const outcome = await runJob(deps, message.job_id, randomUUID(), (job, control) =>
    workByType[job.job_type](job, control),
  );
  logger.info('job', { job_id: message.job_id, outcome });
});
