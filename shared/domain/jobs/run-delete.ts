import { type DataSetDeps, removeDataSet } from '../datasets/use-cases.ts';
import type { DeletePayload } from './maintenance-jobs.ts';
import { type JobOf, type JobOutcome, type RunControl, rowlessOutcome } from './run-job.ts';

export type DeleteDeps = Pick<
  DataSetDeps,
  'getDataSet' | 'filesOf' | 'forgetFailedDeliveries' | 'deleteLog' | 'deleteDataSetItem'
>;

/**
 * Run a Delete job: remove a data set too large to delete within a request.
 * Input: the job (its data set). Output: the objects removed, as the job's source.
 *  1. A data set already gone (a repeated job, a delete that finished) is a success with nothing removed.
 *  2. Objects go a page at a time; a cancel stops the job between pages (what is gone stays gone; the
 *     data set stays listed, and deleting it again goes on).
 *  3. Then its log, then the data set itself.
 */
export async function runDelete(deps: DeleteDeps, job: JobOf<DeletePayload>, control: RunControl): Promise<JobOutcome> {
  const payload = job.payload;
  const dataSet = await deps.getDataSet(payload.data_set_id);
  const removed =
    dataSet && dataSet.tenant_id === job.tenant_id
      ? await removeDataSet(
          deps,
          dataSet,
          () => control.throwIfCancelled(),
          // The point of no return: a cancel before it leaves the data set listed (deleting it again goes on).
          () => control.beginCommit(),
        )
      : 0;
  return rowlessOutcome({ data_set_id: payload.data_set_id, objects_removed: removed });
}
