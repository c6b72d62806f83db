/**
 * Committing to a Delta table that other writers may commit to as well (Spark, delta-rs,
 * Databricks, another instance of this writer). The store's log is the truth, and the protocol's
 * first rule holds: a log entry is never overwritten.
 *
 *   1. Start from the table's latest snapshot: a warm instance's cached state, or the store's log
 *      opened from its last checkpoint (kernel/snapshot.ts).
 *   2. Refuse a table whose protocol or schema the library cannot honour (TableNotWritable): nothing
 *      is written, and the caller keeps what it meant to commit.
 *   3. Write `_delta_log/<next>.json` only if it does not exist: the log store decides
 *      (log-store/arbiter.ts: the store's conditional PUT, or claims in a database).
 *   4. A version that exists already is a lost race: read it, bring the snapshot forward, let the
 *      caller decide what it changes (rows already written, a txn already recorded, a file it meant
 *      to remove already gone), and try the next version. A version whose commitInfo carries this
 *      run's id is this run's own write whose answer was lost.
 *   5. Record the version (the application's run history), then run its hooks.
 *
 * What the application adds of its own reaches the log through Delta's extension points: a `txn`
 * (appId, version) for its progress, fields of the commitInfo for anything else, and `beforeWrite`
 * to record what it must before a version may name it (operations/append.ts uses them).
 */
import { randomUUID } from 'node:crypto';
import { MissingVersion, TableNotWritable } from '../errors.ts';
import { prepareCommit } from '../kernel/features.ts';
import {
  type AddFile,
  type CommitSummary,
  commitContent,
  commitSummary,
  logFileName,
  type Metadata,
  type Operation,
  parseCommit,
  type RemoveFile,
  type TableMetadata,
  type Txn,
  withAddedColumns,
} from '../kernel/log.ts';
import { applyCommit, latestTimestamp, type SnapshotSource, type TableState } from '../kernel/snapshot.ts';
import type { TableStorage } from '../kernel/storage.ts';
import { assertWritable } from '../kernel/writable.ts';
import type { LogArbiter } from '../log-store/arbiter.ts';

/** A version this writer committed: what a run history shows of it. */
export interface LogEntry {
  version: number;
  /** Identifies the write that made this version (its commitInfo txnId). */
  runId: string;
  /** Milliseconds, the commit's timestamp; never less than the previous version's. */
  claimedAt: number;
  operation: Operation;
  /** Rows the version added to the table (0 for OPTIMIZE, which only rearranges them). */
  rows: number;
  bytes: number;
  files: number;
  removes: number;
  txn: Txn | null;
  startedAt: string;
  completedAt: string | null;
  attempt: number;
}

/** What the application keeps about the versions it commits (its run history). */
export interface CommitRecords {
  /** After the commit: the version in the run history. */
  record(tableId: string, entry: LogEntry): Promise<void>;
}

export interface CommitHooks {
  /** Runs once per version, for its writer, after it is recorded: checkpoints, and whatever the application follows it with. */
  onCompleted(entry: LogEntry, state: TableState): Promise<void>;
}

export interface CommitDeps {
  storage: TableStorage;
  arbiter: LogArbiter;
  records: CommitRecords;
  snapshots: SnapshotSource;
  hooks: CommitHooks;
  /** The application writing, as every commitInfo names it (`engineInfo`). */
  engine: string;
  now?: () => Date;
}

/** What a commit writes at the next version. */
export interface Commit {
  operation: Operation;
  /** A metadata action (version 0, or a change of the table's metadata). */
  metadata: Metadata | null;
  adds: AddFile[];
  removes: RemoveFile[];
  txn: Txn | null;
  rows: number;
  bytes: number;
  /** Fields the application adds to the commit's commitInfo (read back from its CommitSummary's `info`). */
  commitInfo?: Record<string, unknown>;
}

/** A version someone else committed while this commit was being made, as the caller sees it. */
export interface Winner {
  version: number;
  actions: ReturnType<typeof parseCommit>;
  summary: CommitSummary;
}

/** What a version committed by someone else changes for the commit in hand. */
export type Verdict =
  /** Commit the same thing at the next version. */
  | { action: 'retry' }
  /** Commit this instead (rows others wrote meanwhile taken out). */
  | { action: 'replace'; commit: Commit }
  /** Nothing is left to commit. */
  | { action: 'abandon' };

export interface CommitRequest {
  tableId: string;
  /** The commit, given the snapshot it goes on top of (for version 0: the metadata). */
  build(state: TableState): Promise<Commit | null>;
  /**
   * The version the caller planned from: every version after it that the snapshot holds is
   * judged (`judge`) before the first attempt. Absent: only versions that win a race are judged.
   */
  readVersion?: number;
  /** Judges a version someone else committed after the caller's plan. */
  judge(winner: Winner, commit: Commit): Promise<Verdict>;
  /**
   * Runs before each attempt writes `commit`, with the run id its commitInfo names (`txnId`): what
   * the application must record before a version may hold the commit.
   */
  beforeWrite?(commit: Commit, runId: string): Promise<void>;
  /** Appends: the schema and partitioning the rows are written in, which the table must still accept. */
  expects?: TableMetadata;
  /**
   * Appends: the table gains the nullable columns of `expects` it lacks, added at the end of its
   * schema by a metadata action in this commit (withAddedColumns), made again for each attempt from
   * the version it goes on top of.
   */
  addsColumns?: boolean;
  /** Deletes what the commit wrote ahead of it (its data files), when the table refuses it. */
  discard?(commit: Commit): Promise<void>;
  attempt: number;
  /**
   * Aborted when the caller stopped waiting: the commit then gives up before it writes a version
   * (its data files deleted), rather than commit long after (a frozen function thawed later).
   */
  signal?: AbortSignal;
}

export type Committed = { version: number; commit: Commit; state: TableState };

export async function readVersionIfExists(
  storage: Pick<TableStorage, 'getIfExists'>,
  version: number,
): Promise<Winner | null> {
  const body = await storage.getIfExists(logFileName(version));
  if (!body) return null;
  const actions = parseCommit(body.toString('utf8'));
  return { version, actions, summary: commitSummary(version, actions) };
}

async function readVersion(storage: Pick<TableStorage, 'getIfExists'>, version: number): Promise<Winner> {
  const winner = await readVersionIfExists(storage, version);
  if (!winner) throw new MissingVersion(version);
  return winner;
}

/** One commit in the making: its run, the snapshot it goes on top of, and what it writes there. */
interface Attempt {
  deps: CommitDeps;
  request: CommitRequest;
  runId: string;
  startedAt: string;
  state: TableState;
  commit: Commit;
}

const clock = (deps: CommitDeps) => deps.now?.() ?? new Date();

/**
 * Commits `request` as the table's next version (steps 1–5 above). Answers the version and what it
 * holds, or null when the caller's verdict abandoned it.
 */
export async function commitNext(deps: CommitDeps, request: CommitRequest): Promise<Committed | null> {
  const startedAt = clock(deps).toISOString();
  const settled = await deps.arbiter.settle(request.tableId);
  const state = await deps.snapshots.current(request.tableId, settled ?? undefined);
  const built = await request.build(state);
  if (!built) return null;
  const attempt: Attempt = { deps, request, runId: randomUUID(), startedAt, state, commit: built };
  // Versions the caller has not judged yet (its plan is older than the snapshot).
  if (request.readVersion !== undefined) {
    for (let version = request.readVersion + 1; version <= state.version; version++) {
      const verdict = await request.judge(await readVersion(deps.storage, version), attempt.commit);
      if (verdict.action === 'abandon') return null;
      if (verdict.action === 'replace') attempt.commit = verdict.commit;
    }
  }
  for (;;) {
    const outcome = await tryVersion(attempt);
    if ('committed' in outcome) return outcome.committed;
    if (!(await judgeWinners(attempt, outcome.winner))) return null;
  }
}

/**
 * One attempt at the version after `attempt.state`: the version committed, or the winner of the
 * race for it (null when the table refused the commit and nobody won: then it throws).
 */
async function tryVersion(attempt: Attempt): Promise<{ committed: Committed } | { winner: Winner | null }> {
  const { deps, request, state } = attempt;
  const version = state.version + 1;
  const widened =
    request.addsColumns && request.expects ? withAddedColumns(state.metadata, request.expects.schema) : null;
  const target = widened ? { ...state, metadata: widened } : state;
  if (!writable(target, request.expects)) {
    // Refused only on the latest version: a newer one may have lifted what is in the way.
    const winner = await readVersionIfExists(deps.storage, version);
    if (!winner) {
      deps.snapshots.keep(request.tableId, state);
      await request.discard?.(attempt.commit);
      assertWritable(target, request.expects);
    }
    return { winner };
  }
  const { content, committedAt } = await contentOf(attempt, version, widened);
  if (request.signal?.aborted) {
    await request.discard?.(attempt.commit);
    request.signal.throwIfAborted();
  }
  await request.beforeWrite?.(attempt.commit, attempt.runId);
  if (await deps.arbiter.write(request.tableId, version, content, attempt.runId))
    return { committed: await succeed(attempt, version, content, committedAt) };
  const winner = await readVersion(deps.storage, version);
  // The SDK repeated a write whose answer was lost: the version is this run's.
  if (winner.summary.txnId === attempt.runId)
    return { committed: await succeed(attempt, version, content, committedAt) };
  return { winner };
}

/**
 * The commit's log entry at `version`, as the table's features ask it (row ids, the removed files'
 * deletion vectors, an in-commit timestamp: kernel/features.ts), made again at every attempt: the
 * state changed.
 */
async function contentOf(
  attempt: Attempt,
  version: number,
  widened: Metadata | null,
): Promise<{ content: string; committedAt: number }> {
  const { deps, request, state, commit } = attempt;
  const timestamp = Math.max(clock(deps).getTime(), latestTimestamp(state));
  let prepared: ReturnType<typeof prepareCommit>;
  try {
    prepared = prepareCommit(state, commit, { version, now: timestamp });
  } catch (error) {
    await request.discard?.(commit);
    throw error;
  }
  const content = commitContent({
    version,
    metadata: widened ?? commit.metadata,
    adds: prepared.adds,
    removes: prepared.removes,
    txn: commit.txn,
    timestamp,
    operation: commit.operation,
    runId: attempt.runId,
    engine: deps.engine,
    commitInfo: commit.commitInfo ? { ...prepared.commitInfo, ...commit.commitInfo } : prepared.commitInfo,
    domainMetadata: prepared.domainMetadata,
  });
  return { content, committedAt: Number(prepared.commitInfo.inCommitTimestamp ?? timestamp) };
}

/** The version is the commit's: kept as the next commit's snapshot, recorded, and its hooks run. */
async function succeed(attempt: Attempt, version: number, content: string, timestamp: number): Promise<Committed> {
  const { deps, request, commit } = attempt;
  const committed = applyCommit(attempt.state, version, parseCommit(content));
  deps.snapshots.keep(request.tableId, committed);
  const entry: LogEntry = {
    version,
    runId: attempt.runId,
    claimedAt: timestamp,
    operation: commit.operation,
    rows: commit.rows,
    bytes: commit.bytes,
    files: commit.adds.length,
    removes: commit.removes.length,
    txn: commit.txn,
    startedAt: attempt.startedAt,
    completedAt: clock(deps).toISOString(),
    attempt: request.attempt,
  };
  await deps.records.record(request.tableId, entry);
  await deps.hooks.onCompleted(entry, committed);
  return { version, commit, state: committed };
}

/**
 * What won the race, and whatever followed it, each applied to the snapshot and judged in order
 * before the next attempt. False when the caller abandoned the commit.
 */
async function judgeWinners(attempt: Attempt, winner: Winner | null): Promise<boolean> {
  const { deps, request } = attempt;
  for (let found = winner; found; found = await readVersionIfExists(deps.storage, found.version + 1)) {
    attempt.state = applyCommit(attempt.state, found.version, found.actions);
    const verdict = await request.judge(found, attempt.commit);
    if (verdict.action === 'abandon') {
      deps.snapshots.keep(request.tableId, attempt.state);
      return false;
    }
    if (verdict.action === 'replace') attempt.commit = verdict.commit;
  }
  return true;
}

/** Whether the table, as `state` has it, takes a commit (assertWritable says why not). */
function writable(state: TableState, expects: TableMetadata | undefined): boolean {
  try {
    assertWritable(state, expects);
    return true;
  } catch (error) {
    if (error instanceof TableNotWritable) return false;
    throw error;
  }
}

/**
 * What the commits since `since` (milliseconds) say of themselves, oldest first: those the state
 * went through, and older ones read back from the log when the state starts later (it was opened
 * from a checkpoint newer than `since`).
 */
export async function commitsSince(
  storage: Pick<TableStorage, 'getIfExists'>,
  state: TableState,
  since: number,
): Promise<CommitSummary[]> {
  const recent = state.recent.filter((commit) => (commit.timestamp ?? Number.POSITIVE_INFINITY) >= since);
  const older: CommitSummary[] = [];
  let version = (state.recent[0]?.version ?? state.version + 1) - 1;
  let reached = state.recent[0]?.timestamp ?? Number.POSITIVE_INFINITY;
  while (version >= 0 && reached >= since) {
    const found = await readVersionIfExists(storage, version);
    if (!found) break;
    older.unshift(found.summary);
    reached = found.summary.timestamp ?? reached;
    version--;
  }
  return [...older.filter((commit) => (commit.timestamp ?? Number.POSITIVE_INFINITY) >= since), ...recent];
}
