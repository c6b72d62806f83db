import { runnerStore } from '#shared/adapters/repositories/runner.ts';
import { sweepExpiredLeases } from '#shared/domain/jobs/run-job.ts';
import { logger } from '#shared/observability/logger.ts';

/** Every minute: jobs whose runner stopped responding fail with the reason, and their partition is freed. */
export async function handler(): Promise<void> {
  const failed = await sweepExpiredLeases(runnerStore);
  if (failed > 0) logger.warn('Failed jobs whose runner stopped responding', { failed });
}
