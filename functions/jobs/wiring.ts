/**
 * The job runner's dependencies, built in one place: each job type's work with the adapters it
 * needs. A data set's table is opened once per run (shared/adapters/table-storage.ts).
 */
import { asServiceErrors } from '#shared/adapters/delta-errors.ts';
import { writableTable } from '#shared/adapters/delta-tables.ts';
import { createDataSet, getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { allFailedDeliveries } from '#shared/adapters/dynamo/deliveries.ts';
import { getDeployedVersion, getPipeline, saveProgress } from '#shared/adapters/dynamo/pipelines.ts';
import { finishMaintenance, markMaintenanceDue } from '#shared/adapters/dynamo/table-maintenance.ts';
import { icebergSyncDeps } from '#shared/adapters/iceberg-tables.ts';
import { dataSetFileStore, forgetDeliveries } from '#shared/adapters/repositories/data-set-files.ts';
import { pipelineSources as source } from '#shared/adapters/repositories/pipeline-sources.ts';
import { runnerStore } from '#shared/adapters/repositories/runner.ts';
import { putResult } from '#shared/adapters/s3/job-results.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { fixStorage, tableMetadataOf } from '#shared/adapters/table-storage.ts';
import { config, setting } from '#shared/config.ts';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import { recordVersionFound } from '#shared/domain/datasets/storage.ts';
import { deletePayload, optimizePayload } from '#shared/domain/jobs/maintenance-jobs.ts';
import type { JobType } from '#shared/domain/jobs/model.ts';
import { runDelete } from '#shared/domain/jobs/run-delete.ts';
import { type JobKind, jobKind, type RunnerDeps, workOfKinds } from '#shared/domain/jobs/run-job.ts';
import { type MaintenanceOutcome, type OptimizeDeps, runOptimize } from '#shared/domain/jobs/run-optimize.ts';
import { pipelineJobPayload } from '#shared/domain/pipelines/pipeline-runs.ts';
import { queryJobPayload } from '#shared/domain/pipelines/queries.ts';
import { type PipelineRunDeps, runPipeline, runQuery } from '#shared/domain/pipelines/run-pipeline.ts';
import { logger } from '#shared/observability/logger.ts';

/** Where the writers of a job ask for a table's maintenance run, and keep its Iceberg metadata in step. */
const maintenanceRequests = {
  markMaintenanceDue: (dataSet: DataSet, at: Date) => markMaintenanceDue(dataSet.data_set_id, dataSet.tenant_id, at),
  warn: (message: string, fields: Record<string, unknown>) => logger.warn(message, fields),
  iceberg: icebergSyncDeps,
};

/** One maintenance run of a data set's table, opened once; a table not written yet has none. */
async function maintainDataSet(
  dataSet: DataSet,
  minFiles: number | undefined,
  control: Parameters<OptimizeDeps['maintain']>[2],
): Promise<MaintenanceOutcome | null> {
  if (!dataSet.storage_location || !dataSet.object_store_id) return null;
  return asServiceErrors(async () => {
    const table = await writableTable(dataSet);
    return table.maintain(minFiles === undefined ? {} : { minFiles }, control);
  });
}

const optimizeDeps: OptimizeDeps = {
  getDataSet,
  maintain: maintainDataSet,
  failedDeliveries: {
    allFailedDeliveries,
    forgetExpired: forgetDeliveries,
  },
  defaultRetentionMs: config.dataRetentionMs(),
  ...maintenanceRequests,
  finish: (dataSet, next, startedAt) => finishMaintenance(dataSet.data_set_id, dataSet.tenant_id, next, startedAt),
};

/** A pipeline's rows appended to its output table, opened once (its store fixed at its first write). */
export async function appendRows(
  output: DataSet,
  ...request: Parameters<PipelineRunDeps['appendRows']> extends [DataSet, ...infer R] ? R : never
): ReturnType<PipelineRunDeps['appendRows']> {
  return asServiceErrors(async () => {
    const fixed = await fixStorage(output);
    const table = await writableTable(fixed);
    const written = await table.appendRows(tableMetadataOf(fixed), ...request);
    // The run's txn found in the table already: its version may be one whose writer stopped before recording it.
    if (written.version === null) await recordVersionFound(table.opened, fixed.version);
    return written;
  });
}

/** A ranged re-run's rows replacing whole days of the pipeline's output table, opened once. */
async function replaceRows(
  output: DataSet,
  ...request: Parameters<PipelineRunDeps['replaceRows']> extends [DataSet, ...infer R] ? R : never
): ReturnType<PipelineRunDeps['replaceRows']> {
  return asServiceErrors(async () => {
    const fixed = await fixStorage(output);
    const table = await writableTable(fixed);
    const replaced = await table.replaceRows(tableMetadataOf(fixed), ...request);
    if (replaced.version === null) await recordVersionFound(table.opened, fixed.version);
    return replaced;
  });
}

const pipelineDeps: PipelineRunDeps = {
  ...source,
  ...maintenanceRequests,
  getPipeline,
  getDeployedVersion,
  createDataSet,
  saveProgress,
  appendRows,
  replaceRows,
};

/** Each job type: the schema its payload is read with as the job enters, and its work. */
const jobKinds: Record<JobType, JobKind<unknown>> = {
  Pipeline: jobKind(pipelineJobPayload, (job, control) => runPipeline(pipelineDeps, job, control)),
  Optimize: jobKind(optimizePayload, (job, control) => runOptimize(optimizeDeps, job, control)),
  Delete: jobKind(deletePayload, (job, control) => runDelete(dataSetFileStore, job, control)),
  Query: jobKind(queryJobPayload, async (job, control) => {
    const { result, ...outcome } = await runQuery(source, job, control);
    await control.beginCommit();
    await putResult(job.job_id, result);
    return outcome;
  }),
};

/** What a job's runner runs: its type's work, on its payload as the type's schema reads it. */
export const work = workOfKinds(jobKinds);

export const runnerDeps: RunnerDeps = {
  ...runnerStore,
  dispatchJob,
  leaseMs: setting('JOB_LEASE_SECONDS') * 1000,
  reportError: (jobId: string, error: unknown) => logger.error('Job failed', { job_id: jobId, error: error as Error }),
};
