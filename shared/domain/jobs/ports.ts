/** What the job use cases need of the table and the queue (shared/adapters/dynamo/jobs.ts, sqs). */
import type { Page, PageRequest } from '../pagination.ts';
import type { Job, JobStatus, JobType } from './model.ts';

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
  /** Sends offer number `offer` of a job to the runners, now or after a delay. */
  dispatchJob(jobId: string, offer: number, delaySeconds?: number): Promise<void>;
}

/**
 * The offers of a Queued job to the runners. Each job keeps the number of its latest offer (0: the one made as it was
 * created); a runner drops a message that carries another number, so however often a job is offered again, at most
 * one message of it is live.
 */
export interface JobOffers {
  /** The number of the job's latest offer; null when there is no such job. */
  latestOffer(jobId: string): Promise<number | null>;
  /**
   * A new offer of a Queued job: its number (the latest plus one), made now. With `after`, only while the latest is
   * still that one (another offer made meanwhile is the live one). Null when no new offer was made.
   */
  newOffer(jobId: string, now: Date, after?: number): Promise<number | null>;
  /** Queued jobs whose latest offer was made before `before`: it was lost, or never sent. */
  unansweredOffers(before: Date): Promise<{ jobId: string; offer: number }[]>;
  /**
   * The job has left Queued: off the list the sweep reads (best effort; the sweep forgets what is left), so that a
   * sweep reads the jobs still Queued rather than every job queued since the last 15 minutes.
   */
  forgetQueued(jobId: string): Promise<void>;
}

export interface JobResults {
  getResult(jobId: string): Promise<unknown | null>;
}
