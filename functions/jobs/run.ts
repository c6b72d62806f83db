/**
 * The job runner: the jobs queue's consumer. One job per invocation; pipeline runs write Delta
 * tables, queries leave their rows in the platform bucket, Optimize jobs maintain a table, Delete
 * jobs remove a data set too large to delete within a request (the work of each: wiring.ts).
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { runJob } from '#shared/domain/jobs/run-job.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordHandler } from '#shared/queue-handler.ts';
import { runnerDeps, work } from './wiring.ts';

// A message sent before offers were numbered carries none: it is the job's first offer, 0.
const jobMessage = z.object({ job_id: z.uuid(), offer: z.number().int().nonnegative().default(0) });

export const handler = recordHandler('job', jobMessage, async (message) => {
  const outcome = await runJob(runnerDeps, { jobId: message.job_id, offer: message.offer }, randomUUID(), work);
  logger.info('job', { job_id: message.job_id, offer: message.offer, outcome });
});
