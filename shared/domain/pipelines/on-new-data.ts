import { randomUUID } from 'node:crypto';
import type { DataSet } from '../datasets/model.ts';
import { finishedStatuses, type Job } from '../jobs/model.ts';
import type { JobQueue, JobRepository } from '../jobs/ports.ts';
import type { Tenant } from '../tenants/model.ts';
import type { Pipeline, PipelineProgress } from './model.ts';
import { queueAutomaticRun } from './pipeline-runs.ts';
import type { PipelineRepository, SourceWatch } from './ports.ts';

export interface NewDataDeps
  extends SourceWatch,
    Pick<PipelineRepository, 'getPipeline' | 'getDeployedVersion' | 'recordAutomaticRun'>,
    Pick<JobRepository, 'getJob' | 'createJob' | 'moveJob'>,
    JobQueue {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  getTenant(tenantId: string): Promise<Tenant | null>;
  /** A watcher that could not be looked at: the others go on, and the schedule run fails at its end. */
  warn(message: string, fields: Record<string, unknown>): void;
}

/** What one watcher of a source needs now: nothing more (done), a run under way, a run queued, or another look. */
type Need = 'done' | 'running' | 'queued' | 'failed';

/**
 * Start the runs that new rows ask for (pipelines with on_new_data), from the schedule.
 * Input: none (the sources with new rows are marked by their commits). Output: runs queued.
 *  1. Read the marked sources only: nothing while every source is quiet.
 *  2. For each pipeline watching a source: a pipeline gone, redeployed without on_new_data or onto
 *     another source stops watching it; a Disabled one, or one of a suspended tenant, is left alone.
 *  3. A pipeline whose checkpoint has reached the source's version is done. One with an automatic
 *     run Queued or Running waits for it (one run at a time; that run reads every new row). One
 *     whose last automatic run for these rows failed or was cancelled is done until more rows come
 *     (or someone triggers it). Otherwise a run is queued, recorded first so that two schedule
 *     runs cannot both queue one.
 *  4. A source is settled once every watcher is done, unless a commit marked it meanwhile.
 * Runs stay exactly-once: each reads from the pipeline's checkpoint of source versions. A watcher
 * (or a source) that fails is warned of and holds up no other; its source stays marked, so the next
 * schedule run tries it again, and this one fails at its end with the count.
 */
export async function startRunsOnNewData(deps: NewDataDeps, now = new Date()): Promise<number> {
  let queued = 0;
  const failures: unknown[] = [];
  for (const { dataSetId, mark } of await deps.sourcesWithNewRows()) {
    try {
      const source = await deps.getDataSet(dataSetId);
      const needs: Need[] = [];
      for (const pipelineId of await deps.watchersOf(dataSetId)) {
        try {
          const need = await runIfNeeded(deps, pipelineId, source, dataSetId, now);
          if (need === 'queued') queued++;
          needs.push(need);
        } catch (error) {
          deps.warn('A pipeline watching new rows could not be looked at', {
            pipeline_id: pipelineId,
            data_set_id: dataSetId,
            error: error instanceof Error ? error.message : String(error),
          });
          failures.push(error);
          needs.push('failed');
        }
      }
      if (needs.every((need) => need === 'done')) await deps.settleNewRows(dataSetId, mark);
    } catch (error) {
      // One source failing (its mark stays, so the next schedule run tries again) holds up no other.
      deps.warn('A source with new rows could not be looked at', {
        data_set_id: dataSetId,
        error: error instanceof Error ? error.message : String(error),
      });
      failures.push(error);
    }
  }
  if (failures.length > 0) {
    throw new Error(`${failures.length} pipeline watcher(s) or source(s) failed (${queued} run(s) queued)`, {
      cause: failures[0],
    });
  }
  return queued;
}

async function runIfNeeded(
  deps: NewDataDeps,
  pipelineId: string,
  source: DataSet | null,
  dataSetId: string,
  now: Date,
): Promise<Need> {
  const pipeline = await deps.getPipeline(pipelineId);
  const deployed = pipeline?.deployed_version
    ? await deps.getDeployedVersion(pipelineId, pipeline.deployed_version)
    : null;
  if (
    !pipeline ||
    !source ||
    !deployed?.definition.on_new_data ||
    deployed.definition.source.data_set_id !== dataSetId
  ) {
    await deps.unwatch(dataSetId, pipelineId);
    return 'done';
  }
  if (pipeline.status !== 'Active' || (await deps.getTenant(pipeline.tenant_id))?.status !== 'Active') return 'done';
  const checkpoint = pipeline.checkpoint?.data_set_id === dataSetId ? pipeline.checkpoint.version : -1;
  const latest = source.version ?? -1;
  if (checkpoint >= latest) return 'done';

  const last = pipeline.automatic_run;
  const lastJob = last ? await deps.getJob(last.job_id) : null;
  if (lastJob && !finishedStatuses.includes(lastJob.status)) return 'running';
  const firstRead = pipeline.checkpoint?.data_set_id === dataSetId && pipeline.checkpoint.first_read !== undefined;
  if (last && lastJob && last.source_version >= latest && !goOn(lastJob, last, checkpoint, firstRead)) return 'done';
  return queueRun(deps, pipeline, latest, checkpoint, now);
}

/**
 * After the last automatic run for these rows: go on when it succeeded and moved the checkpoint
 * but stopped short (its bound of rows per run; a first read of the source's snapshot moves it only
 * at its end, and each run of it reads at least a file), or when it never started (it could not be
 * queued). A run that failed or was cancelled is not repeated for the same rows.
 */
function goOn(
  job: Job,
  run: NonNullable<PipelineProgress['automatic_run']>,
  checkpoint: number,
  firstRead: boolean,
): boolean {
  if (job.status === 'Succeeded') return checkpoint > run.after || firstRead;
  return job.status === 'Failed' && job.started_at === null;
}

async function queueRun(
  deps: NewDataDeps,
  pipeline: Pipeline & PipelineProgress,
  sourceVersion: number,
  checkpoint: number,
  now: Date,
): Promise<Need> {
  const jobId = randomUUID();
  const recorded = await deps.recordAutomaticRun(pipeline.pipeline_id, pipeline.automatic_run?.job_id ?? null, {
    job_id: jobId,
    source_version: sourceVersion,
    after: checkpoint,
  });
  // Another schedule run queued one first: that run covers these rows.
  if (!recorded) return 'running';
  await queueAutomaticRun(deps, pipeline, jobId, now);
  return 'queued';
}
