/**
 * Scheduled table maintenance: every table a writer marked due (many small files in a day
 * partition, every thousand versions for the log clean-up, or tombstones whose retention ended)
 * gets one Optimize job, visible in the jobs list; the job runner does the work. A run reads the
 * tables that came due since the last one (shared/adapters/dynamo/table-maintenance.ts).
 */
import { jobs } from '#shared/adapters/dynamo/jobs.ts';
import {
  dueMaintenance,
  finishMaintenance,
  readMaintenanceThrough,
  takeMaintenance,
} from '#shared/adapters/dynamo/table-maintenance.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { forEachAtMost } from '#shared/domain/at-most.ts';
import { scheduleOptimize } from '#shared/domain/jobs/maintenance-jobs.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

const deps = {
  createJob: jobs.createJob,
  moveJob: jobs.moveJob,
  dispatchJob,
  takeMaintenance,
  retryMaintenance: finishMaintenance,
};

export const handler = scheduledHandler(async () => {
  const now = new Date();
  let queued = 0;
  const reading = await dueMaintenance(now);
  // Many at once: each is a few calls' wait (a run of one at a time queued some 1,500 in its minute);
  // 48 keeps within the SDK's 50 sockets a client, and queues a run's 20,000 in some ten seconds.
  await forEachAtMost(reading.due, 48, async (due) => {
    if (await scheduleOptimize(deps, due, now)) queued++;
  });
  // Only once every due table is queued: a run that fails leaves its windows to the next.
  await readMaintenanceThrough(reading.through);
  if (queued > 0) logger.info('Queued table maintenance', { queued });
});
