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
  dispatchJob(jobId: string, delaySeconds?: number): Promise<void>;
}

export interface JobResults {
  getResult(jobId: string): Promise<unknown | null>;
}
