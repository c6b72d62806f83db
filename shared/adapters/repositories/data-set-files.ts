/** Data sets with their Delta tables' files in the tenant's store: for the functions that list or delete files. */

import { openSnapshot } from '#delta/kernel/snapshot.ts';
import type { DataSetDeps, FileCursors } from '../../domain/datasets/use-cases.ts';
import { openCursor, sealCursor } from '../dynamo/cursors.ts';
import { tableFiles, tableReader } from '../table-storage.ts';
import { snapshotView } from '../table-views.ts';
import { dataSetStore } from './data-sets.ts';

export const dataSetFileStore: DataSetDeps = {
  ...dataSetStore,
  filesOf: tableFiles,
  snapshotOf: async (dataSet, version) =>
    snapshotView((await openSnapshot(await tableReader(dataSet), version === undefined ? {} : { version })).state),
};

/** The cursors of one data set's files list (a cursor of another list, or another data set's, is a 400). */
export const fileCursors = (dataSetId: string): FileCursors => ({
  seal: (position) => sealCursor(`files|${dataSetId}`, position),
  open: (cursor) => openCursor(`files|${dataSetId}`, cursor),
});
