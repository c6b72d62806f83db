/** Data sets with their Delta tables' files in the tenant's store: for the functions that list or delete files. */
import type { DataSetDeps } from '../../domain/datasets/use-cases.ts';
import { openSnapshot } from '../../domain/delta/snapshot.ts';
import { tableFiles, tableReader } from '../table-storage.ts';
import { dataSetStore } from './data-sets.ts';

export const dataSetFileStore: DataSetDeps = {
  ...dataSetStore,
  filesOf: tableFiles,
  snapshotOf: async (dataSet) => (await openSnapshot(await tableReader(dataSet))).state,
};
