/** Changing the table's metadata (SET TBLPROPERTIES): its configuration, schema or description. */
import type { Metadata } from '../kernel/log.ts';
import { type Commit, type CommitDeps, commitNext } from './transaction.ts';

/**
 * Commit a change of the table's metadata on top of whatever the latest version is: `change` gets
 * the metadata it builds on (null before version 0) and is asked again when another writer won
 * that version, so a property another writer set meanwhile is kept.
 */
export async function commitMetadata(
  deps: CommitDeps,
  tableId: string,
  change: (current: Metadata | null) => Promise<Metadata>,
): Promise<{ version: number; metadata: Metadata }> {
  let metadata: Metadata | null = null;
  const commitFor = async (current: Metadata | null): Promise<Commit> => {
    metadata = await change(current);
    return {
      operation: 'SET TBLPROPERTIES',
      metadata,
      adds: [],
      removes: [],
      txn: null,
      rows: 0,
      bytes: 0,
    };
  };
  let latest: Metadata | null = null;
  const result = await commitNext(deps, {
    tableId,
    attempt: 1,
    build: async (state) => {
      latest = state.metadata;
      return commitFor(state.metadata);
    },
    async judge(winner) {
      for (const action of winner.actions) if ('metaData' in action) latest = action.metaData;
      return { action: 'replace', commit: await commitFor(latest) };
    },
  });
  if (!result || !metadata) throw new Error('A metadata change cannot be given up');
  return { version: result.version, metadata };
}
