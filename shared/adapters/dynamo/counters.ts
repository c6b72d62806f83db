/**
 * Shared counters: /metrics and connection stats read the same figures, whichever process counted.
 * A series lives with its source, so that its writes and reads grow with that source alone:
 *   pk COUNTER#<source_id>          sk <metric>#<labels as JSON>#<quarter>.s<slot>  the running totals of the
 *                                   processes whose epoch of that quarter falls in that slot, each an
 *                                   attribute t_<process> (n < epochSlots), or t_o<hash of its key> for
 *                                   a count made once, and version (one more a write)
 *   pk COUNTER#<source_id>          sk <metric>#<labels as JSON>#folded   the totals of settled epochs, added up
 *   pk COUNTER#PLATFORM#<n>         the same for series of no source: the platform's own, those of all
 *                                   sources (a source's counts counted again without its source_id,
 *                                   what GET /metrics reads), and refusals of source "unknown"; a shard
 *                                   per process (n < platformShards)
 *   labels, metric, last_at (when the series last moved), entity Counter; value: a folded total (and
 *   the one process's total of an item written before slots)
 *   pk COUNTED#<quarter start, ISO>#<n>   sk <window start, ISO>#<item's quarter start, ISO, or "folded">#<pk>#<sk>
 *                                   the index of counter writes by when they were made: a quarter's
 *                                   partition lists what was written in its windows (COUNTER_WINDOW_SECONDS,
 *                                   5 minutes), each item once per process and window, written before the
 *                                   process's first total there in that window: item_pk, item_sk, entity
 *                                   CounterIndex, expires_at (n < indexShards: the item's partition's shard,
 *                                   so that a source's entries are in one). A total written again in the
 *                                   window is one write unit. The upkeep reads a settled window's entries
 *                                   (what moved in it), and folds a quarter from the entries of its items
 *                                   (each listed in the window it was created in, within 45 minutes of its
 *                                   epoch's start). Entries written before the index took windows
 *                                   (sk <pk>#<sk>, in their item's own quarter) are folded too.
 *   pk SOURCE#<source_id>#HISTORY   sk <interval start, ISO>   a source's settled figures in one
 *     15-minute interval: accepted, rejected:<CODE>, written_rows, duplicates, dead_lettered,
 *     redriven (each a number); expires_at (the history's retention), entity CounterHistory
 *   pk COUNTER#UPKEEP               sk FOLDED         through: epochs starting before it are folded (ms)
 *   pk COUNTER#UPKEEP               sk WINDOWS        from: the first window not handed to the workers yet (ms)
 *   pk COUNTER#UPKEEP               sk FOLD#<quarter start, ISO>   sent_at, done (the shards that folded
 *                                                     it whole), expires_at
 *   pk COUNTER#UNACCOUNTED#<n>      sk <source_id>    unaccounted, staged: a source's envelopes unaccounted
 *                                                     for and its staged rows when it was last read, kept
 *                                                     while the first is above the second (a loss stays
 *                                                     visible for good); n its index shard
 *   pk COUNTER#UNACCOUNTED          sk <source_id>    the same as kept before shards (unaccounted alone),
 *                                                     moved to its shard by the upkeep's planner
 *   pk COUNTED_ONCE#<key>           sk ONCE           a count made once per key (countOnce): what it counts
 *                                                     (a lost staged record, a dead letter), expires_at
 * A series' figure is the sum of its items. A total is written as "the larger of the stored value
 * and this one", so a retried or late write never counts twice (shared/domain/observability/tally.ts
 * says why counting works this way). Epochs start on the clock's quarter hours, so each lies in one
 * interval. Epochs over an hour old are folded, in one transaction per series and interval, into
 * the series' folded total and the source's history item of that interval. Writes to an epoch over
 * 45 minutes old only raise an item that still exists, so a write arriving after its epoch was
 * folded cannot count it again, and no item appears in an epoch the upkeep has passed.
 * The index lists writes by when they were made: the upkeep (shared/domain/observability/counter-upkeep.ts)
 * finds what moved in a window, and what to fold, without reading any source that did not move.
 * Every partition key takes a bounded share of the writes: a source's own (its instances' flushes),
 * a shard of the platform's series, a shard of the current quarter's index.
 * A decrement of a gauge is a series of its own, labelled change=down, subtracted when read.
 */

import { createHash } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { setting } from '../../config.ts';
import { forEachAtMost } from '../../domain/at-most.ts';
import {
  type HistoryReading,
  historyFigure,
  historyIntervalMs,
  historyRetentionDays,
} from '../../domain/monitoring/history.ts';
import type { FoldState, KeptFigure, PlanSettings, UpkeepPiece } from '../../domain/observability/counter-upkeep.ts';
import {
  isMetricKey,
  type MetricKey,
  type Sample,
  unaccountedBySource,
  unaccountedOfAllSources,
} from '../../domain/observability/metric-catalogue.ts';
import { canonicalLabels, epochStartMs, type TotalWrite } from '../../domain/observability/tally.ts';
import { MalformedItemError, numberSet, type StoredItem, shapeReader } from './stored-items.ts';
import {
  batchGetAll,
  db,
  isConditionFailure,
  isTransactionConflict,
  queryAll,
  queryKeys,
  table,
  transactionHeld,
} from './table.ts';
import { ttlAttribute } from './table-schema.ts';

const foldedSuffix = 'folded';
const guardAfterMs = 45 * 60_000;
const foldAfterMs = 60 * 60_000;
/**
 * Shards of the index of one quarter: at most 64,000 counter writes a second in all before one passes
 * 1,000. A process's first write of a counter item in a window writes its index entry too, and an
 * ingest instance's flush writes a series per source it saw (about 550 per thousand requests over
 * 10,000 sources at Zipf rates). Also the upkeep's shards: a piece of its work is one shard's.
 */
export const indexShards = 64;
/**
 * Slots of a series' items in a quarter. Every process counts in an epoch of its own, and its running
 * total is an attribute of its slot's item, so that a series holds at most this many items a quarter
 * however many instances counted it: with an item per process epoch, a busy source held one per
 * ingest instance (some 700 at 50,000 requests a second), each read by /metrics on every scrape and
 * by the upkeep on every run. 32 keeps an item under 1 KB (one write unit) up to some 1,400 instances.
 */
export const epochSlots = 32;

/** Shards of the series of no source (one per process epoch). */
const platformShards = 8;
/** With no upkeep recorded yet, the index is read from this long ago. */
const firstLookBackMs = 3 * 60 * 60_000;

/**
 * The index's window (COUNTER_WINDOW_SECONDS, 5 minutes by default; a divisor of a quarter hour): the
 * upkeep reads what moved a window at a time, once it is settled (`windowGraceMs` after its end).
 */
export function windowMs(): number {
  return setting('COUNTER_WINDOW_SECONDS') * 1000;
}
/**
 * How long after its end a window is read: a write begun in it has landed (a call is given up after
 * 5 s, tried three times), and its index entry is written just before it.
 */
export const windowGraceMs = () => Math.min(60_000, windowMs());

/** A string's shard, the same in every process: FNV-1a, its bits mixed (murmur3's finaliser) so that the low ones vary. */
function shardOf(text: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) % shards;
}

/** The source a series belongs to, or null for the platform's own (and refusals of no known source). */
const sourceOf = (labels: Record<string, string>) =>
  labels.source_id && labels.source_id !== 'unknown' ? labels.source_id : null;

export const counterKeys = {
  source: (sourceId: string) => `COUNTER#${sourceId}`,
  platform: (shard: number) => `COUNTER#PLATFORM#${shard}`,
  partition: (labels: Record<string, string>, epoch: string) => {
    const source = sourceOf(labels);
    return source ? counterKeys.source(source) : counterKeys.platform(shardOf(epoch, platformShards));
  },
  sort: (metric: string, labels: Record<string, string>, epoch: string) =>
    `${metric}#${canonicalLabels(labels)}#${epoch}`,
  index: (quarter: number, shard: number) => `COUNTED#${new Date(quarter).toISOString()}#${shard}`,
  /** An index entry's sort key: the window it was written in first, then its item's quarter. */
  indexSort: (window: number, quarter: number | null, pk: string, sk: string) =>
    `${new Date(window).toISOString()}#${quarter === null ? foldedSuffix : new Date(quarter).toISOString()}#${pk}#${sk}`,
  history: (sourceId: string) => `SOURCE#${sourceId}#HISTORY`,
  historySort: (interval: number) => new Date(interval).toISOString(),
  upkeep: { pk: 'COUNTER#UPKEEP', sk: 'FOLDED' },
  windows: { pk: 'COUNTER#UPKEEP', sk: 'WINDOWS' },
  fold: (quarter: number) => ({ pk: 'COUNTER#UPKEEP', sk: `FOLD#${new Date(quarter).toISOString()}` }),
  unaccounted: 'COUNTER#UNACCOUNTED',
  kept: (shard: number) => `COUNTER#UNACCOUNTED#${shard}`,
};

const quarterOf = (ms: number) => Math.floor(ms / historyIntervalMs) * historyIntervalMs;
const intervalOf = (epoch: string) => quarterOf(epochStartMs(epoch));
const epochOf = (sk: string) => sk.slice(sk.lastIndexOf('#') + 1);

const windowOf = (ms: number) => Math.floor(ms / windowMs()) * windowMs();
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * How long an index entry is kept: the upkeep reads it within minutes and folds its quarter within
 * hours, and expiry deletes it for nothing (a delete is a write). Were the upkeep stopped longer, the
 * items of those quarters would stay unfolded: still counted in every figure, though no longer read
 * as a source that moved.
 */
const indexLifetimeSeconds = 7 * 86_400;

/**
 * An item's index entry in a window (the item's quarter, or null for a folded total). A partition's
 * items are indexed in one shard (a source's all in its own), so that a share of the sources reads a
 * share of the index, and a piece of the upkeep one shard.
 */
function indexEntry(pk: string, sk: string, quarter: number | null, window: number) {
  return {
    pk: counterKeys.index(quarterOf(window), shardOf(pk, indexShards)),
    sk: counterKeys.indexSort(window, quarter, pk, sk),
    entity: 'CounterIndex',
    item_pk: pk,
    item_sk: sk,
    [ttlAttribute]: Math.floor(window / 1000) + indexLifetimeSeconds,
  };
}

/**
 * At most this many counter writes at once. A flush can hold a series per source the process has
 * seen (hundreds): all at once, they queued every other request to the table behind them (in local
 * mode, ingest requests whose source was not cached waited over a second).
 */
const counterWritesAtOnce = 8;

/**
 * Items this process has indexed (`<window>#<pk>#<sk>`): it writes an item's index entry once a window,
 * before its first total there in that window. Forgotten all at once past a bound (each then indexed
 * once more).
 */
const indexed = new Set<string>();
const indexedAtMost = 100_000;

/** Where a process's total of a series goes: its slot's item, its attribute there, and whether its epoch is settled. */
function placeOf(write: TotalWrite, now: number) {
  const pk = counterKeys.partition(write.labels, write.epoch);
  const { itemEpoch, attribute } = storedEpoch(write.epoch);
  const sk = counterKeys.sort(write.metric, write.labels, itemEpoch);
  return {
    write,
    pk,
    sk,
    key: `${pk}#${sk}`,
    itemEpoch,
    attribute,
    settled: now - epochStartMs(write.epoch) > guardAfterMs,
  };
}
type Place = ReturnType<typeof placeOf>;

/**
 * Indexes the item a total goes to in the window it is written in, unless this process did so in
 * that window already, just before the total: no write goes unlisted in the window it lands in (or
 * the one before, which the upkeep reads after its grace). Answers false when the entry could not be
 * written (the total then waits for the next write).
 */
async function indexFirst({ pk, sk, itemEpoch }: Place, window: number): Promise<boolean> {
  const key = `${window}#${pk}#${sk}`;
  if (indexed.has(key)) return true;
  if (indexed.size >= indexedAtMost) indexed.clear();
  try {
    await db.send(
      new PutCommand({ TableName: table(), Item: indexEntry(pk, sk, quarterOf(epochStartMs(itemEpoch)), window) }),
    );
    indexed.add(key);
    return true;
  } catch {
    return false;
  }
}

/**
 * A share of the sources, for a reading split in `shards` (a divisor of `indexShards`): the sources
 * whose index shard is `shard` modulo `shards`, and the platform's own series with share 0.
 */
export interface SourceShare {
  shard: number;
  shards: number;
}
const everySource: SourceShare = { shard: 0, shards: 1 };
const inShare = (sourceId: string, share: SourceShare) =>
  shardOf(counterKeys.source(sourceId), indexShards) % share.shards === share.shard;

/** A process's epoch as stored: the item of its slot (named by the epoch's quarter and the slot), and its attribute in it. */
export function storedEpoch(epoch: string): { itemEpoch: string; attribute: string } {
  const dot = epoch.indexOf('.');
  const process = epoch.slice(dot + 1);
  return {
    itemEpoch: `${epoch.slice(0, Math.max(0, dot))}.s${shardOf(process, epochSlots)}`,
    attribute: `t_${process}`,
  };
}

/** An item's figure: the totals of the processes that counted in it (`value` in items written before slots). */
function itemTotal(item: CounterItem): number {
  return item.totals.reduce((sum, total) => sum + total, item.value ?? 0);
}

/**
 * Writes a process's total to its slot's item, if larger than the one there; answers how much the
 * stored total grew (0 when it was as large already). `last_at` is the writer's: a process sharing
 * the slot may set it back to its own last count for a while (a series' figure takes the latest of its items).
 */
async function writeTotal({ write, pk, sk, attribute, settled }: Place): Promise<number> {
  try {
    const { Attributes: before } = await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk, sk },
        UpdateExpression:
          'SET #total = :value, entity = :entity, labels = :labels, metric = :metric, last_at = :at ADD #version :one',
        ConditionExpression: settled
          ? 'attribute_exists(pk) AND (attribute_not_exists(#total) OR #total < :value)'
          : 'attribute_not_exists(#total) OR #total < :value',
        ExpressionAttributeNames: { '#total': attribute, '#version': 'version' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':value': write.value,
          ':entity': 'Counter',
          ':labels': write.labels,
          ':metric': write.metric,
          ':at': write.lastAt,
        },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return write.value - Number(before?.[attribute] ?? 0);
  } catch (error) {
    // Already as large (or folded): nothing to add.
    if (!isConditionFailure(error)) throw error;
    return 0;
  }
}

/**
 * Writes totals; answers those that could not be written (to be tried again). `grew` hears how much
 * each write grew its stored total: summed over every process, exactly what the shared figures grew
 * (a total raised from a receipt and the counting process's own write of it grow it once), which is
 * what CloudWatch is sent.
 */
export async function writeTotals(
  writes: TotalWrite[],
  now = Date.now(),
  grew: (write: TotalWrite, by: number) => void = () => undefined,
): Promise<TotalWrite[]> {
  const failed: TotalWrite[] = [];
  const places = writes.map((write) => placeOf(write, now));
  // The window of each write by the clock, from `now` on (a long flush moves into the next).
  const started = Date.now();
  await forEachAtMost(places, counterWritesAtOnce, async (place) => {
    if (!(await indexFirst(place, windowOf(now + Date.now() - started)))) failed.push(place.write);
    else
      await writeTotal(place).then(
        (by) => by > 0 && grew(place.write, by),
        () => void failed.push(place.write),
      );
  });
  return failed;
}

/**
 * A counter item as stored. Its metric is read as written: a series of a metric since taken out of
 * the catalogue is still folded, and shows in no reading (as when nothing read it by name).
 */
const readCounterFields = /* @__PURE__ */ shapeReader('Counter', () => ({
  pk: z.string(),
  sk: z.string(),
  metric: z.string(),
  labels: z.record(z.string(), z.string()),
  /** One more with every write: a fold deletes the item only if nobody wrote it since it was read. */
  version: z.number().optional(),
  /** A folded total, or an item written before slots (neither holds a version). */
  value: z.number().optional(),
  last_at: z.string().optional(),
}));

/** Attributes named by what they hold (a process's total, a history figure), each a number. */
const numbersByName = z.record(z.string(), z.number());

/** The attributes of an item whose names pass `named`, read as numbers (a MalformedItemError names one that is not). */
function numberAttributes(entity: string, item: StoredItem, named: (name: string) => boolean): Record<string, number> {
  const parsed = numbersByName.safeParse(Object.fromEntries(Object.entries(item).filter(([name]) => named(name))));
  if (!parsed.success) throw new MalformedItemError(entity, item, parsed.error);
  return parsed.data;
}

/** A counter item with the running totals of the processes that counted in it (its `t_<process>` attributes). */
function readCounter(item: StoredItem) {
  const totals = numberAttributes('Counter', item, (name) => name.startsWith('t_'));
  return { ...readCounterFields(item), totals: Object.values(totals) };
}
type CounterItem = ReturnType<typeof readCounter>;

export interface SourceSeries {
  metric: MetricKey;
  labels: Record<string, string>;
  value: number;
  lastAt: string | null;
}

/** Items summed per series; a gauge's change=down series subtracted from its own. */
function sumSeries(items: CounterItem[]): SourceSeries[] {
  const totals = new Map<string, SourceSeries>();
  for (const item of items) {
    if (!isMetricKey(item.metric)) continue;
    const { change, ...labels } = item.labels;
    const key = `${item.metric}|${canonicalLabels(labels)}`;
    const series = totals.get(key) ?? { metric: item.metric, labels, value: 0, lastAt: null };
    series.value += change === 'down' ? -itemTotal(item) : itemTotal(item);
    if (item.last_at && (!series.lastAt || item.last_at > series.lastAt)) series.lastAt = item.last_at;
    totals.set(key, series);
  }
  return [...totals.values()];
}

const sourceItems = (sourceId: string) =>
  queryAll({ partition: counterKeys.source(sourceId), consistent: false }, readCounter);

/** An entry of the index of counter writes: the key of the item written. */
const readIndexEntry = /* @__PURE__ */ shapeReader('CounterIndex', () => ({
  item_pk: z.string(),
  item_sk: z.string(),
}));

/** Every counter series of one source (its connection's stats), with when each last moved. */
export async function readSourceCounters(sourceId: string): Promise<SourceSeries[]> {
  return sumSeries(await sourceItems(sourceId));
}

/** The quarters whose epochs are not folded yet, oldest first: from the upkeep's mark to now. */
async function unfoldedQuarters(now: number): Promise<number[]> {
  const mark = await db.send(new GetCommand({ TableName: table(), Key: counterKeys.upkeep }));
  const through = Number(mark.Item?.through ?? quarterOf(now - firstLookBackMs));
  const quarters: number[] = [];
  for (let quarter = quarterOf(through); quarter <= quarterOf(now); quarter += historyIntervalMs)
    quarters.push(quarter);
  return quarters;
}

/**
 * The keys of the items the index lists as written in one quarter, in the shards of a share: every
 * item of an epoch not folded yet is listed in its quarter or a later one.
 */
async function indexedKeys(quarter: number, share = everySource): Promise<{ pk: string; sk: string }[]> {
  const shards = await Promise.all(
    Array.from({ length: indexShards / share.shards }, async (_, n) => {
      const partition = counterKeys.index(quarter, share.shard + n * share.shards);
      const entries = await queryAll({ partition, consistent: false }, readIndexEntry);
      return entries.map((entry) => ({ pk: entry.item_pk, sk: entry.item_sk }));
    }),
  );
  return shards.flat();
}

const sourcePrefix = counterKeys.source('');
const platformPrefix = counterKeys.platform(0).slice(0, -1);
/** The source whose partition this is, or null for the platform's. */
const sourceOfPartition = (pk: string) =>
  pk.startsWith(sourcePrefix) && !pk.startsWith(platformPrefix) ? pk.slice(sourcePrefix.length) : null;

/** Sources of a share whose series have epochs not folded yet: those that moved in the last hour or so. */
async function recentSources(now: number, share: SourceShare): Promise<Set<string>> {
  const sources = new Set<string>();
  for (const quarter of await unfoldedQuarters(now))
    for (const key of await indexedKeys(quarter, share)) {
      const source = sourceOfPartition(key.pk);
      if (source && inShare(source, share)) sources.add(source);
    }
  return sources;
}

/** The shard a source's index entries and kept figure are in. */
export const shardOfSource = (sourceId: string) => shardOf(counterKeys.source(sourceId), indexShards);

/** A source's kept figure (sk: the source); one kept before shards holds no staged rows. */
const readKeptFigure = /* @__PURE__ */ shapeReader('CounterUnaccounted', () => ({
  sk: z.string(),
  unaccounted: z.number(),
  staged: z.number().default(0),
}));

/** The figures a shard keeps. */
export async function keptFigures(shard: number): Promise<Map<string, KeptFigure>> {
  const kept = await queryAll({ partition: counterKeys.kept(shard) }, readKeptFigure);
  return new Map(kept.map((item) => [item.sk, { unaccounted: item.unaccounted, staged: item.staged }]));
}

/** A source's figure as its shard keeps it. */
const keptItem = (shard: number, sourceId: string, figure: KeptFigure) => ({
  pk: counterKeys.kept(shard),
  sk: sourceId,
  entity: 'CounterUnaccounted',
  unaccounted: figure.unaccounted,
  staged: figure.staged,
});

/** Keeps a source's figure in its shard, or drops it. */
export async function keepFigure(shard: number, sourceId: string, figure: KeptFigure | null): Promise<void> {
  if (figure) await db.send(new PutCommand({ TableName: table(), Item: keptItem(shard, sourceId, figure) }));
  else await db.send(new DeleteCommand({ TableName: table(), Key: { pk: counterKeys.kept(shard), sk: sourceId } }));
}

/**
 * Figures kept before shards (one partition for every source) moved each to its shard, unless the
 * shard keeps a newer one of that source, and removed: the upkeep's planner does it before it reads
 * the kept figures, so that no write of a source's figure goes to that one partition (a delete there
 * with every figure kept had capped the whole platform's at 1,000 a second). Answers how many moved.
 */
export async function moveFiguresKeptBeforeShards(): Promise<number> {
  const before = await queryAll({ partition: counterKeys.unaccounted }, readKeptFigure);
  await forEachAtMost(before, 16, async (item) => {
    try {
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: keptItem(shardOfSource(item.sk), item.sk, { unaccounted: item.unaccounted, staged: 0 }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    await db.send(new DeleteCommand({ TableName: table(), Key: { pk: counterKeys.unaccounted, sk: item.sk } }));
  });
  return before.length;
}

/** Every kept figure, of the shards of a share. */
export async function keptFiguresOf(share = everySource): Promise<Map<string, KeptFigure>> {
  const shards = Array.from({ length: indexShards / share.shards }, (_, n) => share.shard + n * share.shards);
  const figures = new Map<string, KeptFigure>();
  await forEachAtMost(shards, 16, async (shard) => {
    for (const [source, figure] of await keptFigures(shard)) figures.set(source, figure);
  });
  return figures;
}

/** A source's envelopes unaccounted for, from its counters. */
export async function unaccountedOf(sourceId: string): Promise<number> {
  return unaccountedBySource(samplesOf(sumSeries(await sourceItems(sourceId)))).get(sourceId) ?? 0;
}

/** Index entries read by a piece of the upkeep at most: a piece's work is bounded, more pieces do the rest. */
const entriesPerPiece = 2000;

/** One page of a shard's index entries under a sort key prefix, from after `after`. */
async function entryPage(partition: string, prefix: string, after: string | undefined) {
  const { items, nextKey } = await queryKeys(
    { partition, sortBeginsWith: prefix, consistent: false },
    entriesPerPiece,
    after === undefined ? undefined : { pk: partition, sk: after },
  );
  return {
    keys: items.map(readIndexEntry).map((entry) => ({ pk: entry.item_pk, sk: entry.item_sk })),
    next: nextKey?.sk,
  };
}

/** A page of the sources a shard's index lists in a window, and the piece that reads the rest. */
export async function movedPage(piece: UpkeepPiece): Promise<{ sources: string[]; next: UpkeepPiece | null }> {
  const page = await entryPage(counterKeys.index(quarterOf(piece.at), piece.shard), `${iso(piece.at)}#`, piece.after);
  const sources = new Set<string>();
  for (const key of page.keys) {
    const source = sourceOfPartition(key.pk);
    if (source) sources.add(source);
  }
  return { sources: [...sources], next: page.next === undefined ? null : { ...piece, step: 0, after: page.next } };
}

/** Samples of every metric from series' items, by metric. */
function samplesOf(series: SourceSeries[], into = new Map<MetricKey, Sample[]>()): Map<MetricKey, Sample[]> {
  for (const { metric, labels, value } of series) {
    const samples = into.get(metric) ?? [];
    samples.push({ labels, value });
    into.set(metric, samples);
  }
  return into;
}

export interface CounterReading {
  /** Every series of the sources read, by metric. */
  samples: Map<MetricKey, Sample[]>;
  /** Each source's figure unaccounted for (not 0): the recent ones read now, settled ones as kept. */
  unaccounted: Map<string, number>;
}

/**
 * What GET /metrics reads: the platform's own series and the series of all sources (each count of a
 * source also went to one of these: metric-catalogue.ts `allSourcesLabels`), in the platform's
 * partitions; series of one source (refusals of none known, a pipeline's rows) are left out, the
 * series of all sources hold them. A few items per series, however many sources there are: a series
 * holds an item per slot of each quarter not yet folded, and its folded total.
 */
export async function readPlatformCounters(): Promise<{ samples: Map<MetricKey, Sample[]>; unaccounted: number }> {
  const items = await Promise.all(
    Array.from({ length: platformShards }, (_, shard) =>
      queryAll({ partition: counterKeys.platform(shard), consistent: false }, readCounter),
    ),
  );
  const samples = samplesOf(sumSeries(items.flat()).filter((series) => series.labels.source_id === undefined));
  return { samples, unaccounted: unaccountedOfAllSources(samples) };
}

/**
 * What GET /metrics?shards= reads: the series of the sources that moved since the last epochs were
 * folded (an hour or so), each source read whole; other sources are represented by their figure
 * unaccounted for alone, as the upkeep keeps it. Work grows with the sources that moved within the
 * hour (its answer lists each one's series), never with every source there is. A share reads its
 * sources only: GET /metrics?shards=N&shard=K, each a scrape target of its own.
 */
export async function readRecentCounters(now = Date.now(), share = everySource): Promise<CounterReading> {
  if (indexShards % share.shards !== 0 || share.shard < 0 || share.shard >= share.shards)
    throw new Error(`No share ${share.shard} of ${share.shards}: shards divide ${indexShards}`);
  const [sources, settled] = await Promise.all([recentSources(now, share), keptFiguresOf(share)]);
  const samples = new Map<MetricKey, Sample[]>();
  // Each source a small query of its own partition: many at once (100,000 quiet sources are 100,000 queries).
  await forEachAtMost([...sources], 32, async (source) => {
    samplesOf(sumSeries(await sourceItems(source)), samples);
  });
  const unaccounted = unaccountedBySource(samples);
  for (const [source, figure] of settled) if (!sources.has(source)) unaccounted.set(source, figure.unaccounted);
  return { samples, unaccounted };
}

/** What a series adds to its source's history: its figure, and +1 or -1 (a change=down series takes away). */
function historyShare(metric: string, labels: Record<string, string>) {
  const source = sourceOf(labels);
  const figure = source && isMetricKey(metric) ? historyFigure(metric, labels) : null;
  return source && figure ? { sourceId: source, figure, sign: labels.change === 'down' ? -1 : 1 } : null;
}

/** The write that adds `figures` to a source's history item of one interval. */
function addToHistory(sourceId: string, interval: number, figures: Record<string, number>) {
  const entries = Object.entries(figures);
  return {
    Update: {
      TableName: table(),
      Key: { pk: counterKeys.history(sourceId), sk: counterKeys.historySort(interval) },
      UpdateExpression: `ADD ${entries.map((_, i) => `#f${i} :v${i}`).join(', ')} SET entity = :entity, #expires = :expires`,
      ExpressionAttributeNames: {
        ...Object.fromEntries(entries.map(([figure], i) => [`#f${i}`, figure])),
        '#expires': ttlAttribute,
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
        ':entity': 'CounterHistory',
        ':expires': Math.floor(interval / 1000) + (historyRetentionDays + 1) * 86_400,
      },
    },
  };
}

/** Folds one series' items of one interval (at most 98: a transaction holds 100); false when one moved meanwhile. */
async function foldGroup(items: CounterItem[], interval: number): Promise<boolean> {
  const [first] = items;
  if (!first) throw new Error('A fold group holds no counter item');
  const { pk, metric, labels } = first;
  const sum = items.reduce((total, item) => total + itemTotal(item), 0);
  const lastAt = items.reduce((latest, item) => (item.last_at && item.last_at > latest ? item.last_at : latest), '');
  const share = historyShare(metric, labels);
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...items.map((item) => ({
            Delete: {
              TableName: table(),
              Key: { pk: item.pk, sk: item.sk },
              // Unchanged since read: its version (its value, in an item written before slots).
              ConditionExpression: '#unchanged = :unchanged',
              ExpressionAttributeNames: { '#unchanged': item.version === undefined ? 'value' : 'version' },
              ExpressionAttributeValues: { ':unchanged': item.version ?? item.value },
            },
          })),
          {
            Update: {
              TableName: table(),
              Key: { pk, sk: counterKeys.sort(metric, labels, foldedSuffix) },
              UpdateExpression:
                'ADD #value :sum SET entity = :entity, labels = :labels, metric = :metric, last_at = :at',
              ExpressionAttributeNames: { '#value': 'value' },
              ExpressionAttributeValues: {
                ':sum': sum,
                ':entity': 'Counter',
                ':labels': labels,
                ':metric': metric,
                ':at': lastAt,
              },
            },
          },
          ...(share ? [addToHistory(share.sourceId, interval, { [share.figure]: share.sign * sum })] : []),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isTransactionConflict(error)) return false;
    throw error;
  }
}

/** Partitions folded at once. */
const foldsAtOnce = 16;

/**
 * Windows in which a quarter's items are created: from its start until writes to its epochs only
 * raise items that exist (45 minutes), with room for a write under way then.
 */
const creationSpanMs = foldAfterMs;

/**
 * The readings of a quarter's fold for one shard, by step: its entries written before the index took
 * windows (in the quarter's own partition), then those of each window its items were created in.
 */
function foldSteps(quarter: number, shard: number, now: number): { partition: string; prefix: string }[] {
  const steps = [{ partition: counterKeys.index(quarter, shard), prefix: sourcePrefix }];
  for (let window = quarter; window < quarter + creationSpanMs && window <= now; window += windowMs())
    steps.push({
      partition: counterKeys.index(quarterOf(window), shard),
      prefix: `${iso(window)}#${iso(quarter)}#`,
    });
  return steps;
}

/**
 * Folds one shard of a settled quarter, as far as a piece's page of the index goes: the items listed,
 * read by key (a hundred a call), of epochs that started over an hour ago, per series: one
 * transaction deletes them (each only if unchanged), adds their values to the series' folded total
 * and, for a source's series, to its history item of that interval. Hands on the rest first (`send`);
 * once the last of its readings is done, marks the shard's fold of the quarter done. An item that
 * moved meanwhile (read a moment before its last write) fails the piece, which is taken again (what
 * it folded is gone from the items, so nothing is folded twice).
 */
export async function foldPiece(
  piece: UpkeepPiece,
  send: (pieces: UpkeepPiece[]) => Promise<void>,
  now = Date.now(),
): Promise<{ folded: number }> {
  const steps = foldSteps(piece.at, piece.shard, now);
  const keys: { pk: string; sk: string }[] = [];
  let step = piece.step ?? 0;
  let after = piece.after;
  let next: UpkeepPiece | null = null;
  for (; step < steps.length; step++, after = undefined) {
    const reading = steps[step];
    if (!reading) throw new Error(`A piece's fold reading ${step} is past the quarter's ${steps.length}`);
    const { partition, prefix } = reading;
    const page = await entryPage(partition, prefix, after);
    keys.push(...page.keys);
    if (page.next !== undefined) next = { ...piece, step, after: page.next };
    else if (keys.length >= entriesPerPiece && step + 1 < steps.length) next = { ...piece, step: step + 1 };
    if (next) break;
  }
  if (next) await send([next]);
  const partitions = new Map<string, Map<string, CounterItem[]>>();
  const unique = new Map(keys.map((key) => [`${key.pk}#${key.sk}`, key]));
  for (const item of (await batchGetAll([...unique.values()])).map(readCounter)) {
    const epoch = epochOf(item.sk);
    if (epoch === foldedSuffix || now - epochStartMs(epoch) <= foldAfterMs) continue;
    const series = partitions.get(item.pk) ?? new Map<string, CounterItem[]>();
    const key = `${item.metric}|${canonicalLabels(item.labels)}|${intervalOf(epoch)}`;
    series.set(key, [...(series.get(key) ?? []), item]);
    partitions.set(item.pk, series);
  }
  let folded = 0;
  let whole = true;
  // Partitions side by side; a partition's series one after another, since they add to the same history item.
  await forEachAtMost([...partitions.values()], foldsAtOnce, async (series) => {
    for (const items of series.values())
      for (let i = 0; i < items.length; i += 98) {
        const chunk = items.slice(i, i + 98);
        if (await foldGroup(chunk, intervalOf(epochOf(chunk[0]?.sk ?? '')))) folded += chunk.length;
        else whole = false;
      }
  });
  if (!whole) throw new Error('A counter item moved while it was folded; the piece is folded again');
  if (!next)
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: counterKeys.fold(piece.at),
        UpdateExpression: 'ADD done :shard SET entity = :entity, #expires = :expires',
        ExpressionAttributeNames: { '#expires': ttlAttribute },
        ExpressionAttributeValues: {
          ':shard': new Set([piece.shard]),
          ':entity': 'CounterFold',
          ':expires': Math.floor(piece.at / 1000) + indexLifetimeSeconds,
        },
      }),
    );
  return { folded };
}

/** A quarter's fold as the planner reads it: when it was handed out, and the shards that folded it whole (absent: none). */
const readFold = /* @__PURE__ */ shapeReader('CounterFold', () => ({
  sent_at: z.number().optional(),
  done: numberSet().optional(),
}));

/** The planner's side of the upkeep's marks, in the table. */
export const upkeepMarks = {
  async marks(): Promise<{ windowsFrom: number | null; foldedFrom: number | null }> {
    const [windows, folded] = await batchGetAll([counterKeys.windows, counterKeys.upkeep], { consistent: true }).then(
      (items) => [items.find((item) => item.sk === 'WINDOWS'), items.find((item) => item.sk === 'FOLDED')],
    );
    return {
      windowsFrom: windows?.from === undefined ? null : Number(windows.from),
      foldedFrom: folded?.through === undefined ? null : Number(folded.through),
    };
  },
  async foldState(quarter: number): Promise<FoldState> {
    const { Item } = await db.send(
      new GetCommand({ TableName: table(), Key: counterKeys.fold(quarter), ConsistentRead: true }),
    );
    const fold = Item ? readFold(Item) : {};
    return { sentAt: fold.sent_at ?? null, done: new Set(fold.done) };
  },
  async foldSent(quarter: number, at: number, idle: number[] = []): Promise<void> {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: counterKeys.fold(quarter),
        UpdateExpression: `SET sent_at = :at, entity = :entity, #expires = :expires${idle.length > 0 ? ' ADD done :idle' : ''}`,
        ExpressionAttributeNames: { '#expires': ttlAttribute },
        ExpressionAttributeValues: {
          ...(idle.length > 0 ? { ':idle': new Set(idle) } : {}),
          ':at': at,
          ':entity': 'CounterFold',
          ':expires': Math.floor(quarter / 1000) + indexLifetimeSeconds,
        },
      }),
    );
  },
  async advance(marks: { windowsFrom?: number; foldedFrom?: number }): Promise<void> {
    if (marks.windowsFrom !== undefined)
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: { ...counterKeys.windows, entity: 'CounterUpkeep', from: marks.windowsFrom },
        }),
      );
    if (marks.foldedFrom !== undefined)
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: { ...counterKeys.upkeep, entity: 'CounterUpkeep', through: marks.foldedFrom },
        }),
      );
  },
};

/** Whether a partition of the index holds an entry (under a sort key prefix): a key read, consistently. */
async function listsAny(partition: string, prefix?: string): Promise<boolean> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: prefix === undefined ? 'pk = :p' : 'pk = :p AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':p': partition, ...(prefix === undefined ? {} : { ':s': prefix }) },
      ProjectionExpression: 'pk',
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  return Items.length > 0;
}

/** Index partitions looked at side by side. */
const probesAtOnce = 16;

/**
 * The planner's look at which shards have work (one planner run's: each index partition looked at
 * once a run): a window's shards whose index lists a write in it, or that keep a figure
 * (`keptShards`, whose sources each window's piece reads again); a quarter's shards whose index
 * partitions (those its fold reads) hold any entry. A key read each, where a piece for a shard with
 * nothing was a message sent, received and deleted and a worker's invocation.
 */
export function upkeepProbe(keptShards: ReadonlySet<number>, now = Date.now()) {
  const holds = new Map<string, Promise<boolean>>();
  const any = (partition: string) => {
    let held = holds.get(partition);
    if (!held) {
      held = listsAny(partition);
      holds.set(partition, held);
    }
    return held;
  };
  const shardsWhere = async (test: (shard: number) => Promise<boolean>) => {
    const busy = new Set<number>();
    await forEachAtMost(
      Array.from({ length: indexShards }, (_, shard) => shard),
      probesAtOnce,
      async (shard) => {
        if (await test(shard)) busy.add(shard);
      },
    );
    return busy;
  };
  return {
    movedShards: (window: number) =>
      shardsWhere(async (shard) => {
        if (keptShards.has(shard)) return true;
        const partition = counterKeys.index(quarterOf(window), shard);
        return (await any(partition)) && listsAny(partition, `${iso(window)}#`);
      }),
    foldShards: (quarter: number) =>
      shardsWhere(async (shard) => {
        const partitions = [...new Set(foldSteps(quarter, shard, now).map((step) => step.partition))];
        for (const partition of partitions) if (await any(partition)) return true;
        return false;
      }),
  };
}

/** The planner's settings, as deployed (the window from COUNTER_WINDOW_SECONDS). */
export function upkeepSettings(): PlanSettings {
  return {
    shards: indexShards,
    windowMs: windowMs(),
    graceMs: windowGraceMs(),
    foldAfterMs,
    quarterMs: historyIntervalMs,
    firstLookBackMs,
    resendAfterMs: 30 * 60_000,
  };
}

const historyItemAttributes = new Set(['pk', 'sk', 'entity', ttlAttribute]);
const readHistoryKey = /* @__PURE__ */ shapeReader('CounterHistory', () => ({
  sk: z.string(),
  [ttlAttribute]: z.number().optional(),
}));

/** A source's history item: its interval (its sort key), when it expires, and its figures (every other attribute). */
function readHistoryItem(item: StoredItem) {
  const { sk, [ttlAttribute]: expiresAt } = readHistoryKey(item);
  const figures = numberAttributes('CounterHistory', item, (name) => !historyItemAttributes.has(name));
  return { interval: Date.parse(sk), expiresAt, figures };
}

/**
 * A source's history of the intervals starting in [from, to): its folded history items, and the
 * epochs of its series not folded yet (the last hour or so). Like the stats, a reading taken while
 * an interval is being folded may count that interval twice for a moment (the two are read apart).
 */
export async function readSourceHistory(
  sourceId: string,
  from: number,
  to: number,
  now = Date.now(),
): Promise<HistoryReading[]> {
  const [kept, series] = await Promise.all([
    queryAll(
      {
        partition: counterKeys.history(sourceId),
        sortBetween: [counterKeys.historySort(from), counterKeys.historySort(to - 1)],
        consistent: false,
      },
      readHistoryItem,
    ),
    sourceItems(sourceId),
  ]);
  const readings: HistoryReading[] = [];
  for (const item of kept) {
    // DynamoDB deletes expired items within days, not at once.
    if ((item.expiresAt ?? Number.POSITIVE_INFINITY) * 1000 <= now) continue;
    for (const [figure, value] of Object.entries(item.figures))
      readings.push({ interval: item.interval, figure, value });
  }
  for (const item of series) {
    const epoch = epochOf(item.sk);
    if (epoch === foldedSuffix) continue;
    const interval = intervalOf(epoch);
    const share = historyShare(item.metric, item.labels);
    if (share && interval >= from && interval < to)
      readings.push({ interval, figure: share.figure, value: share.sign * itemTotal(item) });
  }
  return readings;
}

/** How long a count's key is kept: past the life of anything counted once (a staged record: 7 days). */
const countedOnceDays = 31;

/**
 * Where a count made once goes: an attribute of its own (named by its key) in the series' item of the
 * current quarter, as a process's running total is (`t_<process>`), so that the upkeep folds it into
 * the folded total and the source's history like any other, and every reading sums it meanwhile.
 */
function oncePlace(key: string, metric: MetricKey, labels: Record<string, string>, now: number) {
  const epoch = `${Math.floor(quarterOf(now) / 1000).toString(36)}.o${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  return placeOf({ metric, labels, epoch, value: 0, lastAt: new Date(now).toISOString() }, now);
}

/**
 * Adds to series once per `key`, however often it is asked: a loss counted by an invocation that
 * then ends before recording what it counted (a crash, a timeout) is counted again by its retry,
 * and a doubled figure offsets a later real loss in the unaccounted figure. Each series' item of the
 * quarter is listed in the index first (as any count's is, once a window per process); then one
 * transaction puts the key's item (only where none is) and adds to each series' attribute for that
 * key, so that the count and its key are written together or not at all: two items for one count,
 * where writing the folded total and the history item directly took four. Writes `alongside` (what
 * the count is of: a record removed, say) in the same transaction, so the change and its count are
 * made together or not at all. Answers false, adding and changing nothing, when the key was counted
 * or a condition of `alongside` does not hold.
 */
export async function countOnce(
  key: string,
  counts: { metric: MetricKey; labels: Record<string, string>; by: number }[],
  now = Date.now(),
  alongside: NonNullable<TransactWriteCommandInput['TransactItems']> = [],
): Promise<boolean> {
  const places = new Map<string, { place: Place; by: number }>();
  for (const { metric, labels, by } of counts) {
    const place = oncePlace(key, metric, labels, now);
    places.set(place.key, { place, by: (places.get(place.key)?.by ?? 0) + by });
  }
  for (const { place } of places.values())
    if (!(await indexFirst(place, windowOf(now))))
      throw new Error('A count made once could not be listed in the index');
  return transactionHeld(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: {
              pk: `COUNTED_ONCE#${key}`,
              sk: 'ONCE',
              entity: 'CountedOnce',
              counts: counts.map(({ metric, labels, by }) => ({ metric, labels, by })),
              [ttlAttribute]: Math.floor(now / 1000) + countedOnceDays * 86_400,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...alongside,
        ...[...places.values()].map(({ place, by }) => ({
          Update: {
            TableName: table(),
            Key: { pk: place.pk, sk: place.sk },
            UpdateExpression:
              'ADD #total :by, #version :one SET entity = :entity, labels = :labels, metric = :metric, last_at = :at',
            ExpressionAttributeNames: { '#total': place.attribute, '#version': 'version' },
            ExpressionAttributeValues: {
              ':by': by,
              ':one': 1,
              ':entity': 'Counter',
              ':labels': place.write.labels,
              ':metric': place.write.metric,
              ':at': place.write.lastAt,
            },
          },
        })),
      ],
    }),
  );
}
