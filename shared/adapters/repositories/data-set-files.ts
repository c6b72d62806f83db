/** Data sets with their Delta tables' files in the tenant's store: for the functions that list or delete files. */

import { openSnapshot } from '#delta/kernel/snapshot.ts';
import { forEachAtMost } from '../../domain/at-most.ts';
import type { DataSetDeps, FileCursors } from '../../domain/datasets/use-cases.ts';
import type { FailedDelivery } from '../../domain/ingest/kept-records.ts';
import { openCursor, sealCursor } from '../dynamo/cursors.ts';
import { allFailedDeliveries, failedDeliveryRemoval } from '../dynamo/deliveries.ts';
import { stagedRecordsOf } from '../dynamo/staged-slices.ts';
import { countOnce } from '../metrics.ts';
import { deleteDeadLetters } from '../s3/dead-letters.ts';
import { tableFiles, tableReader } from '../table-storage.ts';
import { snapshotView } from '../table-views.ts';
import { dataSetStore } from './data-sets.ts';

/**
 * Deletes failed deliveries: each kept envelope, then its record, the record's removal and its count
 * (deleted_dead_letters) in one write, once per failed delivery. A record never outlives its envelope
 * unseen, and a run cut short between the two deletes and counts the rest next time.
 */
export async function forgetDeliveries(failed: FailedDelivery[]): Promise<void> {
  await deleteDeadLetters(failed.map((one) => one.body_key));
  await forEachAtMost(failed, 8, async (one) => {
    await countOnce(
      `dead-letter-deleted#${one.message_id}#${one.failed_at}`,
      [{ metric: 'deadLettersDeleted', labels: { source_id: one.source_id }, by: 1 }],
      failedDeliveryRemoval(one),
    );
  });
}

export const dataSetFileStore: DataSetDeps = {
  ...dataSetStore,
  filesOf: tableFiles,
  hasStagedEnvelopes: async (dataSetId) => (await stagedRecordsOf(dataSetId)).length > 0,
  forgetFailedDeliveries: async (dataSetId) => forgetDeliveries(await allFailedDeliveries(dataSetId)),
  snapshotOf: async (dataSet, version) =>
    snapshotView((await openSnapshot(await tableReader(dataSet), version === undefined ? {} : { version })).state),
};

/** The cursors of one data set's files list (a cursor of another list, or another data set's, is a 400). */
export const fileCursors = (dataSetId: string): FileCursors => ({
  seal: (position) => sealCursor(`files|${dataSetId}`, position),
  open: (cursor) => openCursor(`files|${dataSetId}`, cursor),
});
