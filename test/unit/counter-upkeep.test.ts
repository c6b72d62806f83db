/**
 * The counters' upkeep through its ports, in this process: a window's piece reads the sources that
 * moved in it and those that keep a figure, and no other; the planner hands out settled windows and
 * quarters, a piece per shard, and moves its marks on only past what is done.
 */
import { describe, expect, it } from 'vitest';
import {
  type FoldState,
  type KeptFigure,
  type MovedPorts,
  type PlanPorts,
  planUpkeep,
  settleMoved,
  type UpkeepPiece,
} from '#shared/domain/observability/counter-upkeep.ts';

/** Sources' figures and staged rows as stored, the index's listing by window, and every read counted. */
function movedWorld(options: {
  figures: Record<string, number>;
  staged?: Record<string, number>;
  moved: Record<number, string[]>;
  kept?: Record<string, KeptFigure>;
  pageSize?: number;
}) {
  const reads: string[] = [];
  const stagedReads: string[][] = [];
  const kept = new Map(Object.entries(options.kept ?? {}));
  const keeps: [string, KeptFigure | null][] = [];
  const sent: UpkeepPiece[] = [];
  const pageSize = options.pageSize ?? 1000;
  const ports: MovedPorts = {
    async movedPage(piece) {
      const listed = options.moved[piece.at] ?? [];
      const from = piece.after === undefined ? 0 : Number(piece.after);
      const next = from + pageSize < listed.length ? { ...piece, step: 0, after: String(from + pageSize) } : null;
      return { sources: listed.slice(from, from + pageSize), next };
    },
    async keptFigures() {
      return new Map(kept);
    },
    async unaccountedOf(source) {
      reads.push(source);
      return options.figures[source] ?? 0;
    },
    async stagedOf(sources) {
      stagedReads.push([...sources].sort());
      return new Map(sources.map((source) => [source, options.staged?.[source] ?? 0]));
    },
    async keep(_shard, source, figure) {
      keeps.push([source, figure]);
      if (figure) kept.set(source, figure);
      else kept.delete(source);
    },
    async send(pieces) {
      sent.push(...pieces);
    },
  };
  return { ports, reads, stagedReads, keeps, kept, sent };
}

describe("a window's piece of the upkeep", () => {
  // 10,000 sources with figures stored; three moved in the window.
  const figures: Record<string, number> = {};
  for (let n = 0; n < 10_000; n++) figures[`s${n}`] = n % 3;

  it('reads each source that moved in the window once, and no other', async () => {
    const world = movedWorld({ figures, moved: { 300000: ['s1', 's2', 's3'], 600000: ['s4'] } });
    await settleMoved(world.ports, { kind: 'moved', at: 300_000, shard: 5 });
    expect(world.reads.sort()).toEqual(['s1', 's2', 's3']);
    // Staged rows are read for those owing envelopes only (s3's figure is 0).
    expect(world.stagedReads).toEqual([['s1', 's2']]);
  });

  it('keeps the figures beyond staged rows, drops those covered, and writes nothing that did not change', async () => {
    const world = movedWorld({
      figures: { lost: 2, staged: 3, settled: 0, same: 1 },
      staged: { lost: 0, staged: 3, same: 0 },
      moved: { 0: ['lost', 'staged', 'settled', 'same'] },
      kept: { settled: { unaccounted: 1, staged: 0 }, same: { unaccounted: 1, staged: 0 } },
    });
    const result = await settleMoved(world.ports, { kind: 'moved', at: 0, shard: 0 });
    expect(result).toEqual({ read: 4, kept: 2 });
    expect(world.keeps.sort()).toEqual([
      ['lost', { unaccounted: 2, staged: 0 }],
      ['settled', null],
    ]);
    expect(Object.fromEntries(world.kept)).toEqual({
      lost: { unaccounted: 2, staged: 0 },
      same: { unaccounted: 1, staged: 0 },
    });
  });

  it('reads again the sources that keep a figure, which did not move (a loss stays; an envelope caught on the queue clears)', async () => {
    const world = movedWorld({
      figures: { lost: 1, caught: 1, other: 1 },
      staged: { caught: 1 },
      moved: { 0: [] },
      kept: { lost: { unaccounted: 1, staged: 0 }, caught: { unaccounted: 1, staged: 0 } },
    });
    await settleMoved(world.ports, { kind: 'moved', at: 0, shard: 0 });
    expect(world.reads.sort()).toEqual(['caught', 'lost']);
    expect(Object.fromEntries(world.kept)).toEqual({ lost: { unaccounted: 1, staged: 0 } });
  });

  it('hands on the rest of a long window before reading its page, and a later page reads no kept source again', async () => {
    const listed = Array.from({ length: 2500 }, (_, n) => `s${n}`);
    const world = movedWorld({
      figures,
      moved: { 0: listed },
      kept: { s9999: { unaccounted: 1, staged: 0 } },
    });
    await settleMoved(world.ports, { kind: 'moved', at: 0, shard: 1 });
    expect(world.sent).toEqual([{ kind: 'moved', at: 0, shard: 1, step: 0, after: '1000' }]);
    expect(world.reads.length).toBe(1001);
    const [next] = world.sent.splice(0) as [UpkeepPiece];
    world.reads.length = 0;
    await settleMoved(world.ports, next);
    expect(world.reads.sort()).toEqual(listed.slice(1000, 2000).sort());
    expect(world.sent).toEqual([{ kind: 'moved', at: 0, shard: 1, step: 0, after: '2000' }]);
  });
});

describe("the upkeep's planner", () => {
  const minute = 60_000;
  const settings = {
    shards: 4,
    windowMs: 5 * minute,
    graceMs: minute,
    foldAfterMs: 60 * minute,
    quarterMs: 15 * minute,
    firstLookBackMs: 3 * 60 * minute,
    resendAfterMs: 30 * minute,
  };
  const hour = 10 * 60 * minute;

  function planWorld(
    marks: { windowsFrom: number | null; foldedFrom: number | null },
    folds: Record<number, FoldState>,
  ) {
    const sent: UpkeepPiece[] = [];
    const advanced: { windowsFrom?: number; foldedFrom?: number }[] = [];
    const foldSent: [number, number][] = [];
    const ports: PlanPorts = {
      async marks() {
        return marks;
      },
      async foldState(quarter) {
        return folds[quarter] ?? { sentAt: null, done: new Set() };
      },
      async foldSent(quarter, at) {
        foldSent.push([quarter, at]);
      },
      async advance(next) {
        advanced.push(next);
      },
      async send(pieces) {
        sent.push(...pieces);
      },
    };
    return { ports, sent, advanced, foldSent };
  }

  it('hands out each settled window, a piece per shard, and moves its mark past them', async () => {
    // Windows from 10:00; at 10:16:30 those of 10:00, 10:05 are settled (10:10 ends at 10:15, settled at 10:16).
    const world = planWorld({ windowsFrom: hour, foldedFrom: hour - 45 * minute }, {});
    await planUpkeep(world.ports, hour + 16.5 * minute, settings);
    expect(world.sent.filter((piece) => piece.kind === 'moved').map((piece) => [piece.at - hour, piece.shard])).toEqual(
      [
        [0, 0],
        [0, 1],
        [0, 2],
        [0, 3],
        [5 * minute, 0],
        [5 * minute, 1],
        [5 * minute, 2],
        [5 * minute, 3],
        [10 * minute, 0],
        [10 * minute, 1],
        [10 * minute, 2],
        [10 * minute, 3],
      ],
    );
    expect(world.advanced).toEqual([{ windowsFrom: hour + 15 * minute }]);
  });

  it('hands out a settled quarter to the shards not done with it, once until it is overdue, and moves past it once all are', async () => {
    const quarter = hour - 75 * minute;
    const now = hour - 0.5 * minute;
    // Not handed out yet: every shard.
    let world = planWorld({ windowsFrom: hour, foldedFrom: quarter }, {});
    await planUpkeep(world.ports, now, settings);
    expect(world.sent.filter((p) => p.kind === 'fold')).toEqual(
      [0, 1, 2, 3].map((shard) => ({ kind: 'fold', at: quarter, shard })),
    );
    expect(world.foldSent).toEqual([[quarter, now]]);
    expect(world.advanced).toEqual([{}]);
    // Handed out five minutes ago, two shards done: nothing again yet.
    world = planWorld(
      { windowsFrom: hour, foldedFrom: quarter },
      { [quarter]: { sentAt: now - 5 * minute, done: new Set([0, 2]) } },
    );
    await planUpkeep(world.ports, now, settings);
    expect(world.sent).toEqual([]);
    // Out for longer than it should take: the shards not done, again.
    world = planWorld(
      { windowsFrom: hour, foldedFrom: quarter },
      { [quarter]: { sentAt: now - 31 * minute, done: new Set([0, 2]) } },
    );
    await planUpkeep(world.ports, now, settings);
    expect(world.sent.map((p) => p.shard)).toEqual([1, 3]);
    // Every shard done: the mark moves past it (the next quarter is not settled yet).
    world = planWorld(
      { windowsFrom: hour, foldedFrom: quarter },
      { [quarter]: { sentAt: now - 10 * minute, done: new Set([0, 1, 2, 3]) } },
    );
    await planUpkeep(world.ports, now, settings);
    expect(world.sent).toEqual([]);
    expect(world.advanced).toEqual([{ foldedFrom: quarter + 15 * minute }]);
  });

  it('never moves the fold past a quarter not done, though a later one is', async () => {
    const quarter = hour - 90 * minute;
    const world = planWorld(
      { windowsFrom: hour, foldedFrom: quarter },
      {
        [quarter]: { sentAt: hour - minute, done: new Set([0, 1, 2]) },
        [quarter + 15 * minute]: { sentAt: hour - minute, done: new Set([0, 1, 2, 3]) },
      },
    );
    await planUpkeep(world.ports, hour + 0.5 * minute, settings);
    expect(world.advanced).toEqual([{}]);
  });

  it('hands pieces only to the shards with something to read, and marks the others folded as they are', async () => {
    const quarter = hour - 75 * minute;
    const now = hour + 6.5 * minute;
    const world = planWorld({ windowsFrom: hour, foldedFrom: quarter }, {});
    const idle: number[][] = [];
    world.ports.foldSent = async (at, sentAt, shards = []) => {
      world.foldSent.push([at, sentAt]);
      idle.push(shards);
    };
    // Window 10:00: shard 2 moved; the quarter: shard 1 lists entries, the next quarter none at all.
    world.ports.movedShards = async (window) => new Set(window === hour ? [2] : []);
    world.ports.foldShards = async (at) => new Set(at === quarter ? [1] : []);
    await planUpkeep(world.ports, now, settings);
    expect(world.sent).toEqual([
      { kind: 'moved', at: hour, shard: 2 },
      { kind: 'fold', at: quarter, shard: 1 },
    ]);
    expect(idle).toEqual([
      [0, 2, 3],
      [0, 1, 2, 3],
    ]);
    // The first quarter waits for shard 1; the second, with nothing anywhere, is done as it is (not past the first).
    expect(world.advanced).toEqual([{ windowsFrom: hour + 5 * minute }]);
    // Once the first is done, a quarter with nothing to fold lets the mark past it in the same run.
    const later = planWorld(
      { windowsFrom: hour + 5 * minute, foldedFrom: quarter },
      { [quarter]: { sentAt: now, done: new Set([0, 1, 2, 3]) } },
    );
    later.ports.movedShards = async () => new Set();
    later.ports.foldShards = async () => new Set();
    await planUpkeep(later.ports, hour + 0.5 * minute, settings);
    expect(later.sent).toEqual([]);
    expect(later.advanced).toEqual([{ foldedFrom: quarter + 30 * minute }]);
  });
});
