/**
 * Committing to a Delta table on any S3-compatible store, coordinated through DynamoDB in the manner
 * of Delta's S3DynamoDBLogStore:
 *
 *   1. the commit's JSON goes to a temporary object `_delta_log/.tmp/<version>.json.<uuid>`;
 *   2. a log entry for `<version>` is put in the table only if absent: that conditional write IS the
 *      commit, so two writers can never both own a version and no log file is ever overwritten with
 *      other content;
 *   3. finalising copies the JSON to `_delta_log/<version>.json`, records the version's message ids
 *      and marks the entry complete. Anyone who finds an incomplete entry finalises it (every step
 *      is idempotent), and nobody claims version n+1 before version n is complete, so only the
 *      latest entry can ever be incomplete.
 *
 * Exactly-once for envelopes: a message can only be in versions claimed after it was ingested, so
 * a batch is checked against the message ids of the versions claimed since its oldest `ingested_at`
 * (less a margin for clocks). Claim times never decrease from one version to the next, which makes
 * "claimed since" a suffix of the log. The ids travel in the temporary commit (so a finaliser has
 * them) and are recorded once per version, compactly, before the version is marked complete; a
 * claim that loses a race checks the winners' ids before trying again.
 * Pipelines append with a Delta `txn` (appId, version) instead: their progress is one number.
 */
import { randomUUID } from 'node:crypto';
import {
  type AddFile,
  commitContent,
  logFileName,
  type Metadata,
  metadataAction,
  type Operation,
  type RemoveFile,
  type TableMetadata,
  type Txn,
} from './log.ts';

export interface LogEntry {
  version: number;
  /** Identifies the write that made this version (a run in the data set's history). */
  runId: string;
  tempKey: string;
  complete: boolean;
  /** Milliseconds; never less than the previous version's, so "claimed since t" is a suffix of the log. */
  claimedAt: number;
  operation: Operation;
  /** Rows the version added to the table (0 for OPTIMIZE, which only rearranges them). */
  rows: number;
  bytes: number;
  files: number;
  removes: number;
  txn: Txn | null;
  startedAt: string;
  /** Set when the entry is complete. */
  completedAt: string | null;
  attempt: number;
}

export interface LogCoordinator {
  /** The highest entry of the table, complete or not (strongly consistent); null when there is none (new, or expired). */
  latestEntry(tableId: string): Promise<LogEntry | null>;
  entriesAfter(tableId: string, version: number): Promise<LogEntry[]>;
  /** Puts the entry only if its version is free; false when another writer owns it. */
  claimVersion(tableId: string, entry: LogEntry): Promise<boolean>;
  /** Records which message ids a claimed version holds (idempotent; before it is marked complete). */
  recordMessageIds(tableId: string, entry: LogEntry, messageIds: string[]): Promise<void>;
  /** Marks the entry complete; true only for the call that made the change (exactly once). */
  markComplete(tableId: string, entry: LogEntry, now: Date): Promise<boolean>;
  /**
   * Which of these message ids a completed version holds, among the versions claimed at or after
   * `since` (milliseconds), up to the newest. The coordinator keeps ids for a bounded time (its
   * entries' lifetime); versions older than that are no longer checked.
   */
  writtenMessageIds(tableId: string, messageIds: string[], since: number): Promise<Set<string>>;
}

export interface TableStorage {
  put(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<void>;
  get(relativeKey: string): Promise<Buffer>;
  /** null when the object does not exist. */
  getIfExists(relativeKey: string): Promise<Buffer | null>;
  delete(relativeKeys: string[]): Promise<void>;
  /** Keys under a prefix in key order, after `startAfter` when given; `limit` stops early. */
  list(
    relativePrefix: string,
    options?: { startAfter?: string; limit?: number },
  ): Promise<{ key: string; size: number; lastModified: number }[]>;
}

export interface CommitHooks {
  /** Runs once per version, for whoever completes it: run history, data set version, counters, checkpoints. */
  onCompleted(entry: LogEntry): Promise<void>;
}

export interface CommitDeps {
  log: LogCoordinator;
  storage: TableStorage;
  hooks: CommitHooks;
  now?: () => Date;
}

/** Clocks of the ingest and writer functions may disagree by this much; checks look back this far further. */
export const clockMarginMs = 5 * 60_000;

/** The private line of a temporary commit that carries its message ids; never copied into the Delta log. */
const idsLinePrefix = '{"tributaryMessageIds":';

function temporaryCommit(delta: string, messageIds: string[]): string {
  return messageIds.length > 0 ? `${delta}${JSON.stringify({ tributaryMessageIds: messageIds })}\n` : delta;
}

function splitTemporaryCommit(content: string): { delta: string; messageIds: string[] } {
  const lines = content.split('\n');
  const idsLine = lines.find((line) => line.startsWith(idsLinePrefix));
  if (!idsLine) return { delta: content, messageIds: [] };
  return {
    delta: `${lines.filter((line) => line !== idsLine && line !== '').join('\n')}\n`,
    messageIds: (JSON.parse(idsLine) as { tributaryMessageIds: string[] }).tributaryMessageIds,
  };
}

/**
 * `written`: the temporary commit's content, when the caller is the writer that just wrote it. A
 * writer finishing someone else's commit copies it only when the copy is not there yet: on a store
 * whose writes are not atomic (the local S3 stand-in writes in place), rewriting a commit file
 * could hand a concurrent reader half of it.
 */
async function finalize(deps: CommitDeps, tableId: string, entry: LogEntry, written?: string): Promise<void> {
  const content = written ?? (await deps.storage.get(entry.tempKey)).toString('utf8');
  const { delta, messageIds } = splitTemporaryCommit(content);
  if (written !== undefined || !(await deps.storage.getIfExists(logFileName(entry.version))))
    await deps.storage.put(logFileName(entry.version), delta, 'application/json');
  if (messageIds.length > 0) await deps.log.recordMessageIds(tableId, entry, messageIds);
  if (await deps.log.markComplete(tableId, entry, deps.now?.() ?? new Date())) {
    await deps.hooks.onCompleted({ ...entry, complete: true });
  }
}

/**
 * The table's latest complete version (-1 for none), finishing a commit whose writer stopped
 * half-way. With no entry left in the coordinator (a table idle past the entries' lifetime), the
 * store's own log says where the table is.
 */
export async function recoverTable(deps: CommitDeps, tableId: string): Promise<{ version: number; claimedAt: number }> {
  const latest = await deps.log.latestEntry(tableId);
  if (!latest) return { version: await latestVersionInStore(deps.storage), claimedAt: 0 };
  if (!latest.complete) await finalize(deps, tableId, latest);
  return { version: latest.version, claimedAt: latest.claimedAt };
}

/** The newest `<version>.json` in the store: from `_last_checkpoint` on, probing forwards. */
export async function latestVersionInStore(storage: Pick<TableStorage, 'getIfExists' | 'list'>): Promise<number> {
  const hint = await storage.getIfExists('_delta_log/_last_checkpoint');
  const from = hint ? Number((JSON.parse(hint.toString('utf8')) as { version: number }).version) : -1;
  let latest = from;
  for (const object of await storage.list('_delta_log/', { startAfter: logFileName(from + 1).slice(0, -5) })) {
    const match = /\/(\d{20})\.json$/.exec(object.key);
    if (match) latest = Math.max(latest, Number(match[1]));
  }
  return latest;
}

interface Commit {
  operation: Operation;
  metadata: Metadata | null;
  adds: AddFile[];
  removes: RemoveFile[];
  txn: Txn | null;
  rows: number;
  bytes: number;
  messageIds: string[];
}

/**
 * Claims the next version for a prepared commit, finalising it on success. On a lost race the
 * winners are finalised and `onLostRace` decides: the (possibly changed) commit to try again, or
 * null to give up. Answers the version committed, or null when given up.
 */
async function claimNextVersion(
  deps: CommitDeps,
  tableId: string,
  initial: Commit,
  attempt: number,
  base: { version: number; claimedAt: number },
  onLostRace: (winners: LogEntry[], commit: Commit) => Promise<Commit | null>,
): Promise<{ version: number; commit: Commit } | { version: null; snapshot: number }> {
  const now = () => deps.now?.() ?? new Date();
  const startedAt = now().toISOString();
  const runId = randomUUID();
  let commit = initial;
  let snapshot = base;
  for (;;) {
    const version = snapshot.version + 1;
    const tempKey = `_delta_log/.tmp/${logFileName(version).slice('_delta_log/'.length)}.${randomUUID()}`;
    const timestamp = now().getTime();
    const delta = commitContent({
      version,
      metadata: commit.metadata,
      adds: commit.adds,
      removes: commit.removes,
      txn: commit.txn,
      timestamp,
      operation: commit.operation,
    });
    const temporary = temporaryCommit(delta, commit.messageIds);
    await deps.storage.put(tempKey, temporary, 'application/json');
    const entry: LogEntry = {
      version,
      runId,
      tempKey,
      complete: false,
      claimedAt: Math.max(timestamp, snapshot.claimedAt),
      operation: commit.operation,
      rows: commit.rows,
      bytes: commit.bytes,
      files: commit.adds.length,
      removes: commit.removes.length,
      txn: commit.txn,
      startedAt,
      completedAt: null,
      attempt,
    };
    if (await deps.log.claimVersion(tableId, entry)) {
      await finalize(deps, tableId, entry, temporary);
      return { version, commit };
    }

    const winners = await deps.log.entriesAfter(tableId, snapshot.version);
    for (const winner of winners) if (!winner.complete) await finalize(deps, tableId, winner);
    for (const winner of winners)
      if (winner.version > snapshot.version) snapshot = { version: winner.version, claimedAt: winner.claimedAt };
    await deps.storage.delete([tempKey]);
    const next = await onLostRace(winners, commit);
    if (!next) return { version: null, snapshot: snapshot.version };
    commit = next;
  }
}

export interface AppendRequest<Row> {
  tableId: string;
  /** The table as the data set describes it: its version 0. */
  metadata: TableMetadata;
  rows: Row[];
  /** Writes data files for the rows (never empty) and describes them as add actions. */
  writeFiles(rows: Row[]): Promise<{ adds: AddFile[]; bytes: number }>;
  /** Envelopes: exactly once per message id, checked against the versions claimed since each was ingested. */
  identify?: (row: Row) => { messageId: string; ingestedAt: number };
  /**
   * Pipelines: exactly once per run of an application, recorded as a Delta txn. The commit is
   * abandoned when a version after `readVersion` (the snapshot the run started from) already
   * carries a txn of the same appId beyond `after`.
   */
  txn?: { appId: string; version: number; after: number; readVersion: number };
  attempt: number;
}

export interface AppendResult {
  version: number | null;
  written: number;
  /** Rows already in the table (redeliveries, duplicates): acknowledged without a new row. */
  skipped: number;
}

/**
 * Append rows to a Delta table, exactly once.
 * Input: the table, its metadata (for version 0), the rows, a file writer. Output: the version.
 *  1. Finalise a commit left half-done; the table's version is the snapshot.
 *  2. Envelopes: drop rows whose message id is already in a version claimed since the oldest row's
 *     ingest (or twice in this batch). Pipelines: give up if their txn shows the rows are in.
 *  3. Write the data files, then claim the next version; on a lost race, finalise the winners,
 *     drop rows they wrote, rewrite the files if that changed anything, and claim again.
 *  4. Finalise the commit.
 */
export async function appendToTable<Row>(deps: CommitDeps, request: AppendRequest<Row>): Promise<AppendResult> {
  const { tableId, identify } = request;
  const base = await recoverTable(deps, tableId);
  const idOf = (row: Row) => identify?.(row).messageId ?? '';

  let rows = request.rows;
  let since = Number.POSITIVE_INFINITY;
  if (identify) {
    const unique = new Map<string, Row>();
    for (const row of rows) {
      const { messageId, ingestedAt } = identify(row);
      if (!unique.has(messageId)) unique.set(messageId, row);
      since = Math.min(since, ingestedAt - clockMarginMs);
    }
    const written = await deps.log.writtenMessageIds(tableId, [...unique.keys()], since);
    rows = [...unique.values()].filter((row) => !written.has(idOf(row)));
  }
  const txn = request.txn;
  const txnTaken = (entries: LogEntry[]) =>
    txn !== undefined && entries.some((entry) => entry.txn?.appId === txn.appId && entry.txn.version > txn.after);
  if (txn && base.version > txn.readVersion && txnTaken(await deps.log.entriesAfter(tableId, txn.readVersion)))
    return { version: base.version, written: 0, skipped: request.rows.length };
  if (rows.length === 0)
    return { version: base.version >= 0 ? base.version : null, written: 0, skipped: request.rows.length };

  const commitOf = async (pending: Row[]): Promise<Commit> => {
    const files = await request.writeFiles(pending);
    return {
      operation: 'WRITE',
      metadata: null,
      adds: files.adds,
      removes: [],
      txn: txn ? { appId: txn.appId, version: txn.version, lastUpdated: (deps.now?.() ?? new Date()).getTime() } : null,
      rows: pending.length,
      bytes: files.bytes,
      messageIds: identify ? pending.map(idOf) : [],
    };
  };
  const withMetadata = (commit: Commit, version: number): Commit => ({
    ...commit,
    metadata: version === 0 ? metadataAction(request.metadata) : null,
  });

  let pending = rows;
  const first = await commitOf(pending);
  const result = await claimNextVersion(
    deps,
    tableId,
    withMetadata(first, base.version + 1),
    request.attempt,
    base,
    async (winners, commit) => {
      const next = Math.max(...winners.map((winner) => winner.version)) + 1;
      if (txnTaken(winners)) {
        await deps.storage.delete(commit.adds.map((add) => add.path));
        return null;
      }
      if (!identify) return withMetadata(commit, next);
      const taken = await deps.log.writtenMessageIds(tableId, pending.map(idOf), since);
      const remaining = pending.filter((row) => !taken.has(idOf(row)));
      if (remaining.length === pending.length) return withMetadata(commit, next);
      await deps.storage.delete(commit.adds.map((add) => add.path));
      pending = remaining;
      if (pending.length === 0) return null;
      return withMetadata(await commitOf(pending), next);
    },
  );
  if (result.version === null) return { version: result.snapshot, written: 0, skipped: request.rows.length };
  return { version: result.version, written: pending.length, skipped: request.rows.length - pending.length };
}

export interface RearrangeRequest {
  tableId: string;
  /** The version the plan was made from: its files are live there. */
  readVersion: number;
  removes: RemoveFile[];
  adds: AddFile[];
  bytes: number;
  /** The commits after `readVersion` that removed files (others only appended): their removed paths. */
  removedAfter(entries: LogEntry[]): Promise<Set<string>>;
}

/**
 * Commit an OPTIMIZE: the removes (dataChange false) and the adds that hold the same rows, in one
 * version. It commits only while every file it removes is still live; when a concurrent commit
 * removed one of them, it gives up (its new files are deleted) and answers null. Appends that won
 * a race in between do not matter: they only add files.
 */
export async function commitRearrangement(deps: CommitDeps, request: RearrangeRequest): Promise<number | null> {
  const base = await recoverTable(deps, request.tableId);
  const removing = new Set(request.removes.map((remove) => remove.path));
  const stillLive = async (entries: LogEntry[]) => {
    const removed = await request.removedAfter(entries.filter((entry) => entry.removes > 0));
    return ![...removing].some((path) => removed.has(path));
  };
  const giveUp = async () => {
    await deps.storage.delete(request.adds.map((add) => add.path));
    return null;
  };
  if (
    base.version > request.readVersion &&
    !(await stillLive(await deps.log.entriesAfter(request.tableId, request.readVersion)))
  )
    return giveUp();
  const result = await claimNextVersion(
    deps,
    request.tableId,
    {
      operation: 'OPTIMIZE',
      metadata: null,
      adds: request.adds,
      removes: request.removes,
      txn: null,
      rows: 0,
      bytes: request.bytes,
      messageIds: [],
    },
    1,
    base,
    async (winners, commit) => ((await stillLive(winners)) ? commit : null),
  );
  if (result.version === null) return giveUp();
  return result.version;
}

/**
 * Commit a change of the table's metadata on top of whatever the latest version is: `change` gets
 * the version it builds on and is asked again when another writer won that version.
 */
export async function commitMetadata(
  deps: CommitDeps,
  tableId: string,
  change: (latest: number) => Promise<Metadata>,
): Promise<{ version: number; metadata: Metadata }> {
  const base = await recoverTable(deps, tableId);
  let metadata: Metadata | null = null;
  const commitFor = async (latest: number): Promise<Commit> => {
    metadata = await change(latest);
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
  const result = await claimNextVersion(deps, tableId, await commitFor(base.version), 1, base, async (winners) =>
    commitFor(Math.max(...winners.map((winner) => winner.version))),
  );
  if (result.version === null || !metadata) throw new Error('A metadata change cannot be given up');
  return { version: result.version, metadata };
}
