/**
 * Committing to a Delta table that other writers may commit to as well (Spark, delta-rs,
 * Databricks, another Tributary function). The store's log is the truth, and the protocol's first
 * rule holds: a log entry is never overwritten.
 *
 *   1. Start from the table's latest snapshot: a warm instance's cached state, or the store's log
 *      opened from its last checkpoint (delta/snapshot.ts).
 *   2. Refuse a table whose protocol or schema Tributary cannot honour (TableNotWritable): nothing is
 *      written, and the caller keeps what it meant to commit.
 *   3. Write `_delta_log/<next>.json` only if it does not exist. The arbiter of a version is the store
 *      itself (a conditional PUT, If-None-Match: *), or, for a store that does not honour
 *      conditional writes, a claim in DynamoDB (the coordination of Delta's S3DynamoDBLogStore).
 *   4. A version that exists already is a lost race: read it, bring the snapshot forward, let the
 *      caller decide what it changes (rows already written, a txn already recorded, a file it meant
 *      to remove already gone), and try the next version. A version whose commitInfo carries this
 *      run's id is this run's own write whose answer was lost.
 *   5. Record the version (run history, and the message ids it holds for the exactly-once check),
 *      then run the hooks (data set version, counters, checkpoints).
 *
 * Exactly-once for envelopes: a message can only be in versions committed after it was ingested, so
 * a batch is checked against the versions committed since its oldest `ingested_at` (less a margin
 * for clocks), as the log itself lists them. Before each attempt the run records the message ids it
 * is about to commit, under its run id, which its commit names (commitInfo `txnId`): whichever
 * Tributary commit the log holds, its ids can be found, even when its writer stopped right after the
 * commit, and a writer that loses a race learns at once which of its rows the winner holds. Each
 * append also names the first and last ingest time of its rows (commitInfo `tributary.ingested`):
 * only the ids of commits whose range meets the rows' are read.
 * Pipelines append with a Delta `txn` (appId, version) instead: their progress is one number.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalWritesUnsupported, MissingVersion, ProgressMoved, TableNotWritable } from '../errors.ts';
import { prepareCommit } from '../kernel/features.ts';
import {
  type AddFile,
  type CommitSummary,
  commitContent,
  commitSummary,
  type IngestedRange,
  ingestedField,
  logFileName,
  type Metadata,
  metadataAction,
  type Operation,
  type PartitionValues,
  parseCommit,
  type RemoveFile,
  type TableMetadata,
  type Txn,
  withAddedColumns,
} from '../kernel/log.ts';
import {
  applyActions,
  applyCommit,
  emptyState,
  latestTimestamp,
  type SnapshotSource,
  type TableState,
} from '../kernel/snapshot.ts';
import { assertWritable } from '../kernel/writable.ts';
import type { Claim, CommitRecords, LogArbiter, LogEntry, TableStorage, VersionClaims } from '../log-store/storage.ts';

export interface CommitHooks {
  /** Runs once per version, for its writer: run history, data set version, counters, checkpoints. */
  onCompleted(entry: LogEntry, state: TableState): Promise<void>;
}

export interface CommitDeps {
  storage: TableStorage;
  arbiter: LogArbiter;
  records: CommitRecords;
  snapshots: SnapshotSource;
  hooks: CommitHooks;
  now?: () => Date;
}

/** Clocks of the ingest and writer functions may disagree by this much; checks look back this far further. */
export const clockMarginMs = 5 * 60_000;

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
  messageIds: string[];
  /** Envelopes: the first and last ingest time of the rows (commitInfo `tributary.ingested`). */
  ingested?: IngestedRange;
}

/** A version someone else committed while this commit was being made, as the caller sees it. */
export interface Winner {
  version: number;
  actions: ReturnType<typeof parseCommit>;
  summary: ReturnType<typeof commitSummary>;
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

async function readVersionIfExists(storage: TableStorage, version: number): Promise<Winner | null> {
  const body = await storage.getIfExists(logFileName(version));
  if (!body) return null;
  const actions = parseCommit(body.toString('utf8'));
  return { version, actions, summary: commitSummary(version, actions) };
}

async function readVersion(storage: TableStorage, version: number): Promise<Winner> {
  const winner = await readVersionIfExists(storage, version);
  if (!winner) throw new MissingVersion(version);
  return winner;
}

/**
 * Commits `request` as the table's next version (steps 1–5 above). Answers the version and what it
 * holds, or null when the caller's verdict abandoned it.
 */
export async function commitNext(
  deps: CommitDeps,
  request: CommitRequest,
): Promise<{ version: number; commit: Commit; state: TableState } | null> {
  const { tableId } = request;
  const now = () => deps.now?.() ?? new Date();
  const startedAt = now().toISOString();
  const runId = randomUUID();
  const settled = await deps.arbiter.settle(tableId);
  let state = await deps.snapshots.current(tableId, settled ?? undefined);

  const built = await request.build(state);
  if (!built) return null;
  let commit: Commit = built;
  let held: string[] | null = null;
  // Versions the caller has not judged yet (its plan is older than the snapshot).
  if (request.readVersion !== undefined) {
    for (let version = request.readVersion + 1; version <= state.version; version++) {
      const verdict = await request.judge(await readVersion(deps.storage, version), commit);
      if (verdict.action === 'abandon') return null;
      if (verdict.action === 'replace') commit = verdict.commit;
    }
  }

  const succeed = async (version: number, content: string, timestamp: number) => {
    const committed = applyCommit(state, version, parseCommit(content));
    deps.snapshots.keep(tableId, committed);
    const entry: LogEntry = {
      version,
      runId,
      claimedAt: timestamp,
      operation: commit.operation,
      rows: commit.rows,
      bytes: commit.bytes,
      files: commit.adds.length,
      removes: commit.removes.length,
      txn: commit.txn,
      startedAt,
      completedAt: now().toISOString(),
      attempt: request.attempt,
    };
    await deps.records.record(tableId, entry);
    await deps.hooks.onCompleted(entry, committed);
    return { version, commit, state: committed };
  };

  for (;;) {
    const version = state.version + 1;
    let winner: Winner | null;
    const widened =
      request.addsColumns && request.expects ? withAddedColumns(state.metadata, request.expects.schema) : null;
    const target = widened ? { ...state, metadata: widened } : state;
    if (writable(target, request.expects)) {
      const timestamp = Math.max(now().getTime(), latestTimestamp(state));
      // What the table's features ask of this commit: row ids, the removed files' deletion vectors,
      // an in-commit timestamp (features.ts). Made again at every attempt: the state changed.
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
        runId,
        commitInfo: commit.ingested
          ? { ...prepared.commitInfo, [ingestedField]: [commit.ingested.from, commit.ingested.to] }
          : prepared.commitInfo,
        domainMetadata: prepared.domainMetadata,
      });
      const committedAt = Number(prepared.commitInfo.inCommitTimestamp ?? timestamp);
      if (request.signal?.aborted) {
        await request.discard?.(commit);
        request.signal.throwIfAborted();
      }
      if (commit.messageIds.length > 0 && commit.messageIds !== held) {
        await deps.records.holdIds(tableId, runId, commit.messageIds);
        held = commit.messageIds;
      }
      if (await deps.arbiter.write(tableId, version, content, runId)) return succeed(version, content, committedAt);
      winner = await readVersion(deps.storage, version);
      // The SDK repeated a write whose answer was lost: the version is this run's.
      if (winner.summary.txnId === runId) return succeed(version, content, committedAt);
    } else {
      // Refused only on the latest version: a newer one may have lifted what is in the way.
      winner = await readVersionIfExists(deps.storage, version);
      if (!winner) {
        deps.snapshots.keep(tableId, state);
        await request.discard?.(commit);
        assertWritable(target, request.expects);
      }
    }
    // What won, and whatever followed it, each judged in order, before the next attempt.
    for (let found = winner; found; found = await readVersionIfExists(deps.storage, found.version + 1)) {
      state = applyCommit(state, found.version, found.actions);
      const verdict = await request.judge(found, commit);
      if (verdict.action === 'abandon') {
        deps.snapshots.keep(tableId, state);
        return null;
      }
      if (verdict.action === 'replace') commit = verdict.commit;
    }
  }
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

export interface AppendRequest<Row> {
  tableId: string;
  /** The table as the data set describes it: its version 0. */
  metadata: TableMetadata;
  rows: Row[];
  /** Writes data files for the rows (never empty) and describes them as add actions. */
  writeFiles(rows: Row[]): Promise<{ adds: AddFile[]; bytes: number }>;
  /**
   * Envelopes: exactly once per message id, checked against the versions committed since each was
   * ingested. `ingestedAt` (milliseconds) is the same for every copy of a message id (the earliest
   * any copy can have been ingested), or differs from another copy's by at most `withinMs` (an id
   * that does not carry its first copy's time): the commits whose rows' times come that near are
   * read too.
   */
  identify?: (row: Row) => { messageId: string; ingestedAt: number; withinMs?: number };
  /**
   * Pipelines: exactly once per run of an application, recorded as a Delta txn. The commit is
   * abandoned when a version after `readVersion` (the snapshot the run started from) already
   * carries a txn of the same appId beyond `after`.
   */
  txn?: { appId: string; version: number; after: number; readVersion: number };
  /**
   * Which rows the table, as the commit finds it (its version 0 described by `metadata`), still
   * keeps: the others are left out and counted as expired (envelopes of a day past the data retention).
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

/**
 * The message ids Tributary's commits among `commits` hold that may be among rows ingested within
 * `rows`: a commit that names the ingest times of its rows (`tributary.ingested`) and holds none of
 * that range cannot hold any of them, and its ids are not read. Rows of a busy table arrive in
 * order, so a commit reads the ids of the one or two commits before it, not of every commit since
 * its rows arrived.
 */
async function idsHeldBy(
  deps: CommitDeps,
  tableId: string,
  commits: CommitSummary[],
  rows: IngestedRange,
): Promise<Set<string>> {
  const runs = commits
    .filter(
      (commit) =>
        commit.engine === 'Tributary' &&
        commit.txnId &&
        (!commit.ingested || (commit.ingested.from <= rows.to && commit.ingested.to >= rows.from)),
    )
    .map((commit) => commit.txnId as string);
  if (runs.length === 0) return new Set();
  return new Set([...(await deps.records.idsOf(tableId, runs)).values()].flat());
}

/**
 * Append rows to a Delta table, exactly once.
 * Input: the table, its metadata (for version 0), the rows, a file writer. Output: the version.
 *  1. Leave out the rows the table no longer keeps (`keeps`: a day past its data retention).
 *  2. Envelopes: drop rows whose message id a commit of the log since the oldest row's ingest holds
 *     (or that come twice in this batch). Pipelines: give up if their txn shows the rows are in.
 *  3. Write the data files, then commit them as the next version; on a lost race, drop the rows
 *     the winner holds, rewrite the files if that changed anything, and try again.
 */
export async function appendToTable<Row>(deps: CommitDeps, request: AppendRequest<Row>): Promise<AppendResult> {
  const { tableId, identify, txn } = request;
  const idOf = (row: Row) => identify?.(row).messageId ?? '';
  const now = () => deps.now?.() ?? new Date();

  let pending = request.rows;
  let expired = 0;
  let since = Number.POSITIVE_INFINITY;
  if (identify) {
    const unique = new Map<string, Row>();
    for (const row of pending) {
      const { messageId, ingestedAt } = identify(row);
      if (!unique.has(messageId)) unique.set(messageId, row);
      since = Math.min(since, ingestedAt - clockMarginMs);
    }
    pending = [...unique.values()];
  }
  const rangeOf = (rows: Row[]): IngestedRange | undefined => {
    if (!identify || rows.length === 0) return undefined;
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    for (const row of rows) {
      const { ingestedAt, withinMs = 0 } = identify(row);
      from = Math.min(from, ingestedAt - withinMs);
      to = Math.max(to, ingestedAt + withinMs);
    }
    return { from, to };
  };
  const dropWritten = async (commits: CommitSummary[]): Promise<boolean> => {
    const range = rangeOf(pending);
    if (!range) return false;
    const written = await idsHeldBy(deps, tableId, commits, range);
    const before = pending.length;
    pending = pending.filter((row) => !written.has(idOf(row)));
    return pending.length < before;
  };
  const commitOf = async (chosen: Row[], version: number): Promise<Commit> => {
    request.signal?.throwIfAborted();
    const files = await request.writeFiles(chosen);
    return {
      operation: 'WRITE',
      metadata: version === 0 ? metadataAction(request.metadata) : null,
      adds: files.adds,
      removes: [],
      txn: txn ? { appId: txn.appId, version: txn.version, lastUpdated: now().getTime() } : null,
      rows: chosen.length,
      bytes: files.bytes,
      messageIds: identify ? chosen.map(idOf) : [],
      ...(identify ? { ingested: rangeOf(chosen) } : {}),
    };
  };
  const discard = (commit: Commit) => deps.storage.delete(commit.adds.map((add) => add.path));

  const result = await commitNext(deps, {
    tableId,
    attempt: request.attempt,
    expects: request.metadata,
    ...(request.addsColumns ? { addsColumns: true } : {}),
    discard,
    ...(txn ? { readVersion: txn.readVersion } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    async build(state) {
      if (request.keeps) {
        const keeps = request.keeps(state.metadata ? state : { ...state, metadata: metadataAction(request.metadata) });
        const before = pending.length;
        pending = pending.filter(keeps);
        expired += before - pending.length;
      }
      if (identify) await dropWritten(await commitsSince(deps.storage, state, since));
      if (pending.length === 0) return null;
      return commitOf(pending, state.version + 1);
    },
    async judge(winner, commit) {
      const nextVersion = winner.version + 1;
      const withMetadata = (next: Commit): Commit => ({
        ...next,
        metadata: nextVersion === 0 ? next.metadata : null,
      });
      if (txn && winner.actions.some((action) => 'txn' in action && action.txn.appId === txn.appId)) {
        const taken = winner.actions.some(
          (action) => 'txn' in action && action.txn.appId === txn.appId && action.txn.version > txn.after,
        );
        if (taken) {
          await discard(commit);
          return { action: 'abandon' };
        }
      }
      if (!identify || !(await dropWritten([winner.summary])))
        return { action: 'replace', commit: withMetadata(commit) };
      await discard(commit);
      if (pending.length === 0) return { action: 'abandon' };
      return { action: 'replace', commit: await commitOf(pending, nextVersion) };
    },
  });
  if (!result) return { version: null, written: 0, skipped: request.rows.length - expired, expired };
  return {
    version: result.version,
    written: pending.length,
    skipped: request.rows.length - pending.length - expired,
    expired,
  };
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
    const body = await storage.getIfExists(logFileName(version));
    if (!body) break;
    const summary = commitSummary(version, parseCommit(body.toString('utf8')));
    older.unshift(summary);
    reached = summary.timestamp ?? reached;
    version--;
  }
  return [...older.filter((commit) => (commit.timestamp ?? Number.POSITIVE_INFINITY) >= since), ...recent];
}

export interface RearrangeRequest {
  tableId: string;
  /** The version the plan was made from: its files are live there. */
  readVersion: number;
  removes: RemoveFile[];
  adds: AddFile[];
  bytes: number;
  operation: Extract<Operation, 'OPTIMIZE'>;
}

/**
 * Commit an OPTIMIZE: the removes (dataChange false) and the adds that hold the same rows, in one
 * version. It commits only while every file it removes is still live: when any commit after the
 * plan (Tributary's or another engine's, an OPTIMIZE or a DELETE) removed one of them, it gives up
 * (its new files are deleted) and answers null. Appends in between do not matter: they only add files.
 */
export async function commitRearrangement(deps: CommitDeps, request: RearrangeRequest): Promise<number | null> {
  const removing = new Set(request.removes.map((remove) => remove.path));
  const commit: Commit = {
    operation: request.operation,
    metadata: null,
    adds: request.adds,
    removes: request.removes,
    txn: null,
    rows: 0,
    bytes: request.bytes,
    messageIds: [],
  };
  const result = await commitNext(deps, {
    tableId: request.tableId,
    attempt: 1,
    readVersion: request.readVersion,
    discard: async () => deps.storage.delete(request.adds.map((add) => add.path)),
    build: async () => commit,
    async judge(winner) {
      const conflict = winner.actions.some((action) => 'remove' in action && removing.has(action.remove.path));
      return conflict ? { action: 'abandon' } : { action: 'retry' };
    },
  });
  if (!result) {
    await deps.storage.delete(request.adds.map((add) => add.path));
    return null;
  }
  return result.version;
}

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
 * empties expired days this way (DELETE), a pipeline's ranged re-run rewrites its days (WRITE,
 * mode Overwrite): re-running it replaces the same days again, never adding a row twice.
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
      removes: removing.map((file) => ({
        path: file.path,
        deletionTimestamp: at(),
        dataChange: true,
        extendedFileMetadata: true,
        partitionValues: file.partitionValues,
        size: file.size,
        ...(file.deletionVector ? { deletionVector: file.deletionVector } : {}),
        ...(file.baseRowId === undefined ? {} : { baseRowId: file.baseRowId }),
        ...(file.defaultRowCommitVersion === undefined
          ? {}
          : { defaultRowCommitVersion: file.defaultRowCommitVersion }),
      })),
      txn: txn ? { appId: txn.appId, version: txn.version, lastUpdated: at() } : null,
      rows: request.rows,
      bytes: request.bytes,
      messageIds: [],
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
      messageIds: [],
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

/** The store is the arbiter: `_delta_log/<version>.json` is written only if absent. */
export function conditionalArbiter(storage: Pick<TableStorage, 'putIfAbsent'>): LogArbiter {
  return {
    settle: async () => null,
    write: (_, version, content) => storage.putIfAbsent(logFileName(version), content, 'application/json'),
  };
}

/**
 * For a store that does not honour conditional writes, the coordination of Delta's
 * S3DynamoDBLogStore: the commit goes to a temporary object, a conditional put of the version's
 * claim in DynamoDB is the commit, and copying it to `_delta_log/<version>.json` finishes it.
 * Anyone finding a claim unfinished finishes it; nobody claims version n+1 before n is finished.
 * No log file is overwritten by Tributary, but another engine writing to such a table bypasses the
 * claims: docs/delta-tables.md ("Commits") says not to.
 */
export function coordinatedArbiter(storage: TableStorage, claims: VersionClaims): LogArbiter {
  const finish = async (tableId: string, claim: Claim) => {
    if (claim.complete) return;
    // Copied only when not there yet: on a store whose writes are not atomic, rewriting a commit
    // file could hand a concurrent reader half of it.
    if (!(await storage.getIfExists(logFileName(claim.version)))) {
      await storage.put(logFileName(claim.version), await storage.get(claim.tempKey), 'application/json');
    }
    await claims.markComplete(tableId, claim.version);
  };
  return {
    async settle(tableId) {
      const latest = await claims.latest(tableId);
      if (!latest) return null;
      await finish(tableId, latest);
      return latest.version;
    },
    async write(tableId, version, content, runId) {
      const tempKey = `_delta_log/.tmp/${logFileName(version).slice('_delta_log/'.length)}.${randomUUID()}`;
      await storage.put(tempKey, content, 'application/json');
      const claim: Claim = { version, runId, tempKey, complete: false };
      if (await claims.claim(tableId, claim)) {
        await finish(tableId, claim);
        return true;
      }
      await storage.delete([tempKey]);
      const winner = await claims.claimAt(tableId, version);
      if (winner) await finish(tableId, winner);
      return false;
    },
  };
}

/**
 * Whether the store honours `If-None-Match: *`: a fresh object is written once, and the second
 * conditional write of it must be refused. A store that ignores the condition (it writes twice) or
 * says it does not implement it does not support conditional writes. Asked once per store.
 */
export async function probeConditionalWrites(storage: Pick<TableStorage, 'putIfAbsent' | 'delete'>): Promise<boolean> {
  const key = `_delta_log/.tmp/conditional-write-probe.${randomUUID()}`;
  try {
    if (!(await storage.putIfAbsent(key, 'first', 'text/plain'))) return false;
    return !(await storage.putIfAbsent(key, 'second', 'text/plain'));
  } catch (error) {
    if (error instanceof ConditionalWritesUnsupported) return false;
    throw error;
  } finally {
    await storage.delete([key]).catch(() => undefined);
  }
}
