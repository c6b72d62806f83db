import { runnerStore } from '#shared/adapters/repositories/runner.ts';
import { sweepExpiredLeases } from '#shared/domain/jobs/run-job.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

/** Every minute: jobs whose runner stopped responding fail with the reason, and their partition is freed. */
export const handler = scheduledHandler(async () => {
  const failed = await sweepExpiredLeases(runnerStore);
  if (failed > 0) logger.warn('Failed jobs whose runner stopped responding', { failed });
});
