/**
 * Runs of a pipeline: started by a trigger (or POST /api/jobs), a re-run of a range of days, or new
 * rows in its source.
 */
import * as z from 'zod';
import { conflict, invalid } from '../errors.ts';
import type { Job } from '../jobs/model.ts';
import { enqueue, newJob, type QueueDeps } from '../jobs/new-job.ts';
import type { JobQueue, JobRepository } from '../jobs/ports.ts';
import type { Principal } from '../principal.ts';
import type { Pipeline } from './model.ts';
import { type PipelineDeps, requireRunnable, visiblePipeline } from './use-cases.ts';

/** What a trigger may ask: parameters kept with the job, and a range of days to re-run. */
export interface TriggerRequest {
  parameters?: unknown;
  /** The first day to re-run (YYYY-MM-DD, UTC, the source's dt), with `to`. */
  from?: string | undefined;
  /** The last day to re-run, inclusive. */
  to?: string | undefined;
}

/** Days of a pipeline's output a re-run replaces, inclusive. */
export const dayRange = z.object({ from: z.string(), to: z.string() });
export type DayRange = z.infer<typeof dayRange>;

/** A ranged re-run rebuilds at most this many days: one commit holds them all (and at most maxRowsPerRun rows). */
export const maxRerunDays = 31;

/** A real calendar day: 2026-02-30 or a month 13 is none (an invalid date must not reach toISOString, which throws). */
const isDate = (day: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const time = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(day);
};

/** The range a trigger asks to re-run, checked (400): both days or neither, real dates, from ≤ to, at most maxRerunDays. */
function rerunRange(request: TriggerRequest | null): DayRange | null {
  const { from, to } = request ?? {};
  if (from === undefined && to === undefined) return null;
  const issues: { path: string; message: string }[] = [];
  for (const [path, day, other] of [
    ['from', from, 'to'],
    ['to', to, 'from'],
  ] as const) {
    if (day === undefined)
      issues.push({ path, message: `Required with ${other}: a re-run names its first and last day` });
    else if (!isDate(day)) issues.push({ path, message: 'Not a date (YYYY-MM-DD)' });
  }
  if (issues.length === 0 && (from as string) > (to as string))
    issues.push({ path: 'from', message: 'After to: the range is empty' });
  const days = issues.length === 0 ? (Date.parse(to as string) - Date.parse(from as string)) / 86_400_000 + 1 : 0;
  if (days > maxRerunDays)
    issues.push({ path: 'to', message: `The range holds ${days} days; at most ${maxRerunDays} are re-run at once` });
  if (issues.length > 0) throw invalid('Invalid range of days to re-run', issues);
  return { from: from as string, to: to as string };
}

/**
 * Start a pipeline run, or a re-run of a range of days.
 * Input: the pipeline; optional parameters, and optionally `from`/`to` days. Output: the Queued job.
 *  1. The pipeline must be visible, its tenant writable, the pipeline Active and deployed (422 otherwise).
 *  2. A range must be two real days, in order, at most maxRerunDays apart (400); a re-run rebuilds
 *     what runs have read, so the pipeline must have run before (409).
 *  3. The job runs the deployed snapshot as it is now, even if the working copy changes later.
 *  4. Its partition key is the pipeline: runs of one pipeline, re-runs included, never overlap.
 */
export async function triggerPipeline(
  deps: PipelineDeps & JobRepository & JobQueue,
  principal: Principal,
  pipelineId: string,
  request: TriggerRequest | null,
  now = new Date(),
): Promise<Job> {
  const range = rerunRange(request);
  const pipeline = await visiblePipeline(deps, principal, pipelineId, 'write');
  requireRunnable(pipeline);
  if (range && !pipeline.checkpoint)
    throw conflict(
      'The pipeline has not run yet: a re-run rebuilds days from what its runs have read; trigger a run first',
    );
  const payload: PipelineJobPayload = {
    parameters: request?.parameters ?? null,
    trigger: 'api',
    ...(range ? { range } : {}),
  };
  const job = newJob(
    {
      tenant_id: pipeline.tenant_id,
      job_type: 'Pipeline',
      partition_key: pipeline.pipeline_id,
      payload,
      source: { pipeline_id: pipeline.pipeline_id, pipeline_version: pipeline.deployed_version },
    },
    now,
  );
  await enqueue(deps, job, now);
  return job;
}

/** What a pipeline job carries: the trigger's parameters, what started it, and the days it re-runs. */
export const pipelineJobPayload = z
  .object({
    parameters: z.unknown(),
    /** `api`: a trigger or POST /api/jobs; `on_new_data`: new rows in the source. */
    trigger: z.enum(['api', 'on_new_data']),
    /** A re-run: the output's rows of these days are replaced (absent: a run of the rows not read yet). */
    range: dayRange.optional(),
  })
  .nullable();
export type PipelineJobPayload = NonNullable<z.infer<typeof pipelineJobPayload>>;

/** Which pipeline, and which of its deployed versions, a pipeline job runs. */
export const pipelineJobSource = z.object({ pipeline_id: z.string(), pipeline_version: z.number().int() });

/**
 * A run of a pipeline that new rows in its source started (no principal: the platform runs it).
 * Like a trigger's, it runs the deployed version and shares the pipeline's partition key.
 */
export async function queueAutomaticRun(
  deps: QueueDeps,
  pipeline: Pick<Pipeline, 'pipeline_id' | 'tenant_id' | 'deployed_version'>,
  jobId: string,
  now = new Date(),
): Promise<Job> {
  const payload: PipelineJobPayload = { parameters: null, trigger: 'on_new_data' };
  const job = {
    ...newJob(
      {
        tenant_id: pipeline.tenant_id,
        job_type: 'Pipeline',
        partition_key: pipeline.pipeline_id,
        payload,
        source: { pipeline_id: pipeline.pipeline_id, pipeline_version: pipeline.deployed_version },
      },
      now,
    ),
    job_id: jobId,
  };
  await enqueue(deps, job, now);
  return job;
}
