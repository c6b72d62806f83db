/**
 * Jobs: one run of a pipeline, one query over a data set, one maintenance run of a data set's
 * table (Optimize: compaction, vacuum, log clean-up), or the deletion of a data set too large to
 * delete within a request (Delete).
 *
 *   Queued ──► Dispatched ──► Running ──► Succeeded | Failed
 *      │            │            │
 *      └────────────┴────────────┴──► Cancelled   (a Running job stops before its commit)
 */
export const jobTypes = ['Pipeline', 'Query', 'Optimize', 'Delete'] as const;
export type JobType = (typeof jobTypes)[number];
export const jobStatuses = ['Queued', 'Dispatched', 'Running', 'Succeeded', 'Failed', 'Cancelled'] as const;
export type JobStatus = (typeof jobStatuses)[number];

export const finishedStatuses: readonly JobStatus[] = ['Succeeded', 'Failed', 'Cancelled'];

export interface RejectionSample {
  message_id: string;
  reason: string;
}

export interface Job {
  job_id: string;
  tenant_id: string;
  job_type: JobType;
  status: JobStatus;
  /** Jobs with the same partition key never run at the same time: the pipeline id, or the job id. */
  partition_key: string;
  payload: unknown;
  source: unknown;
  runner_id: string | null;
  error_message: string | null;
  rows_in: number | null;
  rows_out: number | null;
  rows_rejected: number | null;
  /** Rows the definition's `where` left out (rows_in = rows_out + rows_rejected + rows_filtered). */
  rows_filtered: number | null;
  rejection_samples: RejectionSample[];
  /** Set when a cancel arrives while the job runs; the runner stops before its commit. */
  cancel_requested_at: string | null;
  /** Set when the runner begins its commit; from then on the job can no longer be cancelled. */
  committing_at: string | null;
  created_at: string;
  dispatched_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
  updated_at: string;
}
