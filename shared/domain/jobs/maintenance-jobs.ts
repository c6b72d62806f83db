/**
 * Jobs on a data set's table: maintenance runs (compaction, vacuum, log clean-up), asked for through
 * the API or by the schedule, and the deletion of a data set too large to delete within a request.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { DataSet } from '../datasets/model.ts';
import { notFound } from '../errors.ts';
import { type Principal, requireTenantVisible } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';
import type { Job } from './model.ts';
import { enqueue, newJob, type QueueDeps } from './new-job.ts';
import { type OfferDeps, offerAgain } from './offers.ts';
import type { LeaseStore } from './run-job.ts';

/** A data set's maintenance runs share a partition key: they never overlap. */
export const optimizePartitionKey = (dataSetId: string) => `optimize:${dataSetId}`;

/** What an Optimize job carries: its data set, and the fewest small files that make a partition worth compacting. */
export const optimizePayload = z.object({
  data_set_id: z.string(),
  /** null: the table's `tributary.optimize.minFiles` (scheduled runs); 2 when asked for through the API. */
  min_files: z.number().int().positive().nullable(),
  trigger: z.enum(['api', 'schedule']),
});
export type OptimizePayload = z.infer<typeof optimizePayload>;

/**
 * Start a maintenance run of a data set's table (compaction, vacuum, log clean-up).
 * Input: the data set. Output: the Queued job (type Optimize).
 *  1. The data set must be visible (404) and its tenant writable (422 when suspended).
 *  2. Every partition with two or more small files is compacted (the schedule waits for more).
 */
export async function startOptimize(
  deps: QueueDeps & {
    getDataSet(dataSetId: string): Promise<DataSet | null>;
    getTenant(tenantId: string): Promise<Tenant | null>;
  },
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

/** When a maintenance run that failed, was cancelled or could not be queued is due again. */
export const maintenanceRetryMs = 3_600_000;

/**
 * A maintenance run the schedule asks for (no principal: the platform maintains its tables).
 * Only the schedule run that takes the due table queues a job; null when another took it.
 */
export async function scheduleOptimize(
  deps: QueueDeps & {
    takeMaintenance(dataSetId: string, jobId: string): Promise<boolean>;
    /** Due again at `at`, and free for a schedule run: the run could not be queued. */
    retryMaintenance(dataSetId: string, tenantId: string, at: Date, startedAt: Date): Promise<void>;
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
  try {
    await enqueue(deps, job, now);
  } catch (error) {
    // Taken, but no run will free it: due again in an hour, as after a failed run.
    await deps
      .retryMaintenance(due.dataSetId, due.tenantId, new Date(now.getTime() + maintenanceRetryMs), now)
      .catch(() => undefined);
    throw error;
  }
  return job;
}

/**
 * A maintenance run whose runner stopped (killed, timed out) and that the sweeper failed: its table
 * due again in an hour and free, as after a run that failed (runOptimize).
 */
export async function maintenanceAfterStopped(
  deps: { retryMaintenance(dataSetId: string, tenantId: string, at: Date, startedAt: Date): Promise<void> },
  job: Job,
  now: Date,
): Promise<void> {
  if (job.job_type !== 'Optimize') return;
  const payload = optimizePayload.safeParse(job.payload);
  if (!payload.success) return;
  await deps.retryMaintenance(
    payload.data.data_set_id,
    job.tenant_id,
    new Date(now.getTime() + maintenanceRetryMs),
    now,
  );
}

/** What a Delete job carries: the data set it removes. */
export const deletePayload = z.object({ data_set_id: z.string() });
export type DeletePayload = z.infer<typeof deletePayload>;

/**
 * Queue the deletion of a data set too large to delete within a request (the caller has checked
 * that it may be deleted). Its partition key is the table's maintenance one: a deletion never runs
 * beside a compaction of the same table.
 */
export async function queueDataSetDeletion(
  deps: QueueDeps,
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

/**
 * How long a request holds a table at most: past any API function's time limit, so that the hold of
 * a request that crashed lapses within a minute (a job then takes the table over, as from a runner).
 */
export const requestHoldMs = 60_000;

/**
 * Hold a table against its jobs (maintenance runs, deletions) while a request changes it: the lease
 * of their partition, under a holder no job has. Null while a job holds it (or a hold that lapsed
 * names its holder still: a job takes it over). The answer releases it, and offers again at once the
 * jobs that waited behind the request.
 */
export async function holdTableForRequest(
  deps: Pick<LeaseStore, 'acquireLease' | 'releaseLease'> & OfferDeps,
  dataSetId: string,
  now = new Date(),
): Promise<(() => Promise<void>) | null> {
  const partition = optimizePartitionKey(dataSetId);
  const holder = `request-${randomUUID()}`;
  if (!(await deps.acquireLease(partition, holder, holder, requestHoldMs, now))) return null;
  return async () => {
    for (const waiting of await deps.releaseLease(partition, holder, holder))
      await offerAgain(deps, waiting, new Date());
  };
}

/** How long a request waits for a table another request or a short job holds, and how often it asks. */
export const holdWait = { totalMs: 10_000, everyMs: 200 };

/**
 * Hold a table as holdTableForRequest does, waiting up to `holdWait.totalMs` while someone else holds
 * it: another request (a property change made at the same moment) or a short maintenance run lets go
 * within a second or two, and the caller need not be answered 409 for it. Null when still held.
 */
export async function holdTableWaiting(
  deps: Pick<LeaseStore, 'acquireLease' | 'releaseLease'> & OfferDeps,
  dataSetId: string,
  wait: { totalMs: number; everyMs: number } = holdWait,
): Promise<(() => Promise<void>) | null> {
  const until = Date.now() + wait.totalMs;
  for (;;) {
    const release = await holdTableForRequest(deps, dataSetId);
    if (release || Date.now() + wait.everyMs > until) return release;
    await new Promise((resolve) => setTimeout(resolve, wait.everyMs));
  }
}
