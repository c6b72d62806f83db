import { finishMaintenance } from '#shared/adapters/dynamo/table-maintenance.ts';
import { count } from '#shared/adapters/metrics.ts';
import { runnerStore } from '#shared/adapters/repositories/runner.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { maintenanceAfterStopped } from '#shared/domain/jobs/maintenance-jobs.ts';
import type { Job } from '#shared/domain/jobs/model.ts';
import { offerUnansweredJobs } from '#shared/domain/jobs/offers.ts';
import { sweepExpiredLeases } from '#shared/domain/jobs/run-job.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

const afterStopped = (job: Job, now: Date) =>
  maintenanceAfterStopped({ retryMaintenance: finishMaintenance }, job, now);

/**
 * Every minute: jobs whose runner stopped responding fail with the reason, their partition is freed,
 * and a maintenance run's table is due again in an hour; Queued jobs whose latest offer went
 * unanswered (lost, or never sent) are offered again, and counted (tributary_jobs_offered_again_total).
 */
export const handler = scheduledHandler(async () => {
  const failed = await sweepExpiredLeases({ ...runnerStore, afterStopped });
  if (failed > 0) logger.warn('Failed jobs whose runner stopped responding', { failed });
  const countOfferedAgain = (offered: number) => count('jobsOfferedAgain', {}, offered);
  const offered = await offerUnansweredJobs({ ...runnerStore, dispatchJob, countOfferedAgain }, new Date());
  if (offered > 0) logger.warn('Offered again Queued jobs whose offer went unanswered', { offered });
});
