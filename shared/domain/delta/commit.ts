/**
 * Committing to a Delta table on any S3-compatible store, coordinated through DynamoDB in the manner
 * of Delta's S3DynamoDBLogStore:
 *
 *   1. the commit's JSON goes to a temporary object `_delta_log/.tmp/<version>.json.<uuid>`;
 *   2. a log entry for `<version>` is put in the table only if absent: that conditional write IS the
 *      commit, so two writers can never both own a version and no log file is ever overwritten with
 *      other content;
 *   3. finalising copies the JSON to `_delta_log/<version>.json`, records the message ids as
 *      written, and marks the entry complete. Anyone who finds an incomplete entry finalises it
 *      (every step is idempotent), and nobody claims version n+1 before version n is complete, so
 *      only the latest entry can ever be incomplete.
 *
 * Exactly-once for envelopes (WebhookMerge): a message id is skipped when a marker says it was
 * written (all versions up to the snapshot are complete, so their markers exist), and when a claim
 * loses a race, the winners' entries are checked for the same ids before trying again.
 */
import { randomUUID } from 'node:crypto';
import { type AddFile, commitContent, logFileName, type TableMetadata } from './log.ts';

export interface LogEntry {
  version: number;
  /** Identifies the write that made this version (a run in the data set's history). */
  runId: string;
  tempKey: string;
  complete: boolean;
  messageIds: string[];
  adds: AddFile[];
  rows: number;
  bytes: number;
  startedAt: string;
  /** Set when the entry is complete. */
  completedAt?: string | null;
  attempt: number;
}

export interface LogCoordinator {
  /** The highest entry of the table, complete or not (strongly consistent). */
  latestEntry(tableId: string): Promise<LogEntry | null>;
  entriesAfter(tableId: string, version: number): Promise<LogEntry[]>;
  /** Puts the entry only if its version is free; false when another writer owns it. */
  claimVersion(tableId: string, entry: LogEntry): Promise<boolean>;
  /** Marks the entry complete; true only for the call that made the change (exactly once). */
  markComplete(tableId: string, version: number, now: Date): Promise<boolean>;
  writtenMessageIds(tableId: string, messageIds: string[]): Promise<Set<string>>;
  recordWrittenMessageIds(tableId: string, messageIds: string[]): Promise<void>;
}

export interface TableStorage {
  put(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<void>;
  get(relativeKey: string): Promise<Buffer>;
  delete(relativeKeys: string[]): Promise<void>;
}

export interface CommitHooks {
  /** Runs once per version, for whoever completes it: run history, data set version, counters. */
  onCompleted(entry: LogEntry): Promise<void>;
}

export interface CommitDeps {
  log: LogCoordinator;
  storage: TableStorage;
  hooks: CommitHooks;
  now?: () => Date;
}

export interface PendingRow {
  messageId: string;
}

/**
 * Temporary commit files stay where they are, as with Delta's S3DynamoDBLogStore: another writer
 * may be reading one to finish the same commit, and readers ignore `_delta_log/.tmp/`. A lifecycle
 * rule on the tenant's bucket can expire them; deleting the data set removes them.
 */
async function finalize(deps: CommitDeps, tableId: string, entry: LogEntry): Promise<void> {
  const content = await deps.storage.get(entry.tempKey);
  await deps.storage.put(logFileName(entry.version), content, 'application/json');
  if (entry.messageIds.length > 0) await deps.log.recordWrittenMessageIds(tableId, entry.messageIds);
  if (await deps.log.markComplete(tableId, entry.version, deps.now?.() ?? new Date()))
    await deps.hooks.onCompleted(entry);
}

/** Completes the latest entry if its writer stopped half-way; answers the table's current version. */
export async function recoverTable(deps: CommitDeps, tableId: string): Promise<number> {
  const latest = await deps.log.latestEntry(tableId);
  if (!latest) return -1;
  if (!latest.complete) await finalize(deps, tableId, latest);
  return latest.version;
}

export interface CommitRequest<Row extends PendingRow> {
  tableId: string;
  metadata: TableMetadata;
  rows: Row[];
  /** Writes data files for the rows (never empty) and describes them as add actions. */
  writeFiles(rows: Row[]): Promise<{ adds: AddFile[]; bytes: number }>;
  /** Envelopes carry message ids to deduplicate; pipeline outputs do not. */
  deduplicate: boolean;
  attempt: number;
}

export interface CommitResult {
  version: number | null;
  written: number;
  /** Rows already in the table (redeliveries, duplicates): acknowledged without a new row. */
  skipped: number;
}

/**
 * Append rows to a Delta table, exactly once per message id.
 * Input: the table, its metadata (for version 0), the rows, a file writer. Output: the version.
 *  1. Finalise a commit left half-done; the table's version is the snapshot.
 *  2. Drop rows whose message id is already written (or twice in this batch).
 *  3. Write the data files, then claim the next version; on a lost race, finalise the winners,
 *     drop rows they wrote, rewrite the files if that changed anything, and claim again.
 *  4. Finalise the commit.
 */
export async function appendToTable<Row extends PendingRow>(
  deps: CommitDeps,
  request: CommitRequest<Row>,
): Promise<CommitResult> {
  const { tableId } = request;
  const now = () => deps.now?.() ?? new Date();
  let snapshot = await recoverTable(deps, tableId);

  let rows = request.rows;
  if (request.deduplicate) {
    const unique = new Map<string, Row>();
    for (const row of rows) if (!unique.has(row.messageId)) unique.set(row.messageId, row);
    const written = await deps.log.writtenMessageIds(tableId, [...unique.keys()]);
    rows = [...unique.values()].filter((row) => !written.has(row.messageId));
  }
  if (rows.length === 0) return { version: snapshot >= 0 ? snapshot : null, written: 0, skipped: request.rows.length };

  let files = await request.writeFiles(rows);
  const startedAt = now().toISOString();
  const runId = randomUUID();
  for (;;) {
    const version = snapshot + 1;
    const tempKey = `_delta_log/.tmp/${logFileName(version).slice('_delta_log/'.length)}.${randomUUID()}`;
    await deps.storage.put(
      tempKey,
      commitContent({
        version,
        metadata: request.metadata,
        adds: files.adds,
        timestamp: now().getTime(),
        operation: 'WRITE',
      }),
      'application/json',
    );
    const entry: LogEntry = {
      version,
      runId,
      tempKey,
      complete: false,
      messageIds: request.deduplicate ? rows.map((row) => row.messageId) : [],
      adds: files.adds,
      rows: rows.length,
      bytes: files.bytes,
      startedAt,
      attempt: request.attempt,
    };
    if (await deps.log.claimVersion(tableId, entry)) {
      await finalize(deps, tableId, entry);
      return { version, written: rows.length, skipped: request.rows.length - rows.length };
    }

    const winners = await deps.log.entriesAfter(tableId, snapshot);
    for (const winner of winners) if (!winner.complete) await finalize(deps, tableId, winner);
    snapshot = Math.max(snapshot, ...winners.map((winner) => winner.version));
    await deps.storage.delete([tempKey]);
    if (request.deduplicate) {
      const takenByWinners = new Set(winners.flatMap((winner) => winner.messageIds));
      const remaining = rows.filter((row) => !takenByWinners.has(row.messageId));
      if (remaining.length !== rows.length) {
        await deps.storage.delete(files.adds.map((add) => add.path));
        rows = remaining;
        if (rows.length === 0) return { version: snapshot, written: 0, skipped: request.rows.length };
        files = await request.writeFiles(rows);
      }
    }
  }
}
