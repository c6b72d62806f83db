import type { Job, RejectionSample } from './model.ts';
import type { JobQueue, JobRepository } from './ports.ts';

/** Exclusive right to run the jobs of one partition key, held while its holder keeps renewing it. */
export interface LeaseStore {
  acquireLease(partitionKey: string, jobId: string, runnerId: string, ttlMs: number, now: Date): Promise<boolean>;
  renewLease(partitionKey: string, jobId: string, ttlMs: number, now: Date): Promise<boolean>;
  /** Notes a job waiting behind the current holder; false when the lease is no longer held. */
  waitBehindLease(partitionKey: string, jobId: string): Promise<boolean>;
  /** Frees the partition; answers the jobs that waited behind this holder. */
  releaseLease(partitionKey: string, jobId: string): Promise<string[]>;
  expiredLeases(now: Date): Promise<{ partitionKey: string; jobId: string; expiresAt: string }[]>;
}

export class JobCancelled extends Error {
  constructor() {
    super('The job was cancelled before its commit');
  }
}

/** What the work of a job may ask of the runner. */
export interface RunControl {
  /** Throws JobCancelled when a cancel was requested (or the lease was lost); call it between steps. */
  throwIfCancelled(): Promise<void>;
  /** The point of no return: after this the job commits. Throws JobCancelled when that is no longer allowed. */
  beginCommit(): Promise<void>;
}

export interface JobOutcome {
  rows_in: number;
  rows_out: number;
  rows_rejected: number;
  /** Rows a filter left out: neither output nor rejected. */
  rows_filtered: number;
  rejection_samples: RejectionSample[];
  /** Replaces the job's source description (e.g. the source versions read). */
  source?: unknown;
}

export type JobWork = (job: Job, control: RunControl) => Promise<JobOutcome>;

export interface RunnerDeps extends JobRepository, JobQueue, LeaseStore {
  /** How long a lease lasts without renewal; the runner renews it at a third of that. */
  leaseMs: number;
  now?: () => Date;
}

/**
 * Seconds before a job whose partition is busy is offered to a runner again, should the holder
 * stop without releasing its lease (a holder that releases offers its waiters again at once).
 */
export const busyPartitionRetrySeconds = 10;

/**
 * Run one job.
 * Input: the job id from the jobs queue. Output: what happened, for the log.
 *  1. Only a Queued job is taken (a stale or repeated message changes nothing).
 *  2. Its partition's lease is acquired, or the job waits behind the holder, which offers it again
 *     when it releases the lease (and a delayed offer covers a holder that stops without releasing):
 *     jobs of one pipeline never run at the same time.
 *  3. Queued → Dispatched → Running, each move conditional, so a cancel in between wins.
 *  4. The work runs while the lease is renewed; the commit happens only through beginCommit, which
 *     a requested cancel or a lost lease refuses.
 *  5. Running → Succeeded, Failed (with the reason) or Cancelled; the lease is released.
 */
export async function runJob(deps: RunnerDeps, jobId: string, runnerId: string, work: JobWork): Promise<string> {
  const now = () => deps.now?.() ?? new Date();
  const job = await deps.getJob(jobId);
  if (job?.status !== 'Queued') return 'stale';
  if (!(await deps.acquireLease(job.partition_key, jobId, runnerId, deps.leaseMs, now()))) {
    const waiting = await deps.waitBehindLease(job.partition_key, jobId);
    await deps.dispatchJob(jobId, waiting ? busyPartitionRetrySeconds : 0);
    return 'partition busy';
  }
  let leaseLost = false;
  const heartbeat = setInterval(() => {
    deps
      .renewLease(job.partition_key, jobId, deps.leaseMs, now())
      .then((renewed) => {
        if (!renewed) leaseLost = true;
      })
      .catch(() => undefined);
  }, deps.leaseMs / 3);
  try {
    const dispatched = await deps.moveJob(
      jobId,
      ['Queued'],
      { status: 'Dispatched', dispatched_at: now().toISOString(), runner_id: runnerId },
      now(),
    );
    if (!dispatched) return 'stale';
    const running = await deps.moveJob(
      jobId,
      ['Dispatched'],
      { status: 'Running', started_at: now().toISOString() },
      now(),
    );
    if (!running) return 'cancelled before it ran';

    const control: RunControl = {
      async throwIfCancelled() {
        const current = await deps.getJob(jobId);
        if (leaseLost || current?.status !== 'Running' || current.cancel_requested_at) throw new JobCancelled();
      },
      async beginCommit() {
        if (leaseLost || !(await deps.beginCommit(jobId, now()))) throw new JobCancelled();
      },
    };
    try {
      const outcome = await work(running, control);
      await deps.moveJob(
        jobId,
        ['Running'],
        { status: 'Succeeded', completed_at: now().toISOString(), ...outcome },
        now(),
      );
      return 'succeeded';
    } catch (error) {
      const at = now().toISOString();
      if (error instanceof JobCancelled) {
        await deps.moveJob(jobId, ['Running'], { status: 'Cancelled', cancelled_at: at, completed_at: at }, now());
        return 'cancelled';
      }
      await deps.moveJob(
        jobId,
        ['Running'],
        { status: 'Failed', error_message: (error as Error).message.slice(0, 1000), completed_at: at },
        now(),
      );
      return 'failed';
    }
  } finally {
    clearInterval(heartbeat);
    for (const waiting of await deps.releaseLease(job.partition_key, jobId)) await deps.dispatchJob(waiting, 0);
  }
}

/**
 * Jobs whose runner stopped (crashed, timed out, was killed) must not stay Dispatched or Running
 * forever: once their lease has expired they fail, with the reason, and the partition is free again.
 */
export async function sweepExpiredLeases(deps: Omit<RunnerDeps, 'leaseMs' | 'dispatchJob'>): Promise<number> {
  const now = deps.now?.() ?? new Date();
  let failed = 0;
  for (const lease of await deps.expiredLeases(now)) {
    const moved = await deps.moveJob(
      lease.jobId,
      ['Dispatched', 'Running'],
      {
        status: 'Failed',
        error_message: `The runner stopped responding (its lease expired at ${lease.expiresAt}); trigger the job again`,
        completed_at: now.toISOString(),
      },
      now,
    );
    if (moved) failed++;
    await deps.releaseLease(lease.partitionKey, lease.jobId);
  }
  return failed;
}
