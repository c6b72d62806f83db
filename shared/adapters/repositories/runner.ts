/** What running jobs needs: job records, their offers and their leases. (Re-dispatch onto the jobs queue: sqs/jobs-queue.ts.) */
import { jobs, leases, offers } from '../dynamo/jobs.ts';

export const runnerStore = { ...jobs, ...offers, ...leases };
