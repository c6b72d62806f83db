/**
 * The Delta library's table states as the use cases' views of a data set's table
 * (shared/domain/datasets/table.ts).
 */
import { type AddFile, liveRecords } from '#delta/kernel/log.ts';
import type { TableState } from '#delta/kernel/snapshot.ts';
import type { TableFile, TableSnapshot } from '../domain/datasets/table.ts';

export function fileView(add: AddFile): TableFile {
  return {
    path: add.path,
    partitionValues: add.partitionValues,
    size: add.size,
    modificationTime: add.modificationTime,
    records: () => liveRecords(add),
  };
}

export function snapshotView(state: TableState): TableSnapshot {
  return {
    version: state.version,
    files: [...state.files.values()].map(fileView),
    properties: state.metadata?.configuration ?? {},
    progress: new Map([...state.txns].map(([appId, txn]) => [appId, txn.version])),
  };
}
