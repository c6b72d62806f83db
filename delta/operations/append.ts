/**
 * Appending rows to a table (WRITE, mode Append): the rows' data files written, then committed as
 * the next version, again on a lost race. What decides whether a row is in the table already is
 * the caller's: a pipeline's progress is Delta's own app transaction (`txn`: appId, version), and
 * any other key (a message id, say) is the caller's RowDeduplication, which reads what its own
 * commits wrote into their commitInfo.
 */
import { type AddFile, type CommitSummary, metadataAction, type TableMetadata } from '../kernel/log.ts';
import type { TableState } from '../kernel/snapshot.ts';
import { type Commit, type CommitDeps, commitNext, commitsSince, type Verdict, type Winner } from './transaction.ts';

/**
 * The caller's rule for rows the table may hold already, by a key of its own. The library asks it
 * which rows are still to write, given the commits that may hold some, and puts what it answers
 * into each commit's commitInfo, so that a later append can ask the same of this one.
 */
export interface RowDeduplication<Row> {
  /**
   * Before anything is read: the rows to write (the batch's own repeats left out), and the time
   * (milliseconds) from which commits may hold any of them: the commits since then are read.
   */
  start(rows: Row[]): { rows: Row[]; since: number };
  /** Of `rows`, those none of `commits` holds. */
  unwritten(rows: Row[], commits: CommitSummary[]): Promise<Row[]>;
  /** Fields of the commitInfo of the commit that holds `rows`. */
  commitInfo(rows: Row[]): Record<string, unknown>;
  /** Before each attempt to commit `rows` under `runId` (the commitInfo's txnId). */
  beforeCommit(rows: Row[], runId: string): Promise<void>;
}

export interface AppendRequest<Row> {
  tableId: string;
  /** The table as the caller describes it: its version 0. */
  metadata: TableMetadata;
  rows: Row[];
  /** Writes data files for the rows (never empty) and describes them as add actions. */
  writeFiles(rows: Row[]): Promise<{ adds: AddFile[]; bytes: number }>;
  /** Rows the table may hold already, by the caller's own key. */
  deduplication?: RowDeduplication<Row>;
  /**
   * Exactly once per run of an application, recorded as a Delta txn. The commit is abandoned when a
   * version after `readVersion` (the snapshot the run started from) already carries a txn of the
   * same appId beyond `after`.
   */
  txn?: { appId: string; version: number; after: number; readVersion: number };
  /**
   * Which rows the table, as the commit finds it (its version 0 described by `metadata`), still
   * keeps: the others are left out and counted as expired.
   */
  keeps?: (table: Pick<TableState, 'protocol' | 'metadata'>) => (row: Row) => boolean;
  /** The table gains the nullable columns of `metadata.schema` it lacks (CommitRequest.addsColumns). */
  addsColumns?: boolean;
  attempt: number;
  /** Aborted when the caller stopped waiting: no more files are written, and no version (CommitRequest). */
  signal?: AbortSignal;
}

export interface AppendResult {
  version: number | null;
  written: number;
  /** Rows already in the table (redeliveries, duplicates): acknowledged without a new row. */
  skipped: number;
  /** Rows the table no longer keeps (`keeps`): not written. */
  expired: number;
}

/** The rows an append still has to write, and the commit that holds them now. */
interface Pending<Row> {
  rows: Row[];
  expired: number;
  /** The rows the commit in hand holds, and those last recorded before an attempt. */
  chosen: Row[] | null;
  held: Row[] | null;
}

/**
 * Append rows to a Delta table.
 * Input: the table, its metadata (for version 0), the rows, a file writer. Output: the version.
 *  1. Leave out the rows the table no longer keeps (`keeps`).
 *  2. Leave out the rows a commit since `deduplication.start` holds (or that come twice in this
 *     batch); with a txn, give up if the table's shows the rows are in.
 *  3. Write the data files, then commit them as the next version; on a lost race, drop the rows
 *     the winner holds, rewrite the files if that changed anything, and try again.
 */
export async function appendToTable<Row>(deps: CommitDeps, request: AppendRequest<Row>): Promise<AppendResult> {
  const { deduplication } = request;
  const started = deduplication?.start(request.rows) ?? { rows: request.rows, since: Number.POSITIVE_INFINITY };
  const pending: Pending<Row> = { rows: started.rows, expired: 0, chosen: null, held: null };
  const commitOf = (chosen: Row[], version: number) => appendCommit(deps, request, pending, chosen, version);
  const discard = (commit: Commit) => deps.storage.delete(commit.adds.map((add) => add.path));

  const result = await commitNext(deps, {
    tableId: request.tableId,
    attempt: request.attempt,
    expects: request.metadata,
    ...(request.addsColumns ? { addsColumns: true } : {}),
    discard,
    ...(request.txn ? { readVersion: request.txn.readVersion } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    async build(state) {
      if (request.keeps) {
        const keeps = request.keeps(state.metadata ? state : { ...state, metadata: metadataAction(request.metadata) });
        const before = pending.rows.length;
        pending.rows = pending.rows.filter(keeps);
        pending.expired += before - pending.rows.length;
      }
      if (deduplication)
        pending.rows = await deduplication.unwritten(
          pending.rows,
          await commitsSince(deps.storage, state, started.since),
        );
      if (pending.rows.length === 0) return null;
      return commitOf(pending.rows, state.version + 1);
    },
    judge: (winner, commit) => judgeAppend(request, pending, winner, commit, { commitOf, discard }),
    async beforeWrite(_, runId) {
      if (!deduplication || pending.chosen === null || pending.chosen === pending.held) return;
      await deduplication.beforeCommit(pending.chosen, runId);
      pending.held = pending.chosen;
    },
  });
  const { expired } = pending;
  if (!result) return { version: null, written: 0, skipped: request.rows.length - expired, expired };
  return {
    version: result.version,
    written: pending.rows.length,
    skipped: request.rows.length - pending.rows.length - expired,
    expired,
  };
}

/** The commit of `chosen` at `version`: their files written now. */
async function appendCommit<Row>(
  deps: CommitDeps,
  request: AppendRequest<Row>,
  pending: Pending<Row>,
  chosen: Row[],
  version: number,
): Promise<Commit> {
  request.signal?.throwIfAborted();
  const files = await request.writeFiles(chosen);
  const { txn } = request;
  pending.chosen = chosen;
  return {
    operation: 'WRITE',
    metadata: version === 0 ? metadataAction(request.metadata) : null,
    adds: files.adds,
    removes: [],
    txn: txn ? { appId: txn.appId, version: txn.version, lastUpdated: (deps.now?.() ?? new Date()).getTime() } : null,
    rows: chosen.length,
    bytes: files.bytes,
    ...(request.deduplication ? { commitInfo: request.deduplication.commitInfo(chosen) } : {}),
  };
}

/**
 * A version another writer won: the append gives up when its txn is taken, leaves out the rows
 * that version holds (new files for the rest), or commits the same files at the next version.
 */
async function judgeAppend<Row>(
  request: AppendRequest<Row>,
  pending: Pending<Row>,
  winner: Winner,
  commit: Commit,
  steps: { commitOf(chosen: Row[], version: number): Promise<Commit>; discard(commit: Commit): Promise<void> },
): Promise<Verdict> {
  const { txn, deduplication } = request;
  const nextVersion = winner.version + 1;
  if (txn) {
    const taken = winner.actions.some(
      (action) => 'txn' in action && action.txn.appId === txn.appId && action.txn.version > txn.after,
    );
    if (taken) {
      await steps.discard(commit);
      return { action: 'abandon' };
    }
  }
  const left = deduplication ? await deduplication.unwritten(pending.rows, [winner.summary]) : pending.rows;
  if (left.length === pending.rows.length)
    return { action: 'replace', commit: { ...commit, metadata: nextVersion === 0 ? commit.metadata : null } };
  pending.rows = left;
  await steps.discard(commit);
  if (pending.rows.length === 0) return { action: 'abandon' };
  return { action: 'replace', commit: await steps.commitOf(pending.rows, nextVersion) };
}
