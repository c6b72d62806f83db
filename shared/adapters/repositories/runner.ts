/** What running jobs needs: job records, their leases, and re-dispatch onto the jobs queue. */
import { jobs, leases } from '../dynamo/jobs.ts';
import { dispatchJob } from '../sqs/jobs-queue.ts';

export const runnerStore = { ...jobs, ...leases, dispatchJob };
