/**
 * A table's state at a version, as every Delta reader builds it: the newest checkpoint not after
 * that version (found through `_delta_log/_last_checkpoint`), then the JSON commits after it, in
 * order (protocol "Action Reconciliation": the latest protocol and metadata win, the latest txn per
 * appId wins, a file is live when its newest action is an add, a tombstone when it is a remove).
 */
import type { TableStorage } from './commit.ts';
import {
  type Action,
  type AddFile,
  type CommitSummary,
  checkpointFileName,
  commitSummary,
  lastCheckpointFile,
  logFileName,
  type Metadata,
  type Protocol,
  parseCommit,
  type RemoveFile,
  type Txn,
  versionOfLogFile,
} from './log.ts';

export interface TableState {
  /** -1 before version 0. */
  version: number;
  protocol: Protocol | null;
  metadata: Metadata | null;
  /** Live files by path. */
  files: Map<string, AddFile>;
  /** Removed files not yet vacuumed, by path. */
  tombstones: Map<string, RemoveFile>;
  txns: Map<string, Txn>;
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
    recent: [],
  };
}

export function copyState(state: TableState): TableState {
  return {
    ...state,
    files: new Map(state.files),
    tombstones: new Map(state.tombstones),
    txns: new Map(state.txns),
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

/** The newest commit timestamp the state knows (0 when none): a later commit's timestamp is never below it. */
export function latestTimestamp(state: TableState): number {
  return state.recent.at(-1)?.timestamp ?? 0;
}

/** Applies one version's actions (a commit, or a whole checkpoint) to the state, in place. */
export function applyActions(state: TableState, version: number, actions: Action[]): TableState {
  for (const action of actions) {
    if ('add' in action) {
      state.files.set(action.add.path, action.add);
      state.tombstones.delete(action.add.path);
    } else if ('remove' in action) {
      state.files.delete(action.remove.path);
      state.tombstones.set(action.remove.path, action.remove);
    } else if ('txn' in action) state.txns.set(action.txn.appId, action.txn);
    else if ('protocol' in action) state.protocol = action.protocol;
    else if ('metaData' in action) state.metadata = action.metaData;
  }
  state.version = version;
  return state;
}

/** Reads a checkpoint's rows back as actions (hyparquet in every function, no WebAssembly). */
export type CheckpointDecoder = (bytes: Uint8Array) => Promise<Action[]>;

export interface LogReader {
  storage: Pick<TableStorage, 'getIfExists' | 'list'>;
  decodeCheckpoint: CheckpointDecoder;
}

export interface OpenedSnapshot {
  state: TableState;
  /** Log objects read (or found missing) to build it: `_last_checkpoint`, a checkpoint, commits. */
  objectsRead: number;
  /** The checkpoint it started from, or -1. */
  checkpoint: number;
}

export class VersionNotFound extends Error {
  constructor(version: number) {
    super(`Version ${version} of the table is not in its log (it may be older than the log's retention)`);
    this.name = 'VersionNotFound';
  }
}

/** The newest checkpoint at or before `version` in the store, found by listing the log (for time travel). */
async function checkpointAtOrBefore(reader: LogReader, version: number): Promise<number> {
  let found = -1;
  for (const object of await reader.storage.list('_delta_log/', { startAfter: '_delta_log/0' })) {
    const parsed = versionOfLogFile(object.key);
    if (parsed?.kind === 'checkpoint' && parsed.version <= version) found = Math.max(found, parsed.version);
  }
  return found;
}

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
  const loadCheckpoint = async (version: number): Promise<boolean> => {
    objectsRead++;
    const bytes = await reader.storage.getIfExists(checkpointFileName(version));
    if (!bytes) return false;
    state = applyActions(emptyState(), version, await reader.decodeCheckpoint(bytes));
    checkpoint = version;
    return true;
  };
  /** A hint that is missing, ahead of the wanted version or names a checkpoint that is gone: list the log. */
  const loadListedCheckpoint = async () => {
    const found = await checkpointAtOrBefore(reader, target ?? Number.MAX_SAFE_INTEGER);
    return found >= 0 && (await loadCheckpoint(found));
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
    const hint = await reader.storage.getIfExists(lastCheckpointFile);
    const hinted = hint ? Number((JSON.parse(hint.toString('utf8')) as { version: number }).version) : -1;
    if (hinted >= 0 && (target === undefined || hinted <= target)) {
      prefetched = { from: hinted + 1, commits: fetchWindow(hinted + 1) };
      if (!(await loadCheckpoint(hinted))) await loadListedCheckpoint();
    } else if (hinted >= 0) {
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
      applyCommit(state, version + i, parseCommit(commit.toString('utf8')));
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
  return { state, objectsRead, checkpoint };
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
        const hint = await reader.storage.getIfExists(lastCheckpointFile);
        const latest = hint ? Number((JSON.parse(hint.toString('utf8')) as { version: number }).version) : -1;
        if (latest > version) throw new VersionNotFound(next);
      }
      break;
    }
    commits.push({ version: next, actions: parseCommit(commit.toString('utf8')) });
  }
  return commits;
}

/**
 * Table states kept by a warm function instance, so that the next commit needs no read at all (the
 * store's conditional write tells when another writer moved the table on) and the next checkpoint
 * or compaction reads only the commits since. Calls for one table run one at a time; the states
 * handed out are copies. Bounded by tables and by the files their states hold.
 */
export class SnapshotCache {
  private readonly states = new Map<string, TableState>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly capacity = 1024,
    private readonly maxFiles = 200_000,
  ) {}

  private store(tableId: string, state: TableState): void {
    this.states.delete(tableId);
    this.states.set(tableId, state);
    let files = 0;
    for (const held of this.states.values()) files += held.files.size + held.tombstones.size;
    while (this.states.size > 1 && (this.states.size > this.capacity || files > this.maxFiles)) {
      const oldest = this.states.keys().next().value as string;
      const evicted = this.states.get(oldest);
      files -= (evicted?.files.size ?? 0) + (evicted?.tombstones.size ?? 0);
      this.states.delete(oldest);
    }
  }

  async open(tableId: string, reader: LogReader, version?: number): Promise<OpenedSnapshot> {
    const previous = this.queues.get(tableId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const cached = this.states.get(tableId);
      const opened = await openSnapshot(reader, {
        ...(version === undefined ? {} : { version }),
        ...(cached ? { from: cached } : {}),
      });
      this.store(tableId, opened.state);
      return { ...opened, state: copyState(opened.state) };
    });
    this.queues.set(
      tableId,
      run.catch(() => undefined),
    );
    return run;
  }

  /** A commit's view of one table: the cached state as it is, or the log read to `version` (or its end). */
  source(reader: LogReader) {
    return {
      current: async (tableId: string, version?: number): Promise<TableState> => {
        const cached = this.states.get(tableId);
        if (cached && (version === undefined || cached.version === version)) return copyState(cached);
        return (await this.open(tableId, reader, version)).state;
      },
      keep: (tableId: string, state: TableState) => {
        const cached = this.states.get(tableId);
        if (!cached || cached.version <= state.version) this.store(tableId, copyState(state));
      },
      forget: (tableId: string) => this.forget(tableId),
    };
  }

  /** The cached state's metadata, without reading anything (null when the table is not cached). */
  peek(tableId: string): Pick<TableState, 'metadata' | 'version'> | null {
    return this.states.get(tableId) ?? null;
  }

  forget(tableId: string): void {
    this.states.delete(tableId);
  }
}
