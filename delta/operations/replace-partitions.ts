/**
 * Replacing whole partitions in one version (WRITE mode Overwrite, or DELETE): every live file of
 * the partitions the caller picks is removed, whoever wrote it, and the new files take their place.
 */
import { ProgressMoved } from '../errors.ts';
import {
  type AddFile,
  metadataAction,
  type Operation,
  type PartitionValues,
  removeOf,
  type TableMetadata,
} from '../kernel/log.ts';
import { applyActions, emptyState } from '../kernel/snapshot.ts';
import { type Commit, type CommitDeps, commitNext } from './transaction.ts';

export interface PartitionReplacement {
  tableId: string;
  /** The partitions replaced: every live file whose partition values this picks is removed, whoever wrote it. */
  replaces(partitionValues: PartitionValues): boolean;
  /** DELETE: the partitions are emptied (no adds). WRITE: they are overwritten with `adds`. */
  operation: Extract<Operation, 'WRITE' | 'DELETE'>;
  /** The files that take the removed ones' place, written already (each in a replaced partition). */
  adds: AddFile[];
  rows: number;
  bytes: number;
  /** The table as its data set describes it: its version 0, and the schema the adds are written in. */
  metadata?: TableMetadata;
  /**
   * An application's progress (a pipeline's txn): the commit records `version`, and fails with
   * ProgressMoved when the table's txn of `appId` is not at `expected` (-1: none) as the version is
   * made, or another commit moves it meanwhile: the replacement was made for that progress.
   */
  txn?: { appId: string; version: number; expected: number };
  attempt: number;
}

/**
 * Replace whole partitions in one version: every live file of the partitions `replaces` picks is
 * removed (`dataChange: true`, a delete readers see as one) and `adds` take their place. Retention
 * empties expired partitions this way (DELETE), a ranged re-run rewrites its partitions
 * (WRITE, mode Overwrite): re-running it replaces the same partitions again, never adding a row twice.
 *
 * The files removed are those live when the version is committed, not when the caller planned: a
 * commit that won a race (an OPTIMIZE that rewrote a partition, an append to it, another engine's
 * DELETE that removed a file first) is applied to the partitions' files and the removes made again,
 * so a file another commit removed already is not removed twice and a file added meanwhile does not
 * survive the replacement. Answers the version and the files it removed, or null when there was
 * nothing to remove and nothing to add.
 */
export async function replacePartitions(
  deps: CommitDeps,
  request: PartitionReplacement,
): Promise<{ version: number; removed: AddFile[] } | null> {
  const { tableId, txn } = request;
  const at = () => (deps.now?.() ?? new Date()).getTime();
  const discard = () => deps.storage.delete(request.adds.map((add) => add.path));
  const refuse = async (found: number) => {
    await discard();
    throw new ProgressMoved(txn?.appId ?? '', txn?.expected ?? -1, found);
  };
  // The replaced partitions' live files, brought forward through every commit judged.
  const tracked = emptyState();
  let removing: AddFile[] = [];
  const commitOf = (version: number): Commit | null => {
    removing = [...tracked.files.values()].filter((file) => request.replaces(file.partitionValues));
    if (removing.length === 0 && request.adds.length === 0) return null;
    return {
      operation: request.operation,
      metadata: version === 0 && request.metadata ? metadataAction(request.metadata) : null,
      adds: request.adds,
      removes: removing.map((file) => removeOf(file, at(), true)),
      txn: txn ? { appId: txn.appId, version: txn.version, lastUpdated: at() } : null,
      rows: request.rows,
      bytes: request.bytes,
    };
  };

  const result = await commitNext(deps, {
    tableId,
    attempt: request.attempt,
    discard,
    ...(request.metadata ? { expects: request.metadata } : {}),
    async build(state) {
      const progress = txn ? (state.txns.get(txn.appId)?.version ?? -1) : -1;
      if (txn && progress !== txn.expected) await refuse(progress);
      for (const [path, file] of state.files) if (request.replaces(file.partitionValues)) tracked.files.set(path, file);
      return commitOf(state.version + 1);
    },
    async judge(winner) {
      for (const action of winner.actions)
        if (txn && 'txn' in action && action.txn.appId === txn.appId && action.txn.version !== txn.expected)
          await refuse(action.txn.version);
      applyActions(tracked, winner.version, winner.actions);
      const next = commitOf(winner.version + 1);
      return next ? { action: 'replace', commit: next } : { action: 'abandon' };
    },
  });
  return result ? { version: result.version, removed: removing } : null;
}
