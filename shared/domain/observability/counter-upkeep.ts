/**
 * The counters' upkeep: work that follows what moved, in pieces that any number of workers take.
 *  - Every counter write is listed in an index under the window it is made in (five minutes by
 *    default) and its source's shard (shared/adapters/dynamo/counters.ts), before it is made. A
 *    window is settled once it ended `graceMs` ago: a write begun in it has landed by then.
 *  - A planner (a schedule) hands out each settled window as one piece per shard with something to
 *    read there (its index lists a write in the window, or it keeps a figure), and each settled
 *    quarter's epochs to fold as one piece per shard whose index may list them (the others are
 *    marked done as they are), and marks how far it got. It reads no source: whether a shard has
 *    anything is a query of a key or so of its index, where a piece for nothing was a message sent,
 *    received and deleted and a worker's invocation (64 a window whatever moved, and thousands when
 *    the marks start three hours back).
 *  - A worker takes a piece. A window's piece reads each source the index lists there once, and
 *    the sources of its shard that kept a figure, and keeps each one's envelopes unaccounted for
 *    beyond its staged rows while that is above 0 (a loss, or an envelope still on the queue). A
 *    fold's piece folds the settled items its shard's index lists. A piece reads at most a page of
 *    the index and hands the rest on as a piece of its own, so that no run's work grows with the
 *    traffic: more of them run instead. No source that did not move is read, save those with a figure.
 *  - Envelopes missing are the kept figures summed, less what waits on the queues: read by the
 *    planner from the shards' kept figures, no source read.
 */
import { forEachAtMost } from '../at-most.ts';

/** A piece of work: a window's moved sources (`at` the window's start) or a quarter's fold (`at` the quarter's start). */
export interface UpkeepPiece {
  kind: 'moved' | 'fold';
  at: number;
  shard: number;
  /** Where a piece handed on resumes: the step of its reading (a fold reads several windows), and the key after which. */
  step?: number;
  after?: string;
}

/** A source's envelopes unaccounted for, and the rows it has staged, kept while the first is above the second. */
export interface KeptFigure {
  unaccounted: number;
  staged: number;
}

export interface MovedPorts {
  /** A page of the sources the shard's index lists in the piece's window, and the piece that reads the rest (null when none). */
  movedPage(piece: UpkeepPiece): Promise<{ sources: string[]; next: UpkeepPiece | null }>;
  /** The shard's sources with a kept figure. */
  keptFigures(shard: number): Promise<Map<string, KeptFigure>>;
  /** A source's envelopes unaccounted for, from its counters (its partition read whole). */
  unaccountedOf(source: string): Promise<number>;
  /** The rows each of these sources has staged for its table's commit. */
  stagedOf(sources: string[]): Promise<Map<string, number>>;
  /** Keeps a source's figure, or drops it (null). */
  keep(shard: number, source: string, figure: KeptFigure | null): Promise<void>;
  send(pieces: UpkeepPiece[]): Promise<void>;
}

/** Sources read at once by a piece. */
const readsAtOnce = 16;

/**
 * One piece of a window: hands on the rest of the window first (so that the next page is read
 * beside this one), then reads each source listed on its page once, and on the window's first page
 * also the sources of the shard that kept a figure; keeps or drops each one's figure where it changed.
 * Answers the sources it read.
 */
export async function settleMoved(ports: MovedPorts, piece: UpkeepPiece): Promise<{ read: number; kept: number }> {
  const first = piece.step === undefined && piece.after === undefined;
  const [page, kept] = await Promise.all([ports.movedPage(piece), ports.keptFigures(piece.shard)]);
  if (page.next) await ports.send([page.next]);
  const sources = new Set(page.sources);
  if (first) for (const source of kept.keys()) sources.add(source);
  const unaccounted = new Map<string, number>();
  await forEachAtMost([...sources], readsAtOnce, async (source) => {
    unaccounted.set(source, await ports.unaccountedOf(source));
  });
  const owing = [...unaccounted].filter(([, figure]) => figure > 0).map(([source]) => source);
  const staged = owing.length > 0 ? await ports.stagedOf(owing) : new Map<string, number>();
  let keeping = 0;
  await forEachAtMost([...sources], readsAtOnce, async (source) => {
    const figure = unaccounted.get(source) ?? 0;
    const rows = staged.get(source) ?? 0;
    const now = figure > rows ? { unaccounted: figure, staged: rows } : null;
    const before = kept.get(source) ?? null;
    if (now) keeping++;
    if (now === null ? before !== null : before?.unaccounted !== now.unaccounted || before.staged !== now.staged)
      await ports.keep(piece.shard, source, now);
  });
  return { read: sources.size, kept: keeping };
}

export interface FoldState {
  /** When its pieces were last handed out (ms), or null. */
  sentAt: number | null;
  /** The shards whose pieces folded it whole. */
  done: Set<number>;
}

export interface PlanPorts {
  /** The first window not handed out yet, and the first quarter not folded yet (null when never recorded). */
  marks(): Promise<{ windowsFrom: number | null; foldedFrom: number | null }>;
  foldState(quarter: number): Promise<FoldState>;
  /** Records a quarter's pieces handed out at `at`, and the shards found with nothing to fold as done. */
  foldSent(quarter: number, at: number, idle?: number[]): Promise<void>;
  /** The shards with something to read in a window (every shard when not given). */
  movedShards?(window: number): Promise<Set<number>>;
  /** The shards whose index may list items of a quarter to fold (every shard when not given). */
  foldShards?(quarter: number): Promise<Set<number>>;
  /** Moves the marks on (only those given). */
  advance(marks: { windowsFrom?: number; foldedFrom?: number }): Promise<void>;
  send(pieces: UpkeepPiece[]): Promise<void>;
}

export interface PlanSettings {
  shards: number;
  windowMs: number;
  /** How long after a window ends it is settled. */
  graceMs: number;
  /** Epochs are folded once they started this long ago. */
  foldAfterMs: number;
  quarterMs: number;
  /** With no mark yet, windows and quarters are taken from this long ago. */
  firstLookBackMs: number;
  /** A quarter's fold not done this long after its pieces were handed out is handed out again. */
  resendAfterMs: number;
}

/** Windows handed out a run at most, and quarters to fold looked at (after a pause, later runs catch up). */
const windowsPerRun = 36;
const quartersPerRun = 8;

/**
 * A planner's run: hands out each settled window's pieces, one per shard, and each settled quarter's
 * fold, one piece per shard not done with it (again when they have been out too long); moves the
 * marks on: past the windows handed out, and past the quarters every shard has folded whole.
 */
export async function planUpkeep(
  ports: PlanPorts,
  now: number,
  settings: PlanSettings,
): Promise<{ windows: number; folds: number; foldedThrough: number | null }> {
  const { shards, windowMs, quarterMs } = settings;
  const marks = await ports.marks();
  const start = (mark: number | null, unit: number) =>
    Math.floor((mark ?? now - settings.firstLookBackMs) / unit) * unit;
  const pieces: UpkeepPiece[] = [];
  let window = start(marks.windowsFrom, windowMs);
  let windows = 0;
  const every = new Set(Array.from({ length: shards }, (_, shard) => shard));
  for (; windows < windowsPerRun && window + windowMs + settings.graceMs <= now; windows++, window += windowMs) {
    const busy = ports.movedShards ? await ports.movedShards(window) : every;
    for (const shard of every) if (busy.has(shard)) pieces.push({ kind: 'moved', at: window, shard });
  }
  let folds = 0;
  let foldedFrom = start(marks.foldedFrom, quarterMs);
  let whole = true;
  for (
    let quarter = foldedFrom, n = 0;
    n < quartersPerRun && now - quarter > settings.foldAfterMs;
    n++, quarter += quarterMs
  ) {
    const state = await ports.foldState(quarter);
    if (state.done.size >= shards) {
      if (whole) foldedFrom = quarter + quarterMs;
      continue;
    }
    if (state.sentAt !== null && now - state.sentAt < settings.resendAfterMs) {
      whole = false;
      continue;
    }
    const busy = ports.foldShards ? await ports.foldShards(quarter) : every;
    const left = [...every].filter((shard) => !state.done.has(shard));
    const idle = left.filter((shard) => !busy.has(shard));
    for (const shard of left) if (busy.has(shard)) pieces.push({ kind: 'fold', at: quarter, shard });
    await ports.foldSent(quarter, now, idle);
    if (idle.length === left.length) {
      // Nothing to fold in any shard left: the quarter is folded whole as it is.
      if (whole) foldedFrom = quarter + quarterMs;
      continue;
    }
    whole = false;
    folds++;
  }
  await ports.send(pieces);
  await ports.advance({
    ...(windows > 0 || marks.windowsFrom === null ? { windowsFrom: window } : {}),
    ...(foldedFrom !== marks.foldedFrom ? { foldedFrom } : {}),
  });
  return { windows, folds, foldedThrough: foldedFrom };
}
