/**
 * The shared counters against DynamoDB Local: totals written as "the larger value", read as the sum
 * of a series' items, and settled epochs folded without changing a figure or letting a late write
 * count twice. In tables of their own: the running service's upkeep folds the shared one on its own
 * schedule, and an epoch it has passed is one no write can create any more (the tests write epochs
 * of the past).
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { UpkeepPiece } from '#shared/domain/observability/counter-upkeep.ts';
import type { TotalWrite } from '#shared/domain/observability/tally.ts';
import { useServiceEnvironment } from '../support/service-env.ts';

let counters: typeof import('#shared/adapters/dynamo/counters.ts');
/** Each test in a table of its own: a fold's mark moves on, and the tests write epochs of the past. */
beforeEach(async () => {
  useServiceEnvironment();
  process.env.TABLE_NAME = `counters-${randomUUID()}`;
  vi.resetModules();
  const { ensureTable } = await import('../../local/provision.ts');
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB as string, process.env.TABLE_NAME);
  counters = await import('#shared/adapters/dynamo/counters.ts');
});

async function partitionItems(pk: string) {
  const { db, table } = await import('#shared/adapters/dynamo/table.ts');
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const items = await db.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': pk },
    }),
  );
  return items.Items ?? [];
}

/**
 * The upkeep's pieces, from the window and quarter of `from` to what is settled at `now`, for the
 * shards the planner's look at the index finds work in (upkeepProbe: a shard it missed would leave
 * its sources unfolded, or their figures unkept), run in this process as its workers run them
 * (every piece a piece hands on too), then the fold's mark moved past the quarters folded. The planner itself is
 * test/unit/counter-upkeep.test.ts's.
 */
async function upkeepOf(from: number, now: number) {
  const { settleMoved } = await import('#shared/domain/observability/counter-upkeep.ts');
  const { stagedOfSources } = await import('#shared/adapters/dynamo/staged-by-source.ts');
  const settings = counters.upkeepSettings();
  const queue: UpkeepPiece[] = [];
  const send = async (pieces: UpkeepPiece[]) => void queue.push(...pieces);
  const ports = {
    movedPage: counters.movedPage,
    keptFigures: counters.keptFigures,
    unaccountedOf: counters.unaccountedOf,
    stagedOf: stagedOfSources,
    keep: counters.keepFigure,
    send,
  };
  const floor = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
  const kept = await counters.keptFiguresOf();
  const probe = counters.upkeepProbe(new Set([...kept.keys()].map(counters.shardOfSource)), now);
  for (
    let at = floor(from, settings.windowMs);
    at + settings.windowMs + settings.graceMs <= now;
    at += settings.windowMs
  )
    for (const shard of await probe.movedShards(at)) queue.push({ kind: 'moved', at, shard });
  let quarter = floor(from, settings.quarterMs);
  for (; now - quarter > settings.foldAfterMs; quarter += settings.quarterMs)
    for (const shard of await probe.foldShards(quarter)) queue.push({ kind: 'fold', at: quarter, shard });
  for (let piece = queue.shift(); piece; piece = queue.shift())
    if (piece.kind === 'fold') await counters.foldPiece(piece, send, now);
    else await settleMoved(ports, piece);
  await counters.upkeepMarks.advance({ foldedFrom: quarter });
}

/**
 * The quarters from `from`'s to the clock's: an index entry lands in the partition of the quarter
 * its write was made in by the clock, so writes that straddle a quarter's end are listed in two.
 */
function quartersSince(from: number): number[] {
  const quarters = [Math.floor(from / 900_000) * 900_000];
  while ((quarters.at(-1) as number) + 900_000 <= Date.now()) quarters.push((quarters.at(-1) as number) + 900_000);
  return quarters;
}

const epochAt = (ms: number, process: string) => `${Math.floor(ms / 1000).toString(36)}.${process}`;

function total(sourceId: string, epoch: string, value: number, lastAt = new Date().toISOString()): TotalWrite {
  return {
    metric: 'ingestRequests',
    labels: { source_id: sourceId, status: '202', code: 'ACCEPTED' },
    epoch,
    value,
    lastAt,
  };
}

async function accepted(sourceId: string) {
  const series = await counters.readSourceCounters(sourceId);
  return series.filter((s) => s.metric === 'ingestRequests').map((s) => s.value);
}

describe('shared counters', () => {
  it("tell how much each write grew the stored figure: a total raised from a receipt and its own process's write of it grow it once", async () => {
    const source = randomUUID();
    const now = Date.now();
    const door = epochAt(now, 'door');
    const grown: [string, number][] = [];
    const grew = (write: TotalWrite, by: number) => void grown.push([write.epoch, by]);
    // A committer raises the door's series to the receipt of its fifth envelope, then the door writes
    // its own total of 8; a late raise to 5 again, and another process's epoch of 2.
    await counters.writeTotals([total(source, door, 5)], now, grew);
    await counters.writeTotals([total(source, door, 8)], now, grew);
    await counters.writeTotals([total(source, door, 5), total(source, epochAt(now, 'other'), 2)], now, grew);
    expect(grown).toEqual([
      [door, 5],
      [door, 3],
      [epochAt(now, 'other'), 2],
    ]);
    // What CloudWatch is sent adds up to the shared figure.
    expect(await accepted(source)).toEqual([10]);
  });

  it('keep the larger of two totals of an epoch, whatever order they arrive in, and add up epochs', async () => {
    const source = randomUUID();
    const now = Date.now();
    const epoch = epochAt(now, 'a');
    expect(await counters.writeTotals([total(source, epoch, 5)], now)).toEqual([]);
    await counters.writeTotals([total(source, epoch, 3)], now);
    expect(await accepted(source)).toEqual([5]);
    await counters.writeTotals([total(source, epoch, 7), total(source, epochAt(now, 'b'), 2)], now);
    expect(await accepted(source)).toEqual([9]);
  });

  it('subtract a gauge’s decrements, kept as a series of their own', async () => {
    const status = `Test-${randomUUID()}`;
    const now = Date.now();
    const epoch = epochAt(now, 'g');
    await counters.writeTotals(
      [
        { metric: 'jobs', labels: { status }, epoch, value: 4, lastAt: '' },
        { metric: 'jobs', labels: { status, change: 'down' }, epoch, value: 3, lastAt: '' },
      ],
      now,
    );
    const jobs = (await counters.readPlatformCounters()).samples.get('jobs') ?? [];
    expect(jobs.filter((sample) => sample.labels.status === status)).toEqual([{ labels: { status }, value: 1 }]);
  });

  it('fold epochs settled over an hour ago into one item, and a late write to one counts nothing', async () => {
    const source = randomUUID();
    const now = Date.now();
    const settled = [epochAt(now - 2 * 3600_000, 'x'), epochAt(now - 90 * 60_000, 'y')];
    const current = epochAt(now, 'z');
    // Each written while its epoch was young.
    await counters.writeTotals(
      [total(source, settled[0] as string, 10, '2026-01-01T00:00:00.000Z')],
      now - 2 * 3600_000,
    );
    await counters.writeTotals(
      [total(source, settled[1] as string, 20, '2026-01-01T00:30:00.000Z')],
      now - 90 * 60_000,
    );
    await counters.writeTotals([total(source, current, 1)], now);
    expect(await accepted(source)).toEqual([31]);

    await upkeepOf(now - 2 * 3600_000, now);
    expect(await accepted(source)).toEqual([31]);
    // The folded item and the current epoch's.
    expect(
      (await partitionItems(counters.counterKeys.source(source)))
        .map((item) => String(item.sk).split('#').pop())
        .sort(),
    ).toEqual(['folded', counters.storedEpoch(current).itemEpoch].sort());

    // A total for a folded epoch arriving now (a retry, a late writer) finds no item to raise.
    await counters.writeTotals([total(source, settled[0] as string, 12)], now);
    expect(await accepted(source)).toEqual([31]);
    // The current epoch still moves.
    await counters.writeTotals([total(source, current, 4)], now);
    expect(await accepted(source)).toEqual([34]);
  });
});

describe('items shared by processes', () => {
  it('hold the totals of any number of processes of a quarter in a bounded number of items, each counted once', async () => {
    const source = randomUUID();
    const now = Date.now();
    // 300 ingest instances, each counting in an epoch of its own this quarter: the n-th counted n.
    const epochs = Array.from({ length: 300 }, (_, n) => epochAt(now, `i${n}`));
    await counters.writeTotals(
      epochs.map((epoch, n) => total(source, epoch, n + 1)),
      now,
    );
    // Retries and late writes of smaller totals add nothing.
    await counters.writeTotals(
      epochs.slice(0, 50).map((epoch, n) => total(source, epoch, n + 1)),
      now,
    );
    await counters.writeTotals(
      epochs.slice(0, 50).map((epoch) => total(source, epoch, 1)),
      now,
    );
    expect(await accepted(source)).toEqual([45_150]);
    const items = await partitionItems(counters.counterKeys.source(source));
    expect(items.length).toBeGreaterThan(1);
    expect(items.length).toBeLessThanOrEqual(32);
  });

  it('reads and folds an item written before slots (one process, its total in value) beside the new ones', async () => {
    const source = randomUUID();
    const now = Date.now();
    const old = now - 2 * 3600_000;
    const quarter = Math.floor(old / 900_000) * 900_000;
    const legacyEpoch = epochAt(old, 'legacy');
    const labels = { code: 'ACCEPTED', source_id: source, status: '202' };
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const pk = counters.counterKeys.source(source);
    const sk = counters.counterKeys.sort('ingestRequests', labels, legacyEpoch);
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          pk,
          sk,
          value: 7,
          entity: 'Counter',
          labels,
          metric: 'ingestRequests',
          last_at: new Date(old).toISOString(),
        },
      }),
    );
    // Its entry as the index had it before it took windows: in its quarter's partition, by its key alone.
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          pk: counters.counterKeys.index(quarter, counters.shardOfSource(source)),
          sk: `${pk}#${sk}`,
          entity: 'CounterIndex',
          item_pk: pk,
          item_sk: sk,
        },
      }),
    );
    await counters.writeTotals([total(source, epochAt(old, 'new'), 3)], old);
    expect(await accepted(source)).toEqual([10]);

    await upkeepOf(old, now);
    expect(await accepted(source)).toEqual([10]);
    expect((await partitionItems(pk)).map((item) => String(item.sk).split('#').pop())).toEqual(['folded']);
  });
});

describe('what /metrics and the upkeep read', () => {
  const written = (sourceId: string, epoch: string, value: number): TotalWrite => ({
    metric: 'envelopesWritten',
    labels: { source_id: sourceId },
    epoch,
    value,
    lastAt: '',
  });
  const sourcesIn = (reading: Awaited<ReturnType<typeof counters.readRecentCounters>>) =>
    [...new Set([...reading.samples.values()].flat().map((sample) => sample.labels.source_id))].sort();

  it('is the sources that moved since the last fold, and settled ones only while envelopes are unaccounted for', async () => {
    const now = Date.now();
    const old = now - 2 * 3600_000;
    const [balanced, lossy, recent] = [randomUUID(), randomUUID(), randomUUID()];
    await counters.writeTotals(
      [
        total(balanced, epochAt(old, 'a'), 5),
        written(balanced, epochAt(old, 'w'), 5),
        total(lossy, epochAt(old, 'a'), 3),
        written(lossy, epochAt(old, 'w'), 1),
      ],
      old,
    );
    await counters.writeTotals([total(recent, epochAt(now, 'a'), 2)], now);
    expect(sourcesIn(await counters.readRecentCounters(Date.now()))).toEqual([balanced, lossy, recent].sort());

    await upkeepOf(old, now);
    const afterFold = await counters.readRecentCounters(Date.now());
    // The settled sources are read by nobody; the one with envelopes unaccounted for keeps its figure.
    expect(sourcesIn(afterFold)).toEqual([recent]);
    expect(Object.fromEntries(afterFold.unaccounted)).toEqual({ [lossy]: 2, [recent]: 2 });

    // The lost two written after all (a redrive): read afresh while it moves, dropped once it settles.
    await counters.writeTotals([written(lossy, epochAt(now, 'w2'), 2)], now);
    expect(Object.fromEntries((await counters.readRecentCounters(Date.now())).unaccounted)).toEqual({ [recent]: 2 });
    const later = now + 2 * 3600_000;
    await upkeepOf(now - 5 * 60_000, later);
    const settled = await counters.readRecentCounters(later);
    expect(sourcesIn(settled)).toEqual([]);
    expect(Object.fromEntries(settled.unaccounted)).toEqual({ [recent]: 2 });
    // And every figure is still the sum it was.
    expect(await accepted(lossy)).toEqual([3]);
  });

  it('moves figures kept before shards to their shard once, a newer one there kept, and keeps no more in that partition', async () => {
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const [old, newer] = [randomUUID(), randomUUID()];
    for (const [source, unaccounted] of [
      [old, 4],
      [newer, 9],
    ] as const)
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: { pk: 'COUNTER#UNACCOUNTED', sk: source, entity: 'CounterUnaccounted', unaccounted },
        }),
      );
    await counters.keepFigure(counters.shardOfSource(newer), newer, { unaccounted: 1, staged: 0 });

    expect(await counters.moveFiguresKeptBeforeShards()).toBe(2);
    expect(await counters.moveFiguresKeptBeforeShards()).toBe(0);
    expect(Object.fromEntries(await counters.keptFiguresOf())).toEqual({
      [old]: { unaccounted: 4, staged: 0 },
      [newer]: { unaccounted: 1, staged: 0 },
    });
    await counters.keepFigure(counters.shardOfSource(old), old, null);
    expect(await partitionItems('COUNTER#UNACCOUNTED')).toEqual([]);
    expect(Object.fromEntries(await counters.keptFiguresOf())).toEqual({ [newer]: { unaccounted: 1, staged: 0 } });
  });
  it('reads a share of the sources for a scrape in shards: every source in exactly one share, the platform’s in none', async () => {
    const now = Date.now();
    const epoch = epochAt(now, 's');
    const sources: string[] = Array.from({ length: 64 }, () => randomUUID());
    const status = `Test-${randomUUID()}`;
    await counters.writeTotals(
      [
        ...sources.map((source) => total(source, epoch, 1)),
        { metric: 'jobs', labels: { status }, epoch, value: 1, lastAt: '' },
      ],
      now,
    );
    const shares = await Promise.all(
      [0, 1, 2, 3].map((shard) => counters.readRecentCounters(Date.now(), { shard, shards: 4 })),
    );
    const read = shares.map((share) => sourcesIn(share).filter((source) => sources.includes(source as string)));
    expect(read.flat().sort()).toEqual([...sources].sort());
    expect(read.every((share) => share.length > 0)).toBe(true);
    expect(shares.map((share) => share.samples.get('jobs') ?? [])).toEqual([[], [], [], []]);
    await expect(counters.readRecentCounters(now, { shard: 0, shards: 3 })).rejects.toThrow(/shards divide 64/);
  });

  it('read for GET /metrics: the platform’s series and those of all sources, no source’s own', async () => {
    const now = Date.now();
    const [a, b] = [randomUUID(), randomUUID()];
    const door = epochAt(now, 'door');
    const all = { status: '202', code: 'ACCEPTED' };
    await counters.writeTotals(
      [
        total(a, door, 4),
        total(b, door, 2),
        { metric: 'ingestRequests', labels: all, epoch: door, value: 6, lastAt: '' },
        { metric: 'ingestRequests', labels: all, epoch: epochAt(now, 'other'), value: 3, lastAt: '' },
        // A refusal of no known source: in the series of all sources too.
        {
          metric: 'ingestRequests',
          labels: { source_id: 'unknown', status: '401', code: 'UNAUTHORIZED' },
          epoch: door,
          value: 5,
          lastAt: '',
        },
        {
          metric: 'ingestRequests',
          labels: { status: '401', code: 'UNAUTHORIZED' },
          epoch: door,
          value: 5,
          lastAt: '',
        },
        { metric: 'envelopesWritten', labels: {}, epoch: epochAt(now, 'committer'), value: 7, lastAt: '' },
        { metric: 'batchesCommitted', labels: {}, epoch: epochAt(now, 'committer'), value: 2, lastAt: '' },
      ],
      now,
    );
    const reading = await counters.readPlatformCounters();
    expect(Object.fromEntries(reading.samples)).toEqual({
      ingestRequests: expect.arrayContaining([
        { labels: all, value: 9 },
        { labels: { status: '401', code: 'UNAUTHORIZED' }, value: 5 },
      ]),
      envelopesWritten: [{ labels: {}, value: 7 }],
      batchesCommitted: [{ labels: {}, value: 2 }],
    });
    expect(reading.samples.get('ingestRequests')).toHaveLength(2);
    // 9 accepted − 7 written.
    expect(reading.unaccounted).toBe(2);
  });

  it('spreads the writes of many sources over partitions: a source’s own, and shards of the index', async () => {
    const now = Date.now();
    const epoch = epochAt(now, 'p');
    const sources = Array.from({ length: 1280 }, () => randomUUID());
    const partitions = new Set(sources.map((source) => counters.counterKeys.partition({ source_id: source }, epoch)));
    expect(partitions.size).toBe(1280);
    expect(
      await counters.writeTotals(
        sources.map((source) => total(source, epoch, 1)),
        now,
      ),
    ).toEqual([]);
    // A flush that crosses a quarter's end lists its later writes in the next one.
    const quarters = quartersSince(now);
    const shards = new Map<number, number>();
    for (let shard = 0; shard < counters.indexShards; shard++) {
      let entries = 0;
      for (const quarter of quarters)
        entries += (await partitionItems(counters.counterKeys.index(quarter, shard))).length;
      shards.set(shard, entries);
    }
    expect(shards.size).toBe(64);
    expect([...shards.values()].reduce((sum, count) => sum + count, 0)).toBe(1280);
    // 64 shards of one quarter: none holds more than twice its even share.
    expect(Math.min(...shards.values())).toBeGreaterThan(0);
    expect(Math.max(...shards.values())).toBeLessThanOrEqual((2 * 1280) / 64);
  });
});

describe('the index of counter writes', () => {
  it('lists in a window the sources written in it, and a source written again later in that window too', async () => {
    const { windowMs } = counters.upkeepSettings();
    const start = Math.floor(Date.now() / windowMs) * windowMs - 4 * windowMs;
    const [a, b] = [randomUUID(), randomUUID()];
    const epoch = epochAt(start, 'm');
    await counters.writeTotals([total(a, epoch, 1), total(b, epoch, 1)], start);
    await counters.writeTotals([total(a, epoch, 2)], start + windowMs);
    const listed = async (at: number, source: string) =>
      (await counters.movedPage({ kind: 'moved', at, shard: counters.shardOfSource(source) })).sources;
    expect(await listed(start, a)).toContain(a);
    expect(await listed(start, b)).toContain(b);
    expect(await listed(start + windowMs, a)).toEqual([a]);
    expect(await listed(start + windowMs, b)).not.toContain(b);
    expect(await listed(start + 2 * windowMs, a)).toEqual([]);
  });

  it('takes one entry per item, process and window: totals written again are one write of the item alone', async () => {
    const now = Date.now();
    const source = randomUUID();
    const epoch = epochAt(now, 'once');
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const units: number[] = [];
    const send = db.send.bind(db);
    const spy = vi.spyOn(db, 'send').mockImplementation((async (command: { input: Record<string, unknown> }) => {
      command.input.ReturnConsumedCapacity = 'INDEXES';
      const result = (await send(command as never)) as { ConsumedCapacity?: unknown };
      // One figure for a call (a batch answers one per table).
      const consumed = [result.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[];
      units.push(consumed.reduce((sum, entry) => sum + Number(entry.CapacityUnits ?? 0), 0));
      return result;
    }) as never);
    for (const value of [1, 2, 3, 4, 5])
      expect(await counters.writeTotals([total(source, epoch, value)], now)).toEqual([]);
    spy.mockRestore();
    // The first total: its index entry and the item; each later one: the item alone, one unit.
    expect(units).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await accepted(source)).toEqual([5]);

    const pk = counters.counterKeys.source(source);
    const [item] = await partitionItems(pk);
    const entries = (
      await Promise.all(
        quartersSince(now).flatMap((quarter) =>
          Array.from({ length: counters.indexShards }, (_, shard) =>
            partitionItems(counters.counterKeys.index(quarter, shard)),
          ),
        ),
      )
    )
      .flat()
      .filter((entry) => entry.item_pk === pk);
    expect(entries.map((entry) => entry.item_sk)).toEqual([item?.sk]);
    // Nothing of it in the table's own index (where every write of an item took a second unit).
    const inGsi = await db.send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': entries[0]?.pk },
      }),
    );
    expect(inGsi.Items).toEqual([]);
  });
});

describe('traffic history from the counters', () => {
  const quarter = 15 * 60_000;
  /** Readings added up per interval and figure, as { '<ISO>': { figure: n } }. */
  async function history(source: string, from: number, to: number, now: number) {
    const byInterval: Record<string, Record<string, number>> = {};
    for (const reading of await counters.readSourceHistory(source, from, to, now)) {
      const key = new Date(reading.interval).toISOString();
      const figures = byInterval[key] ?? {};
      byInterval[key] = figures;
      figures[reading.figure] = (figures[reading.figure] ?? 0) + reading.value;
    }
    return byInterval;
  }
  const series =
    (sourceId: string, metric: TotalWrite['metric'], labels: Record<string, string>) =>
    (epoch: string, value: number): TotalWrite => ({
      metric,
      labels: { source_id: sourceId, ...labels },
      epoch,
      value,
      lastAt: new Date().toISOString(),
    });

  it('reads the epochs of the last hour per interval, several processes and withdrawals added up', async () => {
    // Prepare: epochs younger than an hour, so no fold touches them while the test reads.
    const source = randomUUID();
    const now = Date.now();
    const current = Math.floor(now / quarter) * quarter;
    const [earlier, previous] = [current - 2 * quarter, current - quarter];
    const accepted = series(source, 'ingestRequests', { status: '202', code: 'ACCEPTED' });
    const withdrawn = series(source, 'ingestRequests', { status: '202', code: 'ACCEPTED', change: 'down' });
    const refused = series(source, 'ingestRequests', { status: '401', code: 'UNAUTHORIZED' });
    const written = series(source, 'envelopesWritten', {});
    await counters.writeTotals(
      [
        accepted(epochAt(earlier, 'p1'), 10),
        accepted(epochAt(earlier, 'p2'), 5),
        withdrawn(epochAt(earlier, 'p2'), 1),
        refused(epochAt(earlier, 'p1'), 2),
        written(epochAt(previous, 'w1'), 14),
        accepted(epochAt(current, 'p1'), 3),
      ],
      now,
    );
    // Act
    const read = await history(source, earlier, current + quarter, now);
    // Assess
    expect(read).toEqual({
      [new Date(earlier).toISOString()]: { accepted: 14, 'rejected:UNAUTHORIZED': 2 },
      [new Date(previous).toISOString()]: { written_rows: 14 },
      [new Date(current).toISOString()]: { accepted: 3 },
    });
    expect(await history(source, previous, current, now)).toEqual({
      [new Date(previous).toISOString()]: { written_rows: 14 },
    });
  });

  it('keeps each settled interval as one history item when its epochs are folded, with the same figures', async () => {
    // Prepare: two processes' epochs of one interval two hours ago, one of the next interval.
    const source = randomUUID();
    const now = Date.now();
    const first = Math.floor((now - 2 * 3600_000) / quarter) * quarter;
    const second = first + quarter;
    const accepted = series(source, 'ingestRequests', { status: '202', code: 'ACCEPTED' });
    const written = series(source, 'envelopesWritten', {});
    const deadLettered = series(source, 'deadLettered', {});
    await counters.writeTotals(
      [accepted(epochAt(first, 'a'), 6), accepted(epochAt(first, 'b'), 4), written(epochAt(first, 'w'), 9)],
      first,
    );
    await counters.writeTotals([accepted(epochAt(second, 'a'), 2), deadLettered(epochAt(second, 'd'), 1)], second);
    // Act
    await upkeepOf(first, now);
    // Assess: the figures per interval, and the items that hold them now.
    expect(await history(source, first - quarter, second + quarter, now)).toEqual({
      [new Date(first).toISOString()]: { accepted: 10, written_rows: 9 },
      [new Date(second).toISOString()]: { accepted: 2, dead_lettered: 1 },
    });
    expect(
      (await partitionItems(counters.counterKeys.history(source))).map(
        ({ pk: _pk, sk, expires_at, entity, ...figures }) => ({
          sk,
          figures,
          entity,
          kept_days: Math.round((Number(expires_at) * 1000 - Date.parse(String(sk))) / 86_400_000),
        }),
      ),
    ).toEqual([
      {
        sk: new Date(first).toISOString(),
        figures: { accepted: 10, written_rows: 9 },
        entity: 'CounterHistory',
        kept_days: 31,
      },
      {
        sk: new Date(second).toISOString(),
        figures: { accepted: 2, dead_lettered: 1 },
        entity: 'CounterHistory',
        kept_days: 31,
      },
    ]);
    // The totals (stats, /metrics) are unchanged by the fold.
    expect((await counters.readSourceCounters(source)).map((s) => [s.metric, s.value]).sort()).toEqual([
      ['deadLettered', 1],
      ['envelopesWritten', 9],
      ['ingestRequests', 12],
    ]);
  });

  it('adds a count made once to its total and to its history interval, once however often it is asked', async () => {
    // Prepare: a dead letter counted once by its failure's key, asked three times (a retry, a redelivery).
    const source = randomUUID();
    const now = Date.now();
    const interval = Math.floor(now / quarter) * quarter;
    const counts = [{ metric: 'deadLettered' as const, labels: { source_id: source }, by: 1 }];
    // Act
    const answers = [
      await counters.countOnce(`dead-lettered#${source}#m1`, counts, now),
      await counters.countOnce(`dead-lettered#${source}#m1`, counts, now),
      await counters.countOnce(`dead-lettered#${source}#m2`, counts, now),
    ];
    // Assess
    expect(answers).toEqual([true, false, true]);
    expect((await counters.readSourceCounters(source)).map((s) => [s.metric, s.value])).toEqual([['deadLettered', 2]]);
    expect(await history(source, interval, interval + quarter, now)).toEqual({
      [new Date(interval).toISOString()]: { dead_lettered: 2 },
    });
  });

  it('forgets a redriven failed delivery and counts it in one write: once, and not at all when it was gone', async () => {
    // Prepare: a failed delivery recorded for a source; a second redrive of it, and one of a delivery never recorded.
    const { recordFailedDelivery, failedDeliveryRemoval, allFailedDeliveries } = await import(
      '#shared/adapters/dynamo/deliveries.ts'
    );
    const source = randomUUID();
    const dataSetId = randomUUID();
    const failed = {
      message_id: 'm1',
      data_set_id: dataSetId,
      connection_id: null,
      source_id: source,
      failed_at: '2026-12-04T10:00:00.000Z',
      attempts: 5,
      last_error: 'STORE_UNREACHABLE: the store did not answer',
      body_key: `dead-letters/${dataSetId}/m1.json`,
    };
    await recordFailedDelivery(failed);
    const never = { ...failed, message_id: 'm2' };
    const counts = [{ metric: 'redriven' as const, labels: { source_id: source }, by: 1 }];
    const redrive = (one: typeof failed) =>
      counters.countOnce(`redriven#${one.message_id}#${one.failed_at}`, counts, Date.now(), failedDeliveryRemoval(one));
    // Act
    const answers = [await redrive(failed), await redrive(failed), await redrive(never)];
    // Assess: one count, the record and its claim gone; the delivery never recorded counted nothing.
    expect(answers).toEqual([true, false, false]);
    expect((await counters.readSourceCounters(source)).map((s) => [s.metric, s.value])).toEqual([['redriven', 1]]);
    expect({
      records: await allFailedDeliveries(dataSetId),
      claim: await partitionItems('DELIVERY_FAILURE#m1'),
      keys: (await partitionItems('COUNTED_ONCE#redriven#m2#2026-12-04T10:00:00.000Z')).length,
    }).toEqual({ records: [], claim: [], keys: 0 });
  });

  it('counts failed deliveries deleted past the data retention once each, however often the deletion runs', async () => {
    // Prepare: two failed deliveries of a source, their kept envelopes long gone (deleting none is no error).
    const { recordFailedDelivery, allFailedDeliveries } = await import('#shared/adapters/dynamo/deliveries.ts');
    const { forgetDeliveries } = await import('#shared/adapters/repositories/data-set-files.ts');
    const source = randomUUID();
    const dataSetId = randomUUID();
    const failed = ['m1', 'm2'].map((messageId) => ({
      message_id: messageId,
      data_set_id: dataSetId,
      connection_id: null,
      source_id: source,
      failed_at: '2026-11-01T10:00:00.000Z',
      attempts: 5,
      last_error: 'STORE_UNREACHABLE: the store did not answer',
      body_key: `dead-letters/${dataSetId}/${messageId}.json`,
      dt: '2026-11-01',
    }));
    for (const one of failed) await recordFailedDelivery(one);
    // Act: the retention's run, then a run that read the same records before the first removed them.
    await forgetDeliveries(failed);
    await forgetDeliveries(failed);
    // Assess
    expect({
      counted: (await counters.readSourceCounters(source)).map((s) => [s.metric, s.value]),
      left: await allFailedDeliveries(dataSetId),
    }).toEqual({ counted: [['deadLettersDeleted', 2]], left: [] });
  });
});

describe('the series of all sources, counted with each source’s', () => {
  it('hold every 202 of a door that never wrote its counts, raised from its envelopes’ receipts, and each count made once', async () => {
    // Prepare: the ingest door, a process that counts three 202s (the third a duplicate) and is then
    // gone (Lambda reclaimed it), its counts never written.
    vi.resetModules();
    const door = await import('#shared/adapters/metrics.ts');
    const [a, b] = [randomUUID(), randomUUID()];
    const receipts = [door.countAccepted(a, false), door.countAccepted(b, false), door.countAccepted(a, true)];
    expect(receipts.map(({ epoch: _epoch, ...counts }) => counts)).toEqual([
      { accepted: 1, duplicates: 0, all_accepted: 1, all_duplicates: 0 },
      { accepted: 1, duplicates: 0, all_accepted: 2, all_duplicates: 0 },
      { accepted: 2, duplicates: 1, all_accepted: 3, all_duplicates: 1 },
    ]);

    // Act: a committer (another process) commits the envelopes of b and of a's third, raising the
    // door's counts to their receipts, and counts the rows it wrote (a's duplicate adds none) once,
    // asked twice (a retry).
    vi.resetModules();
    const committer = await import('#shared/adapters/metrics.ts');
    const at = new Date().toISOString();
    committer.countReceipts([
      { source_id: b, ingested_at: at, receipt: receipts[1] },
      { source_id: a, ingested_at: at, receipt: receipts[2] },
    ]);
    await committer.settleSourceCounts();
    const written = [
      { metric: 'envelopesWritten' as const, labels: { source_id: a }, by: 1 },
      { metric: 'envelopesWritten' as const, labels: { source_id: b }, by: 1 },
    ];
    expect(await committer.countOnce(`written#${a}`, written)).toBe(true);
    expect(await committer.countOnce(`written#${a}`, written)).toBe(false);

    // Assess: what GET /metrics reads, and each source's own figures.
    const read = await import('#shared/adapters/dynamo/counters.ts');
    const reading = await read.readPlatformCounters();
    expect({
      accepted: reading.samples.get('ingestRequests'),
      duplicates: reading.samples.get('ingestDuplicates'),
      written: reading.samples.get('envelopesWritten'),
      unaccounted: reading.unaccounted,
    }).toEqual({
      accepted: [{ labels: { code: 'ACCEPTED', status: '202' }, value: 3 }],
      duplicates: [{ labels: {}, value: 1 }],
      written: [{ labels: {}, value: 2 }],
      unaccounted: 0,
    });
    const figures = async (source: string) =>
      Object.fromEntries((await read.readSourceCounters(source)).map((series) => [series.metric, series.value]));
    expect({ a: await figures(a), b: await figures(b) }).toEqual({
      a: { ingestRequests: 2, ingestDuplicates: 1, envelopesWritten: 1 },
      b: { ingestRequests: 1, envelopesWritten: 1 },
    });
  });
});
