/** Data sets with their Delta tables' files in the tenant's store: for the functions that list or delete files. */
import type { DataSetDeps } from '../../domain/datasets/use-cases.ts';
import { tableFiles } from '../table-storage.ts';
import { dataSetStore } from './data-sets.ts';

export const dataSetFileStore: DataSetDeps = { ...dataSetStore, filesOf: tableFiles };
