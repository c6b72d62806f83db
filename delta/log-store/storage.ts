/**
 * What the library needs from the application, in one place: where a table's objects are
 * (TableStorage), what the application keeps about its commits (CommitRecords), and, for a store
 * that does not honour conditional writes, who holds each version (VersionClaims). LogArbiter is
 * how a commit becomes a version; the library makes one from storage (conditionalArbiter) or from
 * storage and claims (coordinatedArbiter), and an application may wrap it.
 */
import type { Operation, Txn } from '../kernel/log.ts';

/** Objects under the table's root, by keys relative to it. */
export interface TableStorage {
  put(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<void>;
  /**
   * Writes the object only when no object has that key (If-None-Match: *): true when written, false
   * when one exists. Throws ConditionalWritesUnsupported when the store does not honour the condition.
   */
  putIfAbsent(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<boolean>;
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

/** A version Tributary committed: what the run history shows and what the exactly-once check reads. */
export interface LogEntry {
  version: number;
  /** Identifies the write that made this version (a run in the data set's history). */
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

/** What Tributary keeps about its commits (DynamoDB, or an in-memory stand-in). */
export interface CommitRecords {
  /** Before an attempt: the message ids a run's commit will hold, replacing what the run held before. */
  holdIds(tableId: string, runId: string, messageIds: string[]): Promise<void>;
  /** The message ids the runs' commits hold, by run id (runs unknown here are left out). */
  idsOf(tableId: string, runIds: string[]): Promise<Map<string, string[]>>;
  /** After the commit: the version in the run history. */
  record(tableId: string, entry: LogEntry): Promise<void>;
}

/** Decides which commit becomes a version. */
export interface LogArbiter {
  /**
   * The version the snapshot must reach before a commit: null to trust the snapshot as it is (the
   * store's own condition catches anything newer), or the newest claimed version, whose log file
   * exists once this answers (a claim left half-way by a stopped writer is finished here).
   */
  settle(tableId: string): Promise<number | null>;
  /** Makes `content` the table's `version` unless another commit holds it. */
  write(tableId: string, version: number, content: string, runId: string): Promise<boolean>;
}

/** A version claimed in DynamoDB, for a store without conditional writes. */
export interface Claim {
  version: number;
  runId: string;
  /** The commit's content under a name no reader looks at, until it is copied to the log. */
  tempKey: string;
  complete: boolean;
}

export interface VersionClaims {
  /** The highest claim of the table (strongly consistent); null when there is none (new, or expired). */
  latest(tableId: string): Promise<Claim | null>;
  claimAt(tableId: string, version: number): Promise<Claim | null>;
  /** Puts the claim only if its version is free; false when another writer holds it. */
  claim(tableId: string, claim: Claim): Promise<boolean>;
  markComplete(tableId: string, version: number): Promise<void>;
}
