/**
 * A new job, and putting it on the queue: what every way of starting a job shares (a trigger, a
 * query, a maintenance run, a deletion, new data).
 */
import { randomUUID } from 'node:crypto';
import { jobNotQueued } from '../errors.ts';
import type { Job } from './model.ts';
import type { JobQueue, JobRepository } from './ports.ts';

/** What queueing a job needs: its record, and the queue. */
export type QueueDeps = Pick<JobRepository, 'createJob' | 'moveJob'> & JobQueue;

export function newJob(
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

/**
 * Create the job, Queued, and make its first offer (offer 0, recorded as the job is created).
 * A job whose offer cannot be sent fails, saying why, and the caller is answered 503 (retrying is
 * safe: nothing of it runs). Should even that write fail, the job stays Queued with its offer never
 * sent, and the sweep offers it again (offers.ts): the caller then has the error as it came.
 */
export async function enqueue(deps: QueueDeps, job: Job, now: Date): Promise<void> {
  await deps.createJob(job);
  try {
    await deps.dispatchJob(job.job_id, 0);
  } catch (error) {
    const failed = await deps
      .moveJob(
        job.job_id,
        ['Queued'],
        { status: 'Failed', error_message: 'The job could not be queued', completed_at: now.toISOString() },
        now,
      )
      .catch(() => null);
    throw failed ? jobNotQueued() : error;
  }
}
