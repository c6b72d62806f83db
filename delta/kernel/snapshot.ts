/**
 * A table's state at a version, as every Delta reader builds it: the newest checkpoint not after
 * that version (found through `_delta_log/_last_checkpoint`), then the JSON commits after it, in
 * order (protocol "Action Reconciliation": the latest protocol and metadata win, the latest txn per
 * appId and domain metadata per domain win, a logical file is live when its newest action is an add,
 * a tombstone when it is a remove).
 *
 * Logs are read as other writers write them: a logical file is its path and its deletion vector
 * (a DELETE that marks rows of a file removes (path, no DV) and adds (path, DV)), paths are URIs,
 * checkpoints come classic, multi-part (`<v>.checkpoint.<i>.<n>.parquet`, used only when whole) or
 * UUID-named V2 (`<v>.checkpoint.<uuid>.json|parquet`, with `sidecar` files in `_delta_log/_sidecars/`),
 * and whatever the protocol does not name is ignored.
 */

import * as z from 'zod';
import { VersionNotFound } from '../errors.ts';
import { deletionVectorId } from './deletion-vectors.ts';
import { readJson, versionNumber } from './json.ts';
import {
  type Action,
  type AddFile,
  type CheckpointFile,
  type CommitSummary,
  checkpointFileName,
  checkpointFileOf,
  checkpointPartNames,
  commitSummary,
  type DomainMetadata,
  isAbsolutePath,
  lastCheckpointFile,
  logFileName,
  type Metadata,
  type Protocol,
  parseCommit,
  type RemoveFile,
  sidecarDirectory,
  type Txn,
} from './log.ts';
import type { TableStorage } from './storage.ts';
import { tableConfig } from './table-config.ts';

export interface TableState {
  /** -1 before version 0. */
  version: number;
  protocol: Protocol | null;
  metadata: Metadata | null;
  /** Live files by path (each path is live with at most one deletion vector). */
  files: Map<string, AddFile>;
  /** Removed logical files not yet vacuumed, by tombstoneKey (the path, and the DV the removed file had). */
  tombstones: Map<string, RemoveFile>;
  txns: Map<string, Txn>;
  /** Metadata domains by name (removed ones are dropped): a writer keeps every one it does not own. */
  domainMetadata: Map<string, DomainMetadata>;
  /** The inCommitTimestamp of the commit at `version`, when it has one. */
  inCommitTimestamp: number | null;
  /**
   * The commits this state was brought forward through, oldest first (not those a checkpoint
   * summed up): who wrote each and when. The newest gives the next commit its earliest timestamp.
   */
  recent: CommitSummary[];
}

/** How many commit summaries a state keeps. */
const recentCommitsKept = 200;

export function emptyState(): TableState {
  return {
    version: -1,
    protocol: null,
    metadata: null,
    files: new Map(),
    tombstones: new Map(),
    txns: new Map(),
    domainMetadata: new Map(),
    inCommitTimestamp: null,
    recent: [],
  };
}

export function copyState(state: TableState): TableState {
  return {
    ...state,
    files: new Map(state.files),
    tombstones: new Map(state.tombstones),
    txns: new Map(state.txns),
    domainMetadata: new Map(state.domainMetadata),
    recent: [...state.recent],
  };
}

/** Applies one JSON commit to the state, in place, and remembers who made it. */
export function applyCommit(state: TableState, version: number, actions: Action[]): TableState {
  applyActions(state, version, actions);
  state.recent.push(commitSummary(version, actions));
  if (state.recent.length > recentCommitsKept) state.recent.splice(0, state.recent.length - recentCommitsKept);
  return state;
}

/**
 * The newest commit timestamp the state knows (its in-commit timestamp, else the newest commit
 * read; 0 when none): a later commit's timestamp is never below it.
 */
export function latestTimestamp(state: TableState): number {
  return Math.max(state.inCommitTimestamp ?? 0, state.recent.at(-1)?.timestamp ?? 0);
}

/** A logical file's key among the tombstones: its path, and its DV's id when it has one. */
export function tombstoneKey(file: Pick<RemoveFile, 'path' | 'deletionVector'>): string {
  const dv = deletionVectorId(file.deletionVector);
  return dv === null ? file.path : `${file.path}\u0000${dv}`;
}

/**
 * Applies one version's actions (a commit, or a whole checkpoint) to the state, in place. The order
 * of a commit's actions does not matter: an add replaces its path's entry, and a remove takes a live
 * file out only when it names the same (path, DV).
 */
export function applyActions(state: TableState, version: number, actions: Action[]): TableState {
  let inCommitTimestamp: number | null = null;
  for (const action of actions) {
    if ('add' in action) {
      state.files.set(action.add.path, action.add);
      state.tombstones.delete(tombstoneKey(action.add));
    } else if ('remove' in action) {
      const live = state.files.get(action.remove.path);
      if (live && deletionVectorId(live.deletionVector) === deletionVectorId(action.remove.deletionVector))
        state.files.delete(action.remove.path);
      state.tombstones.set(tombstoneKey(action.remove), action.remove);
    } else if ('txn' in action) state.txns.set(action.txn.appId, action.txn);
    else if ('protocol' in action) state.protocol = action.protocol;
    else if ('metaData' in action) state.metadata = action.metaData;
    else if ('domainMetadata' in action) {
      if (action.domainMetadata.removed) state.domainMetadata.delete(action.domainMetadata.domain);
      else state.domainMetadata.set(action.domainMetadata.domain, action.domainMetadata);
    } else if ('commitInfo' in action) {
      const value = action.commitInfo.inCommitTimestamp;
      if (typeof value === 'number') inCommitTimestamp = value;
    }
  }
  state.version = version;
  state.inCommitTimestamp = inCommitTimestamp;
  return state;
}

/** Reads a checkpoint's rows back as actions (hyparquet in every function, no WebAssembly). */
export type CheckpointDecoder = (bytes: Uint8Array) => Promise<Action[]>;

export interface LogReader {
  storage: Pick<TableStorage, 'getIfExists' | 'list'>;
  decodeCheckpoint: CheckpointDecoder;
  /** The table's location (`s3://bucket/prefix`): absolute paths under it are read as relative ones. */
  root?: string;
}

export interface OpenedSnapshot {
  state: TableState;
  /** Log objects read (or found missing) to build it: `_last_checkpoint`, a checkpoint, commits. */
  objectsRead: number;
  /** The checkpoint it started from, or -1. */
  checkpoint: number;
}

/** `_last_checkpoint` as writers leave it: the version, and how to find that checkpoint's files. */
const checkpointHint = z.looseObject({
  version: versionNumber,
  parts: versionNumber.optional(),
  /** A V2 checkpoint's file name in `_delta_log/`. */
  v2Checkpoint: z.looseObject({ path: z.string().optional() }).optional(),
});
type CheckpointHint = z.infer<typeof checkpointHint>;

/**
 * The hint, or null when there is none or it cannot be read (a hint being rewritten by a writer
 * without atomic puts: listing the log finds the checkpoint).
 */
export async function readLastCheckpoint(reader: {
  storage: Pick<TableStorage, 'getIfExists'>;
}): Promise<CheckpointHint | null> {
  const hint = await reader.storage.getIfExists(lastCheckpointFile);
  return hint ? readJson(hint.toString('utf8'), checkpointHint) : null;
}

/** The files of the checkpoint a hint names. */
function hintedFiles(hint: CheckpointHint): string[] {
  if (typeof hint.v2Checkpoint?.path === 'string') return [`_delta_log/${hint.v2Checkpoint.path}`];
  if (hint.parts !== undefined && hint.parts > 1) return checkpointPartNames(hint.version, hint.parts);
  return [checkpointFileName(hint.version)];
}

/** The newest whole checkpoint at or before `version` in the store, found by listing the log. */
async function listedCheckpoint(reader: LogReader, version: number): Promise<string[] | null> {
  const found = new Map<string, CheckpointFile[]>();
  for (const object of await reader.storage.list('_delta_log/', { startAfter: '_delta_log/0' })) {
    const file = checkpointFileOf(object.key);
    if (!file || file.version > version) continue;
    const set = `${file.version}:${file.naming}:${file.naming === 'uuid' ? file.key : file.parts}`;
    found.set(set, [...(found.get(set) ?? []), file]);
  }
  const whole = [...found.values()]
    .filter((files) => new Set(files.map((file) => file.part)).size === (files[0] as CheckpointFile).parts)
    .sort((a, b) => (b[0] as CheckpointFile).version - (a[0] as CheckpointFile).version);
  const newest = whole[0];
  return newest ? newest.sort((a, b) => a.part - b.part).map((file) => file.key) : null;
}

/** The sidecar's key: sidecars live in `_delta_log/_sidecars/` whatever the action's path says before the name. */
function sidecarKey(path: string): string {
  return `${sidecarDirectory}${path.slice(path.lastIndexOf('/') + 1)}`;
}

/**
 * All actions of a checkpoint made of `keys` (one file, or every part), with the file actions of
 * its sidecars; null when a file is missing (a checkpoint being written, or cleaned up).
 */
async function readCheckpoint(reader: LogReader, keys: string[]): Promise<Action[] | null> {
  const files = await Promise.all(keys.map((key) => reader.storage.getIfExists(key)));
  if (files.some((file) => file === null)) return null;
  const actions: Action[] = [];
  for (const [index, file] of files.entries()) {
    if ((keys[index] as string).endsWith('.json')) actions.push(...parseCommit((file as Buffer).toString('utf8')));
    else actions.push(...(await reader.decodeCheckpoint(file as Buffer)));
  }
  relativeToRoot(actions, reader.root);
  const sidecars = actions.flatMap((action) => ('sidecar' in action ? [sidecarKey(action.sidecar.path)] : []));
  if (sidecars.length === 0) return actions;
  const sidecarFiles = await Promise.all(sidecars.map((key) => reader.storage.getIfExists(key)));
  if (sidecarFiles.some((file) => file === null)) return null;
  for (const file of sidecarFiles)
    actions.push(...relativeToRoot(await reader.decodeCheckpoint(file as Buffer), reader.root));
  return actions;
}

/** The version of a checkpoint file (any naming). */
const versionOf = (key: string) => Number(/(\d{20})\.checkpoint/.exec(key)?.[1] ?? -1);

/**
 * Opens the table at `version` (the latest when absent), starting from `from` when given and not
 * past that version (a cached state: only the commits after it are read).
 */
export async function openSnapshot(
  reader: LogReader,
  options: { version?: number; from?: TableState } = {},
): Promise<OpenedSnapshot> {
  const target = options.version;
  let objectsRead = 0;
  let checkpoint = -1;
  let state = emptyState();
  const loadCheckpoint = async (keys: string[]): Promise<boolean> => {
    objectsRead += keys.length;
    const actions = await readCheckpoint(reader, keys);
    if (!actions) return false;
    const version = versionOf(keys[0] as string);
    state = applyActions(emptyState(), version, actions);
    checkpoint = version;
    return true;
  };
  /** A hint that is missing, ahead of the wanted version or names a checkpoint that is gone: list the log. */
  const loadListedCheckpoint = async () => {
    objectsRead++;
    const keys = await listedCheckpoint(reader, target ?? Number.MAX_SAFE_INTEGER);
    return keys !== null && (await loadCheckpoint(keys));
  };

  // Commits are fetched a window at a time, in parallel: a checkpoint is at most about ten
  // versions behind, so one window usually reaches the end (its first missing version). The first
  // window is fetched while the checkpoint is read.
  const window = 10;
  const fetchWindow = (from: number) => {
    const last = target === undefined ? from + window - 1 : Math.min(target, from + window - 1);
    return Promise.all(
      Array.from({ length: Math.max(0, last - from + 1) }, (_, i) => reader.storage.getIfExists(logFileName(from + i))),
    );
  };
  let prefetched: { from: number; commits: Promise<(Buffer | null)[]> } | null = null;
  if (options.from && (target === undefined || options.from.version <= target)) {
    state = copyState(options.from);
  } else {
    objectsRead++;
    const hint = await readLastCheckpoint(reader);
    if (hint && (target === undefined || hint.version <= target)) {
      prefetched = { from: hint.version + 1, commits: fetchWindow(hint.version + 1) };
      if (!(await loadCheckpoint(hintedFiles(hint)))) await loadListedCheckpoint();
    } else if (hint) {
      await loadListedCheckpoint();
    }
  }
  let version = state.version + 1;
  for (;;) {
    const last = target === undefined ? version + window - 1 : Math.min(target, version + window - 1);
    if (last < version) break;
    const fetched = prefetched?.from === version ? await prefetched.commits : await fetchWindow(version);
    if (prefetched && prefetched.from !== version) objectsRead += (await prefetched.commits).length;
    prefetched = null;
    objectsRead += fetched.length;
    let missing = -1;
    for (const [i, commit] of fetched.entries()) {
      if (!commit) {
        missing = version + i;
        break;
      }
      applyCommit(state, version + i, relativeToRoot(parseCommit(commit.toString('utf8')), reader.root));
    }
    if (missing < 0) {
      version = last + 1;
      continue;
    }
    // No version 0 and no checkpoint yet: a new table, or a cleaned-up log whose hint is missing.
    if (missing === 0 && (await loadListedCheckpoint())) {
      version = state.version + 1;
      continue;
    }
    if (target !== undefined) throw new VersionNotFound(missing);
    break;
  }
  // A table with in-commit timestamps opened at a checkpoint: its commit there has the timestamp
  // the next commit must exceed (checkpoints keep no commitInfo; the protocol keeps that commit).
  if (state.version >= 0 && state.inCommitTimestamp === null && inCommitTimestampsEnabled(state.metadata)) {
    objectsRead++;
    const commit = await reader.storage.getIfExists(logFileName(state.version));
    for (const action of commit ? parseCommit(commit.toString('utf8')) : [])
      if ('commitInfo' in action && typeof action.commitInfo.inCommitTimestamp === 'number')
        state.inCommitTimestamp = action.commitInfo.inCommitTimestamp;
  }
  return { state, objectsRead, checkpoint };
}

function inCommitTimestampsEnabled(metadata: Metadata | null): boolean {
  return metadata?.configuration['delta.enableInCommitTimestamps'] === 'true';
}

/**
 * A path of the log as the key of an object under the table root: relative paths are; an absolute
 * one (`s3://bucket/table/x.parquet`, `s3a://…`) is when it lies under `tableRoot`; null otherwise (a
 * file of another location, e.g. a shallow clone's source, which Tributary never deletes).
 */
export function tableObjectKey(path: string, tableRoot?: string): string | null {
  if (!isAbsolutePath(path)) return path;
  if (!tableRoot) return null;
  const root = tableRoot.replace(/\/+$/, '').replace(/^s3a:/, 's3:');
  const absolute = path.replace(/^s3a:/, 's3:');
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : null;
}

/** File actions with absolute paths into the table made relative, so that both forms name one file. */
function relativeToRoot(actions: Action[], tableRoot: string | undefined): Action[] {
  if (!tableRoot) return actions;
  for (const action of actions) {
    const file = 'add' in action ? action.add : 'remove' in action ? action.remove : null;
    if (file && isAbsolutePath(file.path)) file.path = tableObjectKey(file.path, tableRoot) ?? file.path;
  }
  return actions;
}

/**
 * The commits after `version`, oldest first, as far as the log goes (at most `maxCommits`): what an
 * incremental reader has not seen yet. When the next commit is gone although the table moved on
 * (the log was cleaned up past it), that reader cannot continue: VersionNotFound.
 */
export async function commitsAfter(
  reader: LogReader,
  version: number,
  maxCommits = Number.POSITIVE_INFINITY,
): Promise<{ version: number; actions: Action[] }[]> {
  const commits: { version: number; actions: Action[] }[] = [];
  for (let next = version + 1; commits.length < maxCommits; next++) {
    const commit = await reader.storage.getIfExists(logFileName(next));
    if (!commit) {
      if (commits.length === 0) {
        const latest = (await readLastCheckpoint(reader))?.version ?? -1;
        if (latest > version) throw new VersionNotFound(next);
      }
      break;
    }
    commits.push({ version: next, actions: parseCommit(commit.toString('utf8')) });
  }
  return commits;
}

/** The table's latest state for a commit to build on, kept warm where it can be. */
export interface SnapshotSource {
  /** The latest state known (a warm copy, or the store's log read to its end), at least `version` when given. */
  current(tableId: string, version?: number): Promise<TableState>;
  /** The state after a commit, for the next one. */
  keep(tableId: string, state: TableState): void;
  forget(tableId: string): void;
}

/**
 * Roughly the memory a state holds: its strings (V8 keeps ASCII text at a byte a character) and a
 * fixed cost per entry for the objects and map slots around them. What bounds the snapshot cache.
 */
export function stateBytes(state: TableState): number {
  const entry = 320;
  let bytes = 2048 + (state.metadata ? state.metadata.schemaString.length * 2 : 0) + state.recent.length * 640;
  for (const file of state.files.values()) bytes += entry + file.path.length + (file.stats?.length ?? 0);
  for (const file of state.tombstones.values()) bytes += entry + file.path.length;
  for (const txn of state.txns.values()) bytes += entry + txn.appId.length;
  for (const domain of state.domainMetadata.values()) bytes += entry + domain.configuration.length;
  return bytes;
}

/**
 * The longest a kept state is trusted as the log's end, whatever its table's retention says: another
 * writer may have lowered the retention since the state was read (its metadata then still says 30 days).
 */
export const maxTrustMs = 3_600_000;

/** The snapshot cache's bound where nothing else is said: what a function of 1 GB can spare. */
export const defaultSnapshotCacheBytes = 256 * 1024 * 1024;

/**
 * Table states kept by a warm function instance, so that the next commit needs no read at all (the
 * store's conditional write tells when another writer moved the table on) and the next checkpoint
 * or compaction reads only the commits since. Calls for one table run one at a time; the states
 * handed out are copies. Bounded by the memory the states hold (stateBytes), not by how many tables
 * they are: a quiet table's state is a few KB and a large one's many MB, and the table-commits
 * instance commits every staged table of the platform. The least recently used go first; evicted,
 * a table's next commit reads about a dozen log objects.
 *
 * A state is trusted for half the table's log retention (`delta.logRetentionDuration`), at most an
 * hour (maxTrustMs), after it was last known to be the log's end (read to it, or committed), and read
 * again after that. The
 * conditional write that tells of another writer's commit works only while that commit is still
 * there: a commit made after the state was known stays at least the log retention (the clean-up
 * deletes only older ones), so within that time a newer version cannot have gone, while a state kept
 * longer (a table whose retention someone set to an hour, cleaned by Spark or by our own vacuum)
 * could see the next version's file gone and write its own there, under a later checkpoint that no
 * reader looks past. The half leaves room for the writers' clocks.
 */
export class SnapshotCache {
  private readonly states = new Map<string, { state: TableState; bytes: number; knownAt: number }>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private held = 0;

  constructor(
    private readonly maxBytes = defaultSnapshotCacheBytes,
    private readonly now: () => number = Date.now,
  ) {}

  /** The kept state while it may be trusted as the log's end (see above); a state kept too long is dropped. */
  private trusted(tableId: string): { state: TableState; bytes: number; knownAt: number } | undefined {
    const held = this.states.get(tableId);
    if (!held) return undefined;
    const retentionMs = tableConfig(held.state.metadata?.configuration ?? {}).logRetentionMs;
    if (this.now() - held.knownAt < Math.min(retentionMs / 2, maxTrustMs)) return held;
    this.drop(tableId);
    return undefined;
  }

  /** Bytes of state held now (stateBytes of each). */
  get bytesHeld(): number {
    return this.held;
  }

  private store(tableId: string, state: TableState, knownAt: number): void {
    this.drop(tableId);
    const bytes = stateBytes(state);
    this.states.set(tableId, { state, bytes, knownAt });
    this.held += bytes;
    while (this.states.size > 1 && this.held > this.maxBytes) this.drop(this.states.keys().next().value as string);
  }

  private drop(tableId: string): void {
    const held = this.states.get(tableId);
    if (!held) return;
    this.held -= held.bytes;
    this.states.delete(tableId);
  }

  async open(tableId: string, reader: LogReader, version?: number): Promise<OpenedSnapshot> {
    const previous = this.queues.get(tableId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const cached = this.trusted(tableId)?.state;
      const readAt = this.now();
      const opened = await openSnapshot(reader, {
        ...(version === undefined ? {} : { version }),
        ...(cached ? { from: cached } : {}),
      });
      // Known to be the end only when read to the end; a state read to a version is kept, not trusted as the end.
      this.store(tableId, opened.state, version === undefined ? readAt : Number.NEGATIVE_INFINITY);
      return { ...opened, state: copyState(opened.state) };
    });
    this.queues.set(
      tableId,
      run.catch(() => undefined),
    );
    return run;
  }

  /** A commit's view of one table: the cached state as it is, or the log read to `version` (or its end). */
  source(reader: LogReader): SnapshotSource {
    return {
      current: async (tableId: string, version?: number): Promise<TableState> => {
        // A version asked for is the same whenever it was read; the end, only while the state is trusted.
        const cached = version === undefined ? this.trusted(tableId) : this.states.get(tableId);
        if (cached && (version === undefined || cached.state.version === version)) {
          // Used now: the last to go.
          this.states.delete(tableId);
          this.states.set(tableId, cached);
          return copyState(cached.state);
        }
        return (await this.open(tableId, reader, version)).state;
      },
      keep: (tableId: string, state: TableState) => {
        const cached = this.states.get(tableId)?.state;
        if (!cached || cached.version <= state.version) this.store(tableId, copyState(state), this.now());
      },
      forget: (tableId: string) => this.forget(tableId),
    };
  }

  /** The cached state's metadata, without reading anything (null when the table is not cached). */
  peek(tableId: string): Pick<TableState, 'metadata' | 'version'> | null {
    return this.states.get(tableId)?.state ?? null;
  }

  forget(tableId: string): void {
    this.drop(tableId);
  }
}
