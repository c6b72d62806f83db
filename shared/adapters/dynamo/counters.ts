/**
 * Shared counters: /metrics and connection stats read the same figures, whichever process counted.
 * A series lives with its source, so that its writes and reads grow with that source alone:
 *   pk COUNTER#<source_id>          sk <metric>#<labels as JSON>#<quarter>.s<slot>  the running totals of the
 *                                   processes whose epoch of that quarter falls in that slot, each an
 *                                   attribute t_<process> (n < epochSlots), and version (one more a write)
 *   pk COUNTER#<source_id>          sk <metric>#<labels as JSON>#folded   the totals of settled epochs, added up
 *   pk COUNTER#PLATFORM#<n>         the same for series of no source (and of source "unknown"), a shard
 *                                   per process (n < platformShards)
 *   labels, metric, last_at (when the series last moved), entity Counter; value: a folded total (and
 *   the one process's total of an item written before slots)
 *   pk COUNTED#<quarter start, ISO>#<n>   sk <pk>#<sk>   the index of a quarter's items, until folded: item_pk,
 *                                   item_sk, entity CounterIndex, expires_at (n < indexShards: the item's
 *                                   partition's shard, so that a source's items are in one). Written by each
 *                                   process once per item, before its first total there: a total written
 *                                   again is one write unit, where an index of the table (every attribute
 *                                   projected) took a second unit with every write. Items written before
 *                                   the index moved here carry gsi1pk/gsi1sk (the same keys): the fold
 *                                   reads them there too, so an upgrade loses nothing; for the hour and a
 *                                   quarter until they are folded, a source that counted only before the
 *                                   upgrade is not read as one that moved (its stats hold its figures).
 *   pk SOURCE#<source_id>#HISTORY   sk <interval start, ISO>   a source's settled figures in one
 *     15-minute interval: accepted, rejected:<CODE>, written_rows, duplicates, dead_lettered,
 *     redriven (each a number); expires_at (the history's retention), entity CounterHistory
 *   pk COUNTER#UPKEEP               sk FOLDED         through: epochs starting before it are folded (ms)
 *   pk COUNTER#UNACCOUNTED          sk <source_id>    unaccounted: a settled source's figure, kept only
 *                                                     while it is not 0 (a loss stays visible for good)
 *   pk COUNTED_ONCE#<key>           sk ONCE           a count made once per key (countOnce): what it counts
 *                                                     (a lost staged record, a dead letter), expires_at
 * A series' figure is the sum of its items. A total is written as "the larger of the stored value
 * and this one", so a retried or late write never counts twice (shared/domain/observability/tally.ts
 * says why counting works this way). Epochs start on the clock's quarter hours, so each lies in one
 * interval. Epochs over an hour old are folded, in one transaction per series and interval, into
 * the series' folded total and the source's history item of that interval. Writes to an epoch over
 * 45 minutes old only raise an item that still exists, so a write arriving after its epoch was
 * folded cannot count it again, and no item appears in an epoch the upkeep has passed.
 * The index holds only epochs not yet folded, by when they started: the upkeep finds what to fold,
 * and the sources that moved in the last hour or so, without reading any source that did not.
 * Every partition key takes a bounded share of the writes: a source's own (its instances' flushes),
 * a shard of the platform's series, a shard of the current quarter's index.
 * A decrement of a gauge is a series of its own, labelled change=down, subtracted when read.
 */
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { forEachAtMost } from '../../domain/at-most.ts';
import {
  type HistoryReading,
  historyFigure,
  historyIntervalMs,
  historyRetentionDays,
} from '../../domain/monitoring/history.ts';
import { type MetricKey, type Sample, unaccountedBySource } from '../../domain/observability/metric-catalogue.ts';
import { canonicalLabels, epochStartMs, type TotalWrite } from '../../domain/observability/tally.ts';
import {
  batchGetAll,
  db,
  isConditionFailure,
  isTransactionConflict,
  queryAll,
  table,
  transactionHeld,
} from './table.ts';
import { ttlAttribute } from './table-schema.ts';

const foldedSuffix = 'folded';
const guardAfterMs = 45 * 60_000;
const foldAfterMs = 60 * 60_000;
/**
 * Shards of the index of one quarter: at most 64,000 counter writes a second in all before one passes
 * 1,000. Each write of a counter item writes its index entry too, and an ingest instance's flush writes
 * a series per source it saw (about 550 per thousand requests over 10,000 sources at Zipf rates): at
 * 50,000 requests a second, some 27,500 writes a second. The upkeep reads every shard of a quarter once
 * a run, a query each.
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
  sort: (metric: MetricKey, labels: Record<string, string>, epoch: string) =>
    `${metric}#${canonicalLabels(labels)}#${epoch}`,
  index: (quarter: number, shard: number) => `COUNTED#${new Date(quarter).toISOString()}#${shard}`,
  history: (sourceId: string) => `SOURCE#${sourceId}#HISTORY`,
  historySort: (interval: number) => new Date(interval).toISOString(),
  upkeep: { pk: 'COUNTER#UPKEEP', sk: 'FOLDED' },
  unaccounted: 'COUNTER#UNACCOUNTED',
};

const quarterOf = (ms: number) => Math.floor(ms / historyIntervalMs) * historyIntervalMs;
const intervalOf = (epoch: string) => quarterOf(epochStartMs(epoch));
const epochOf = (sk: string) => sk.slice(sk.lastIndexOf('#') + 1);

/**
 * How long an index entry is kept: the upkeep folds a quarter within hours, and expiry deletes it for
 * nothing (a delete is a write). Were the upkeep stopped longer, the items of those quarters would stay
 * unfolded: still counted in every figure, though no longer read as a source that moved.
 */
const indexLifetimeSeconds = 7 * 86_400;

/**
 * An item's index entry. A partition's items are indexed in one shard (a source's all in its own), so
 * that a share of the sources reads a share of the index.
 */
function indexEntry(pk: string, sk: string, epoch: string) {
  const quarter = intervalOf(epoch);
  return {
    pk: counterKeys.index(quarter, shardOf(pk, indexShards)),
    sk: `${pk}#${sk}`,
    entity: 'CounterIndex',
    item_pk: pk,
    item_sk: sk,
    [ttlAttribute]: Math.floor(quarter / 1000) + indexLifetimeSeconds,
  };
}

/**
 * At most this many counter writes at once. A flush can hold a series per source the process has
 * seen (hundreds): all at once, they queued every other request to the table behind them (in local
 * mode, ingest requests whose source was not cached waited over a second).
 */
const counterWritesAtOnce = 8;

/**
 * Items this process has indexed (`<pk>#<sk>`): it writes an item's index entry once, before its first
 * total there. Forgotten all at once past a bound (each then indexed once more).
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
 * Indexes the items these totals go to that this process has not indexed yet, before the totals, so
 * that no item is left out of the index; not for a settled epoch, whose item exists (indexed) or is
 * folded. Answers the items whose entry could not be written (their totals wait for the next write).
 */
async function indexFirst(places: Place[]): Promise<Set<string>> {
  const entries = new Map<string, ReturnType<typeof indexEntry>>();
  for (const { pk, sk, key, itemEpoch, settled } of places)
    if (!settled && !indexed.has(key)) entries.set(key, indexEntry(pk, sk, itemEpoch));
  const unindexed = new Set<string>();
  if (indexed.size + entries.size > indexedAtMost) indexed.clear();
  await forEachAtMost([...entries], counterWritesAtOnce, async ([key, Item]) => {
    try {
      await db.send(new PutCommand({ TableName: table(), Item }));
      indexed.add(key);
    } catch {
      unindexed.add(key);
    }
  });
  return unindexed;
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
  let sum = Number(item.value ?? 0);
  for (const [name, value] of Object.entries(item)) if (name.startsWith('t_')) sum += Number(value);
  return sum;
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
  const unindexed = await indexFirst(places);
  await forEachAtMost(places, counterWritesAtOnce, async (place) => {
    if (unindexed.has(place.key)) failed.push(place.write);
    else
      await writeTotal(place).then(
        (by) => by > 0 && grew(place.write, by),
        () => void failed.push(place.write),
      );
  });
  return failed;
}

interface CounterItem {
  pk: string;
  sk: string;
  metric: MetricKey;
  labels: Record<string, string>;
  /** Each process's total, by `t_<process>`. */
  [total: `t_${string}`]: number;
  /** One more with every write: a fold deletes the item only if nobody wrote it since it was read. */
  version?: number;
  /** A folded total, or an item written before slots. */
  value?: number;
  last_at?: string;
}

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
  queryAll<CounterItem>({ partition: counterKeys.source(sourceId), consistent: false });

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
 * The keys of the items the index lists in one quarter, in the shards of a share; with `before`, also
 * the items written before the index moved into the table (listed by their own index attributes),
 * which the fold reads until none is left (an hour and a quarter after an upgrade).
 */
async function indexedKeys(
  quarter: number,
  share = everySource,
  options: { before?: boolean } = {},
): Promise<{ pk: string; sk: string }[]> {
  const shards = await Promise.all(
    Array.from({ length: indexShards / share.shards }, async (_, n) => {
      const partition = counterKeys.index(quarter, share.shard + n * share.shards);
      const [entries, before] = await Promise.all([
        queryAll<{ item_pk: string; item_sk: string }>({ partition, consistent: false }),
        options.before ? queryAll<{ pk: string; sk: string }>({ index: 'gsi1', partition }) : [],
      ]);
      return [
        ...entries.map((entry) => ({ pk: entry.item_pk, sk: entry.item_sk })),
        ...before.map((item) => ({ pk: item.pk, sk: item.sk })),
      ];
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
      // Items indexed before a source's were all in its shard sit in any shard: each is read by its own share.
      if (source && inShare(source, share)) sources.add(source);
    }
  return sources;
}

/** Sources of a share settled with a figure unaccounted for, and that figure. */
async function settledUnaccounted(share: SourceShare): Promise<Map<string, number>> {
  const items = await queryAll<{ sk: string; unaccounted: number }>({ partition: counterKeys.unaccounted });
  return new Map(items.filter((item) => inShare(item.sk, share)).map((item) => [item.sk, Number(item.unaccounted)]));
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
  /** Every series of the platform and of the sources that moved recently, by metric. */
  samples: Map<MetricKey, Sample[]>;
  /** Each source's figure unaccounted for (not 0): the recent ones read now, settled ones as kept. */
  unaccounted: Map<string, number>;
}

/**
 * What /metrics and the upkeep read: the platform's series, and the series of the sources that
 * moved since the last epochs were folded (an hour or so), each source read whole; sources quiet
 * since are represented by their unaccounted figure alone, kept when they settled. Work grows with
 * the sources that moved, never with every source there is. A share reads its sources only (and the
 * platform's series with share 0): GET /metrics in shards, each a scrape target of its own.
 */
export async function readRecentCounters(now = Date.now(), share = everySource): Promise<CounterReading> {
  if (indexShards % share.shards !== 0 || share.shard < 0 || share.shard >= share.shards)
    throw new Error(`No share ${share.shard} of ${share.shards}: shards divide ${indexShards}`);
  const [platform, sources, settled] = await Promise.all([
    share.shard === 0
      ? Promise.all(
          Array.from({ length: platformShards }, (_, shard) =>
            queryAll<CounterItem>({ partition: counterKeys.platform(shard), consistent: false }),
          ),
        )
      : [],
    recentSources(now, share),
    settledUnaccounted(share),
  ]);
  const samples = samplesOf(sumSeries(platform.flat()));
  const recent = new Map<MetricKey, Sample[]>();
  // Each source a small query of its own partition: many at once (100,000 quiet sources are 100,000 queries).
  await forEachAtMost([...sources], 32, async (source) => {
    const series = sumSeries(await sourceItems(source));
    samplesOf(series, samples);
    samplesOf(series, recent);
  });
  const unaccounted = unaccountedBySource(recent);
  for (const [source, figure] of settled) if (!sources.has(source)) unaccounted.set(source, figure);
  return { samples, unaccounted };
}

/** What a series adds to its source's history: its figure, and +1 or -1 (a change=down series takes away). */
function historyShare(metric: MetricKey, labels: Record<string, string>) {
  const source = sourceOf(labels);
  const figure = source ? historyFigure(metric, labels) : null;
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
  const { pk, metric, labels } = items[0] as CounterItem;
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
 * Folds the epochs that started over an hour ago, quarter by quarter from where the last run
 * stopped, as the index lists them (each read by its key): per series and 15-minute interval, one
 * transaction deletes them (each only if unchanged), adds their values to the series' folded total
 * and, for a source's series, to its history item of that interval. A quarter with an item that
 * moved meanwhile (read a moment before its last write) is read again next time. Answers the items
 * folded, and the sources they belonged to.
 */
export async function foldSettledEpochs(now = Date.now()): Promise<{ folded: number; sources: Set<string> }> {
  const sources = new Set<string>();
  let folded = 0;
  let through: number | null = null;
  // At most two hours of quarters a run (after a pause, the next runs catch up).
  for (const quarter of (await unfoldedQuarters(now)).slice(0, 8)) {
    if (now - quarter <= foldAfterMs) break;
    // The items the index lists, read by key (a hundred a call), by partition and series.
    const keys = new Map(
      (await indexedKeys(quarter, everySource, { before: true })).map((key) => [`${key.pk}#${key.sk}`, key]),
    );
    const partitions = new Map<string, Map<string, CounterItem[]>>();
    for (const item of (await batchGetAll([...keys.values()])) as unknown as CounterItem[]) {
      if (now - epochStartMs(epochOf(item.sk)) <= foldAfterMs) continue;
      const series = partitions.get(item.pk) ?? new Map<string, CounterItem[]>();
      const key = `${item.metric}|${canonicalLabels(item.labels)}`;
      series.set(key, [...(series.get(key) ?? []), item]);
      partitions.set(item.pk, series);
    }
    let whole = true;
    // Partitions side by side (a quarter holds every source that moved in it: a transaction each, one
    // after another, would take longer than the five minutes between runs at 100,000 sources); a
    // partition's series one after another, since they add to the same history item.
    await forEachAtMost([...partitions.values()], foldsAtOnce, async (series) => {
      for (const items of series.values())
        for (let i = 0; i < items.length; i += 98) {
          const chunk = items.slice(i, i + 98);
          if (await foldGroup(chunk, quarter)) {
            folded += chunk.length;
            const source = sourceOf((chunk[0] as CounterItem).labels);
            if (source) sources.add(source);
          } else whole = false;
        }
    });
    if (!whole) break;
    through = quarter + historyIntervalMs;
  }
  if (through !== null)
    await db.send(
      new PutCommand({ TableName: table(), Item: { ...counterKeys.upkeep, entity: 'CounterUpkeep', through } }),
    );
  return { folded, sources };
}

/**
 * Keeps the unaccounted figure of sources that settled (none of their epochs left to fold): a
 * source quiet since a loss is read by nobody, so its figure is kept apart while it is not 0, and
 * dropped once it is. Called with the sources whose epochs were just folded.
 */
export async function keepSettledFigures(sources: Iterable<string>): Promise<void> {
  await forEachAtMost([...sources], 8, async (source) => {
    const items = await sourceItems(source);
    if (items.some((item) => epochOf(item.sk) !== foldedSuffix)) return;
    const figure = unaccountedBySource(samplesOf(sumSeries(items))).get(source) ?? 0;
    const key = { pk: counterKeys.unaccounted, sk: source };
    if (figure === 0) await db.send(new DeleteCommand({ TableName: table(), Key: key }));
    else
      await db.send(
        new PutCommand({ TableName: table(), Item: { ...key, entity: 'CounterUnaccounted', unaccounted: figure } }),
      );
  });
}

const historyItemAttributes = new Set(['pk', 'sk', 'entity', ttlAttribute]);

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
    queryAll<Record<string, unknown>>({
      partition: counterKeys.history(sourceId),
      sortBetween: [counterKeys.historySort(from), counterKeys.historySort(to - 1)],
      consistent: false,
    }),
    sourceItems(sourceId),
  ]);
  const readings: HistoryReading[] = [];
  for (const item of kept) {
    // DynamoDB deletes expired items within days, not at once.
    if (Number(item[ttlAttribute] ?? Number.POSITIVE_INFINITY) * 1000 <= now) continue;
    const interval = Date.parse(String(item.sk));
    for (const [figure, value] of Object.entries(item))
      if (!historyItemAttributes.has(figure)) readings.push({ interval, figure, value: Number(value) });
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
 * Adds to series once per `key`, however often it is asked: a loss counted by an invocation that
 * then ends before recording what it counted (a crash, a timeout) is counted again by its retry,
 * and a doubled figure offsets a later real loss in the unaccounted figure. One transaction puts the
 * key's item (only where none is) and adds to each series' folded total, so that the count and its
 * key are written together or not at all; a source's series adds to its history item of the interval
 * the count is made in, as folding adds an epoch's. Answers false, adding nothing, when the key was counted.
 * A platform series (no source) goes to the folded total of one of its shards, chosen by the key.
 */
export async function countOnce(
  key: string,
  counts: { metric: MetricKey; labels: Record<string, string>; by: number }[],
  now = Date.now(),
): Promise<boolean> {
  const at = new Date(now).toISOString();
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
        ...counts.map(({ metric, labels, by }) => {
          const source = sourceOf(labels);
          return {
            Update: {
              TableName: table(),
              Key: {
                pk: source ? counterKeys.source(source) : counterKeys.platform(shardOf(key, platformShards)),
                sk: counterKeys.sort(metric, labels, foldedSuffix),
              },
              UpdateExpression:
                'ADD #value :by SET entity = :entity, labels = :labels, metric = :metric, last_at = :at',
              ExpressionAttributeNames: { '#value': 'value' },
              ExpressionAttributeValues: {
                ':by': by,
                ':entity': 'Counter',
                ':labels': labels,
                ':metric': metric,
                ':at': at,
              },
            },
          };
        }),
        ...historyOfCounts(counts, now),
      ],
    }),
  );
}

/** What counts made once add to their sources' history items of the interval they were made in (one write per source). */
function historyOfCounts(counts: { metric: MetricKey; labels: Record<string, string>; by: number }[], now: number) {
  const bySource = new Map<string, Record<string, number>>();
  for (const { metric, labels, by } of counts) {
    const share = historyShare(metric, labels);
    if (!share) continue;
    const figures = bySource.get(share.sourceId) ?? {};
    figures[share.figure] = (figures[share.figure] ?? 0) + share.sign * by;
    bySource.set(share.sourceId, figures);
  }
  return [...bySource].map(([sourceId, figures]) => addToHistory(sourceId, quarterOf(now), figures));
}
