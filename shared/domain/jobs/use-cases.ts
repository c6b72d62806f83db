import { randomUUID } from 'node:crypto';
import { conflict, invalid, notFound, refused } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { QuerySpecification } from '../pipelines/definition.ts';
import type { Pipeline } from '../pipelines/model.ts';
import { type PipelineDeps, requireRunnable, requireSourceInTenant, visiblePipeline } from '../pipelines/use-cases.ts';
import { effectiveTenantId, type Principal, requireTenantVisible } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import { finishedStatuses, type Job, type JobStatus, type JobType } from './model.ts';

export interface JobFilters {
  jobType?: JobType | undefined;
  status?: JobStatus | undefined;
}

export interface JobRepository {
  createJob(job: Job): Promise<void>;
  getJob(jobId: string): Promise<Job | null>;
  listJobsByTenant(tenantId: string, filters: JobFilters, page: PageRequest): Promise<Page<Job>>;
  listAllJobs(filters: JobFilters, page: PageRequest): Promise<Page<Job>>;
  /** Applies the change only while the job's status is one of `from`; null when it was not. */
  moveJob(jobId: string, from: readonly JobStatus[], changes: Partial<Job>, now: Date): Promise<Job | null>;
  /** Marks a Running job for cancellation unless its runner already began committing; null otherwise. */
  requestCancel(jobId: string, now: Date): Promise<Job | null>;
  /** Marks a Running job as committing unless a cancel was requested; false otherwise. */
  beginCommit(jobId: string, now: Date): Promise<boolean>;
}

export interface JobQueue {
  dispatchJob(jobId: string, delaySeconds?: number): Promise<void>;
}

export interface JobResults {
  getResult(jobId: string): Promise<unknown | null>;
}

type Records = PipelineDeps & JobRepository;
type Deps = Records & JobQueue;

/** Query jobs return at most this many rows (default 1000). */
export const maxQueryRows = 10_000;

function newJob(
  input: Pick<Job, 'tenant_id' | 'job_type' | 'payload' | 'source'> & { partition_key?: string },
  now: Date,
): Job {
  const jobId = randomUUID();
  const at = now.toISOString();
  return {
    job_id: jobId,
    tenant_id: input.tenant_id,
    job_type: input.job_type,
    status: 'Queued',
    partition_key: input.partition_key ?? jobId,
    payload: input.payload,
    source: input.source,
    runner_id: null,
    error_message: null,
    rows_in: null,
    rows_out: null,
    rows_rejected: null,
    rows_filtered: null,
    rejection_samples: [],
    cancel_requested_at: null,
    committing_at: null,
    created_at: at,
    dispatched_at: null,
    started_at: null,
    completed_at: null,
    cancelled_at: null,
    updated_at: at,
  };
}

/** What a trigger may ask: parameters kept with the job, and a range of days to re-run. */
export interface TriggerRequest {
  parameters?: unknown;
  /** The first day to re-run (YYYY-MM-DD, UTC, the source's dt), with `to`. */
  from?: string | undefined;
  /** The last day to re-run, inclusive. */
  to?: string | undefined;
}

/** Days of a pipeline's output a re-run replaces, inclusive. */
export interface DayRange {
  from: string;
  to: string;
}

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
  deps: Deps,
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
export interface PipelineJobPayload {
  parameters: unknown;
  /** `api`: a trigger or POST /api/jobs; `on_new_data`: new rows in the source. */
  trigger: 'api' | 'on_new_data';
  /** A re-run: the output's rows of these days are replaced (absent: a run of the rows not read yet). */
  range?: DayRange;
}

/**
 * A run of a pipeline that new rows in its source started (no principal: the platform runs it).
 * Like a trigger's, it runs the deployed version and shares the pipeline's partition key.
 */
export async function queueAutomaticRun(
  deps: Pick<Deps, 'createJob' | 'dispatchJob' | 'moveJob'>,
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

/** A data set's maintenance runs share a partition key: they never overlap. */
export const optimizePartitionKey = (dataSetId: string) => `optimize:${dataSetId}`;

/** What an Optimize job carries: its data set, and the fewest small files that make a partition worth compacting. */
export interface OptimizePayload {
  data_set_id: string;
  /** null: the table's `tributary.optimize.minFiles` (scheduled runs); 2 when asked for through the API. */
  min_files: number | null;
  trigger: 'api' | 'schedule';
}

/**
 * Start a maintenance run of a data set's table (compaction, vacuum, log clean-up).
 * Input: the data set. Output: the Queued job (type Optimize).
 *  1. The data set must be visible (404) and its tenant writable (422 when suspended).
 *  2. Every partition with two or more small files is compacted (the schedule waits for more).
 */
export async function startOptimize(
  deps: Deps,
  principal: Principal,
  dataSetId: string,
  now = new Date(),
): Promise<Job> {
  const dataSet = await deps.getDataSet(dataSetId);
  if (!dataSet) throw notFound('Data set');
  requireTenantVisible(principal, dataSet.tenant_id, 'Data set');
  await tenantFor(deps, principal, dataSet.tenant_id, 'write');
  const payload: OptimizePayload = { data_set_id: dataSetId, min_files: 2, trigger: 'api' };
  const job = newJob(
    {
      tenant_id: dataSet.tenant_id,
      job_type: 'Optimize',
      partition_key: optimizePartitionKey(dataSetId),
      payload,
      source: { data_set_id: dataSetId },
    },
    now,
  );
  await enqueue(deps, job, now);
  return job;
}

/**
 * A maintenance run the schedule asks for (no principal: the platform maintains its tables).
 * Only the schedule run that takes the due table queues a job; null when another took it.
 */
export async function scheduleOptimize(
  deps: Pick<Deps, 'createJob' | 'dispatchJob' | 'moveJob'> & {
    takeMaintenance(dataSetId: string, jobId: string): Promise<boolean>;
  },
  due: { dataSetId: string; tenantId: string },
  now = new Date(),
): Promise<Job | null> {
  const payload: OptimizePayload = { data_set_id: due.dataSetId, min_files: null, trigger: 'schedule' };
  const job = newJob(
    {
      tenant_id: due.tenantId,
      job_type: 'Optimize',
      partition_key: optimizePartitionKey(due.dataSetId),
      payload,
      source: { data_set_id: due.dataSetId },
    },
    now,
  );
  if (!(await deps.takeMaintenance(due.dataSetId, job.job_id))) return null;
  await enqueue(deps, job, now);
  return job;
}

/** What a Delete job carries: the data set it removes. */
export interface DeletePayload {
  data_set_id: string;
}

/**
 * Queue the deletion of a data set too large to delete within a request (the caller has checked
 * that it may be deleted). Its partition key is the table's maintenance one: a deletion never runs
 * beside a compaction of the same table.
 */
export async function queueDataSetDeletion(
  deps: Pick<Deps, 'createJob' | 'dispatchJob' | 'moveJob'>,
  dataSet: { data_set_id: string; tenant_id: string },
  now = new Date(),
): Promise<Job> {
  const payload: DeletePayload = { data_set_id: dataSet.data_set_id };
  const job = newJob(
    {
      tenant_id: dataSet.tenant_id,
      job_type: 'Delete',
      partition_key: optimizePartitionKey(dataSet.data_set_id),
      payload,
      source: { data_set_id: dataSet.data_set_id },
    },
    now,
  );
  await enqueue(deps, job, now);
  return job;
}

/** A job that cannot be put on the queue must not wait there forever: it fails, saying why. */
async function enqueue(deps: Pick<Deps, 'createJob' | 'dispatchJob' | 'moveJob'>, job: Job, now: Date): Promise<void> {
  await deps.createJob(job);
  try {
    await deps.dispatchJob(job.job_id);
  } catch (error) {
    await deps.moveJob(
      job.job_id,
      ['Queued'],
      { status: 'Failed', error_message: 'The job could not be queued', completed_at: now.toISOString() },
      now,
    );
    throw error;
  }
}

/** A query over a data set: the pipeline decoding, without writing a table; the rows are the job's result. */
export async function startQuery(
  deps: Deps,
  principal: Principal,
  input: { tenant_id?: string | undefined; query: QuerySpecification; limit?: number | undefined },
  now = new Date(),
): Promise<Job> {
  const tenantId = effectiveTenantId(principal, input.tenant_id);
  if (!tenantId) throw invalid('A query runs in a tenant', [{ path: 'tenant_id', message: 'Required' }]);
  await tenantFor(deps, principal, tenantId, 'write');
  await requireSourceInTenant(deps, input.query, tenantId, 'query');
  const job = newJob(
    {
      tenant_id: tenantId,
      job_type: 'Query',
      payload: { query: input.query, limit: input.limit ?? 1000 },
      source: { data_set_id: input.query.source.data_set_id },
    },
    now,
  );
  await enqueue(deps, job, now);
  return job;
}

export async function visibleJob(deps: Pick<Deps, 'getJob'>, principal: Principal, jobId: string): Promise<Job> {
  const job = await deps.getJob(jobId);
  if (!job) throw notFound('Job');
  requireTenantVisible(principal, job.tenant_id, 'Job');
  return job;
}

export async function listJobs(
  deps: Records,
  principal: Principal,
  query: {
    tenant_id?: string | undefined;
    job_type?: JobType | undefined;
    status?: JobStatus | undefined;
  } & PageRequest,
): Promise<Page<Job>> {
  const tenantId = effectiveTenantId(principal, query.tenant_id);
  const filters = { jobType: query.job_type, status: query.status };
  return tenantId ? deps.listJobsByTenant(tenantId, filters, query) : deps.listAllJobs(filters, query);
}

/**
 * Cancel a job.
 *  - Queued or Dispatched: Cancelled at once.
 *  - Running: the runner is asked to stop; it does so before its commit, and the job becomes
 *    Cancelled. Once the runner has begun committing, it is too late: 422.
 *  - Finished: 422 JOB_NOT_CANCELLABLE.
 * Cancelling only stops work, so it is allowed during a tenant suspension.
 */
export async function cancelJob(deps: Records, principal: Principal, jobId: string, now = new Date()): Promise<void> {
  const job = await visibleJob(deps, principal, jobId);
  await tenantFor(deps, principal, job.tenant_id, 'restrict');
  const at = now.toISOString();
  if (
    await deps.moveJob(
      jobId,
      ['Queued', 'Dispatched'],
      { status: 'Cancelled', cancelled_at: at, completed_at: at },
      now,
    )
  )
    return;
  if (await deps.requestCancel(jobId, now)) return;
  const current = await deps.getJob(jobId);
  if (current && !finishedStatuses.includes(current.status) && current.cancel_requested_at) return;
  throw refused('JOB_NOT_CANCELLABLE', `The job is ${current?.status ?? job.status} and can no longer be cancelled`);
}

/** A page of a query's result: at most this many rows (the contract's list conventions)… */
export const resultPageRows = 1000;
/** …and at most about this much JSON, far below Lambda's 6 MB answer (the next page has the rest). */
export const resultPageBytes = 4 * 1024 * 1024;
/** A single cell larger than this is answered as null and counted in `omitted_cells` (its row could not fit a page). */
export const resultCellBytes = 1024 * 1024;

interface StoredResult {
  columns: { name: string; type: string }[];
  rows: (string | number | boolean | null)[][];
  truncated: boolean;
}

/**
 * A query job's result, a page at a time.
 * Input: the job, a page request. Output: the columns, the page's rows, whether the query stopped at its
 * limit (`truncated`), the cursor to the next page, and the cells left out for size.
 *  1. The job must be visible, a query, and have succeeded (404 / 409).
 *  2. A page holds at most `limit` rows and about 4 MiB of JSON: an answer never nears Lambda's 6 MB,
 *     whatever the rows hold. A cell over 1 MiB is answered as null and counted in `omitted_cells`.
 */
export async function queryResult(
  deps: Pick<Deps, 'getJob'> &
    JobResults & { cursors: { seal(position: unknown): Promise<string>; open(cursor: string): Promise<unknown> } },
  principal: Principal,
  jobId: string,
  page: PageRequest = { limit: resultPageRows },
) {
  const job = await visibleJob(deps, principal, jobId);
  if (job.job_type !== 'Query') throw notFound('Job result');
  if (job.status !== 'Succeeded') throw conflict(`The query is ${job.status}; its result exists once it has succeeded`);
  let offset = 0;
  if (page.cursor) {
    const position = await deps.cursors.open(page.cursor);
    if (!Number.isInteger(position) || (position as number) < 0)
      throw invalid('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this list' }]);
    offset = position as number;
  }
  const result = (await deps.getResult(jobId)) as StoredResult | null;
  if (!result) throw notFound('Job result');
  const rows: StoredResult['rows'] = [];
  let bytes = Buffer.byteLength(JSON.stringify(result.columns));
  let omitted = 0;
  let next = offset;
  for (; next < result.rows.length && rows.length < page.limit; next++) {
    let cut = 0;
    const row = (result.rows[next] ?? []).map((cell) => {
      if (typeof cell === 'string' && Buffer.byteLength(cell) > resultCellBytes) {
        cut++;
        return null;
      }
      return cell;
    });
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (rows.length > 0 && bytes + size > resultPageBytes) break;
    rows.push(row);
    bytes += size;
    omitted += cut;
  }
  return {
    columns: result.columns,
    rows,
    truncated: result.truncated,
    omitted_cells: omitted,
    next_cursor: next < result.rows.length ? await deps.cursors.seal(next) : null,
  };
}
