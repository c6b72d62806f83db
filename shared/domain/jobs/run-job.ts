import type * as z from 'zod';
import { DomainError } from '../errors.ts';
import type { Job, JobStatus, JobType, RejectionSample } from './model.ts';
import { offerAgain } from './offers.ts';
import type { JobOffers, JobQueue, JobRepository } from './ports.ts';

/** The job holding a partition's lease, and when the lease lapses unless renewed. */
export interface LeaseHolder {
  jobId: string;
  expiresAt: Date;
}

/** Exclusive right to run the jobs of one partition key, held while its holder keeps renewing it. */
export interface LeaseStore {
  /**
   * Takes the lease when it is free or already this job's under this runner; with `replacing`, also when that job
   * holds it and it expired before `now` (the caller has ended that job first). False otherwise: a second message of
   * one job, taken by another runner while the first runs it, does not get the first's lease.
   */
  acquireLease(
    partitionKey: string,
    jobId: string,
    runnerId: string,
    ttlMs: number,
    now: Date,
    replacing?: string,
  ): Promise<boolean>;
  leaseHolder(partitionKey: string): Promise<LeaseHolder | null>;
  renewLease(partitionKey: string, jobId: string, ttlMs: number, now: Date): Promise<boolean>;
  /** Notes a job waiting behind the current holder; false when the lease is no longer held. */
  waitBehindLease(partitionKey: string, jobId: string): Promise<boolean>;
  /**
   * Frees the partition if this job holds it under this runner; answers the jobs that waited behind it. A runner that
   * found the job already taken (a repeated message) frees nothing of the runner that has it.
   */
  releaseLease(partitionKey: string, jobId: string, runnerId: string): Promise<string[]>;
  expiredLeases(now: Date): Promise<{ partitionKey: string; jobId: string; runnerId: string; expiresAt: string }[]>;
}

export class JobCancelled extends Error {
  constructor() {
    super('The job was cancelled before its commit');
  }
}

/**
 * A reason a job fails that its owner can act on (a deleted source, a definition that no longer fits): its message
 * becomes the job's `error_message`. Any other error is recorded under a stable category and logged.
 */
/** The outcome of a job that reads and writes no rows (a deletion, a maintenance run with nothing to do): its source says what it did. */
export function rowlessOutcome(source: Record<string, unknown>): JobOutcome {
  return { rows_in: 0, rows_out: 0, rows_rejected: 0, rows_filtered: 0, rejection_samples: [], source };
}

export class JobFailure extends Error {}

/** Messages a failed job carries for what its owner cannot act on (the logs have the error, under the job id). */
export const internalFailure = {
  beforeCommit: 'An internal error stopped the job before its commit; trigger the job again',
  afterCommit:
    'An internal error stopped the job after it began its commit: what it wrote may stand, and running the job ' +
    'again does not write it twice',
};

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

/**
 * A job's payload (or source) read with the schema its type declares. Tributary wrote it, so one that
 * does not fit is a fault, not the owner's to act on: the job fails under the internal category and the
 * log has the reason.
 */
export function readJobField<T>(schema: z.ZodType<T>, job: Job, field: 'payload' | 'source'): T {
  const parsed = schema.safeParse(job[field]);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(
    `The ${job.job_type} job's ${field} does not fit its type: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`,
  );
}

/** A job whose payload was read with its type's schema as it entered the runner. */
export type JobOf<P> = Omit<Job, 'payload'> & { payload: P };

/** A job type: the schema its payload is read with where the job enters the runner, and its work. */
export interface JobKind<P> {
  payload: z.ZodType<P>;
  work(job: JobOf<P>, control: RunControl): Promise<JobOutcome>;
}

/** A job type, its work typed by its payload's schema. */
export function jobKind<P>(payload: z.ZodType<P>, work: JobKind<P>['work']): JobKind<P> {
  return { payload, work };
}

/** The job with its payload read with its type's schema (readJobField). */
export function readJob<P>(schema: z.ZodType<P>, job: Job): JobOf<P> {
  return { ...job, payload: readJobField(schema, job, 'payload') };
}

/** The work of every job: its type's, on the job with its payload read with the type's schema. */
export function workOfKinds(kinds: Record<JobType, JobKind<unknown>>): JobWork {
  return (job, control) => {
    const kind = kinds[job.job_type];
    return kind.work(readJob(kind.payload, job), control);
  };
}

export interface RunnerDeps extends JobRepository, JobQueue, JobOffers, LeaseStore {
  /** How long a lease lasts without renewal; the runner renews it at a third of that. */
  leaseMs: number;
  now?: () => Date;
  /** Where an error that is not a JobFailure goes (the log), since the job only names its category. */
  reportError?: (jobId: string, error: unknown) => void;
}

/** Why a job fails whose runner found its lease lapsed (it renewed too late) before it committed. */
export const leaseLapsedFailure =
  "The job's lease lapsed while it ran (its runner did not renew it in time), so it stopped before its commit; trigger it again";

/** Waits between the tries of a job's final move (a write that throttles or times out is tried again). */
export const finalMoveRetryMs = [200, 1000];

/**
 * Seconds before a job whose partition is busy is offered to a runner again, should the holder
 * stop without releasing its lease (a holder that releases offers its waiters again at once; that
 * offer replaces this one).
 */
export const busyPartitionRetrySeconds = 10;

/**
 * Run one job.
 * Input: the job id and offer number from the jobs queue. Output: what happened, for the log.
 *  1. Only a Queued job is taken, and only by its latest offer (a stale or repeated message changes
 *     nothing: offers.ts).
 *  2. Its partition's lease is acquired, or the job waits behind the holder, which offers it again
 *     when it releases the lease (and a delayed offer covers a holder that stops without releasing;
 *     it is made only while this offer is still the latest, so the job keeps one live offer):
 *     jobs of one pipeline never run at the same time. A lease whose holder stopped renewing it is
 *     taken over only once that holder's job has failed (see endStoppedHolder).
 *  3. Queued → Dispatched → Running, each move conditional, so a cancel in between wins.
 *  4. The work runs while the lease is renewed; the commit happens only through beginCommit, which
 *     a requested cancel or a lost lease refuses.
 *  5. Running → Succeeded, Failed (with the reason, or the category of an internal error) or Cancelled,
 *     tried a few times. Only once the job's final status is written is the lease released: should a
 *     write keep failing, the lease lapses and the sweeper ends the job, saying whether it had begun
 *     its commit.
 */
export async function runJob(
  deps: RunnerDeps,
  message: { jobId: string; offer: number },
  runnerId: string,
  work: JobWork,
): Promise<string> {
  const { jobId } = message;
  const now = () => deps.now?.() ?? new Date();
  const job = await deps.getJob(jobId);
  if (job?.status !== 'Queued') return 'stale';
  if ((await deps.latestOffer(jobId)) !== message.offer) return 'stale offer';
  if (!(await takeLease(deps, job, runnerId, now()))) {
    const waiting = await deps.waitBehindLease(job.partition_key, jobId);
    const delaySeconds = waiting ? busyPartitionRetrySeconds : 0;
    await offerAgain(deps, jobId, now(), { delaySeconds, after: message.offer });
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
  let outcome: string;
  try {
    outcome = await runHeld(deps, jobId, runnerId, work, () => leaseLost);
  } finally {
    clearInterval(heartbeat);
  }
  // Each job waiting behind it is offered again at once. A wake-up the queue refuses leaves that job to the
  // sweep (offerUnansweredJobs) and wakes the others all the same: the job that ran has ended either way.
  for (const waiting of await deps.releaseLease(job.partition_key, jobId, runnerId))
    await offerAgain(deps, waiting, now()).catch(() => false);
  return outcome;
}

/** Steps 3–5 while the lease is held; returns once the job's final status is written, throws if it could not be. */
async function runHeld(
  deps: RunnerDeps,
  jobId: string,
  runnerId: string,
  work: JobWork,
  leaseLost: () => boolean,
): Promise<string> {
  const now = () => deps.now?.() ?? new Date();
  // A move whose answer was lost and that DynamoDB's client tried again finds its own move made: the
  // job in the status it moved it to, under this runner. That is the move, not another's.
  const ownMove = async (status: JobStatus) => {
    const job = await deps.getJob(jobId);
    return job !== null && job.status === status && job.runner_id === runnerId ? job : null;
  };
  const dispatched =
    (await deps.moveJob(
      jobId,
      ['Queued'],
      { status: 'Dispatched', dispatched_at: now().toISOString(), runner_id: runnerId },
      now(),
    )) ?? (await ownMove('Dispatched'));
  if (!dispatched) return 'stale';
  await deps.forgetQueued(jobId);
  const running =
    (await deps.moveJob(jobId, ['Dispatched'], { status: 'Running', started_at: now().toISOString() }, now())) ??
    (await ownMove('Running'));
  if (!running) return 'cancelled before it ran';

  let committing = false;
  // A lease that lapsed under a slow runner is no cancel: the job fails, saying so.
  const checkLease = () => {
    if (leaseLost()) throw new JobFailure(leaseLapsedFailure);
  };
  const control: RunControl = {
    async throwIfCancelled() {
      checkLease();
      const current = await deps.getJob(jobId);
      if (current?.status !== 'Running' || current.cancel_requested_at) throw new JobCancelled();
    },
    async beginCommit() {
      checkLease();
      if (!(await deps.beginCommit(jobId, now()))) throw new JobCancelled();
      committing = true;
    },
  };
  let final: Partial<Job>;
  let outcome: string;
  try {
    const done = await work(running, control);
    // Work that never committed (nothing new to read, nothing to compact) answers a cancel made meanwhile: the cancel
    // was answered 204, and its job ends Cancelled, not Succeeded.
    if (!committing) await control.beginCommit();
    final = { status: 'Succeeded', completed_at: now().toISOString(), ...done };
    outcome = 'succeeded';
  } catch (error) {
    const at = now().toISOString();
    if (error instanceof JobCancelled) {
      final = { status: 'Cancelled', cancelled_at: at, completed_at: at };
      outcome = 'cancelled';
    } else {
      if (!(error instanceof JobFailure || error instanceof DomainError)) deps.reportError?.(jobId, error);
      final = { status: 'Failed', error_message: failureMessage(error, committing), completed_at: at };
      outcome = 'failed';
    }
  }
  // Not Running any more: the sweeper or the next job of the partition ended it after its lease lapsed.
  return (await finalMove(deps, jobId, final)) ? outcome : `${outcome}, but already ended as its lease had lapsed`;
}

function failureMessage(error: unknown, committing: boolean): string {
  if (error instanceof JobFailure || error instanceof DomainError) return error.message.slice(0, 1000);
  return committing ? internalFailure.afterCommit : internalFailure.beforeCommit;
}

/**
 * Running → its final status, tried again after a throttled or failed write; the last error is thrown. False when
 * the job was no longer Running.
 */
async function finalMove(deps: RunnerDeps, jobId: string, changes: Partial<Job>): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await deps.moveJob(jobId, ['Running'], changes, deps.now?.() ?? new Date())) !== null;
    } catch (error) {
      const wait = finalMoveRetryMs[attempt];
      if (wait === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** The partition's lease: free or already this job's, or taken over from a holder that stopped renewing it. */
async function takeLease(deps: RunnerDeps, job: Job, runnerId: string, now: Date): Promise<boolean> {
  if (await deps.acquireLease(job.partition_key, job.job_id, runnerId, deps.leaseMs, now)) return true;
  const holder = await deps.leaseHolder(job.partition_key);
  if (!holder || holder.expiresAt.getTime() >= now.getTime()) return false;
  // The holder's job ends before its lease changes hands: should this runner stop in between, the lease still
  // names the stopped job, and the next runner or the sweeper ends it (nothing is left Running behind a lease
  // that names another job).
  await endStoppedHolder(deps, holder, now);
  return deps.acquireLease(job.partition_key, job.job_id, runnerId, deps.leaseMs, now, holder.jobId);
}

/**
 * The job of a runner that stopped renewing its lease (it crashed, timed out, was killed) fails, saying whether it had
 * begun its commit: after it, what it wrote may stand, and a new run does not write it twice (a pipeline's commit
 * carries its run's txn, so the next run starts after it).
 */
async function endStoppedHolder(
  deps: Pick<RunnerDeps, 'getJob' | 'moveJob'>,
  holder: LeaseHolder,
  now: Date,
): Promise<Job | null> {
  const job = await deps.getJob(holder.jobId);
  if (job?.status !== 'Dispatched' && job?.status !== 'Running') return null;
  const expired = holder.expiresAt.toISOString();
  const at = now.toISOString();
  // A cancel answered 204 before the job began its commit is what the caller was told: it ends Cancelled.
  const ending: Partial<Job> =
    job.cancel_requested_at && !job.committing_at
      ? { status: 'Cancelled', cancelled_at: at, completed_at: at }
      : {
          status: 'Failed',
          error_message: job.committing_at
            ? `The runner stopped responding after it began its commit at ${job.committing_at} (its lease expired at ${expired}): what it wrote may stand, and running the job again does not write it twice`
            : `The runner stopped responding (its lease expired at ${expired}); trigger the job again`,
          completed_at: at,
        };
  return deps.moveJob(holder.jobId, ['Dispatched', 'Running'], ending, now);
}

/**
 * Jobs whose runner stopped (crashed, timed out, was killed) must not stay Dispatched or Running
 * forever: once their lease has expired they fail, with the reason, and the partition is free again.
 */
export async function sweepExpiredLeases(
  deps: Omit<RunnerDeps, 'leaseMs' | 'dispatchJob' | keyof JobOffers> & {
    /** What a job type leaves to do when its runner stopped (a maintenance run: its table due again). */
    afterStopped?(job: Job, now: Date): Promise<void>;
  },
): Promise<number> {
  const now = deps.now?.() ?? new Date();
  let failed = 0;
  for (const lease of await deps.expiredLeases(now)) {
    const ended = await endStoppedHolder(deps, { jobId: lease.jobId, expiresAt: new Date(lease.expiresAt) }, now);
    if (ended) {
      failed++;
      await deps.afterStopped?.(ended, now);
    }
    await deps.releaseLease(lease.partitionKey, lease.jobId, lease.runnerId);
  }
  return failed;
}
