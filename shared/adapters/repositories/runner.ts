/** What running jobs needs: job records and their leases. (Re-dispatch onto the jobs queue: sqs/jobs-queue.ts.) */
import { jobs, leases } from '../dynamo/jobs.ts';

export const runnerStore = { ...jobs, ...leases };
