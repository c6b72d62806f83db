/**
 * Shared counters: /metrics and connection stats read the same figures, whichever process counted.
 *   pk COUNTER#<metric>   sk <labels as JSON>#<epoch>    one process's running total in one epoch
 *   pk COUNTER#<metric>   sk <labels as JSON>#folded     the totals of settled epochs, added up
 *     gsi1pk SOURCE#<source_id>#COUNTERS   gsi1sk <metric>#<labels>#<epoch>   (series with a source)
 *   value, labels, metric, last_at (when the series last moved), entity Counter
 *   pk SOURCE#<source_id>#HISTORY   sk <interval start, ISO>   a source's settled figures in one
 *     15-minute interval: accepted, rejected:<CODE>, written_rows, duplicates, dead_lettered,
 *     redriven (each a number); expires_at (the history's retention), entity CounterHistory
 * A series' figure is the sum of its items. A total is written as "the larger of the stored value
 * and this one", so a retried or late write never counts twice (shared/domain/observability/tally.ts
 * says why counting works this way). Epochs start on the clock's quarter hours, so each lies in one
 * interval. Epochs over an hour old are folded, in one transaction per series and interval, into
 * the series' folded total and the source's history item of that interval: a series stays a
 * handful of items, and its history costs one item per source and interval (the figures of an
 * interval share it). Writes to an epoch over 45 minutes old only raise an item that still exists,
 * so a write arriving after its epoch was folded cannot count it again.
 * A decrement of a gauge is a series of its own, labelled change=down, subtracted when read.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { forEachAtMost } from '../../domain/at-most.ts';
import {
  type HistoryReading,
  historyFigure,
  historyIntervalMs,
  historyRetentionDays,
} from '../../domain/monitoring/history.ts';
import { type MetricKey, metricCatalogue, type Sample } from '../../domain/observability/metric-catalogue.ts';
import { canonicalLabels, epochStartMs, type TotalWrite } from '../../domain/observability/tally.ts';
import { db, isConditionFailure, isTransactionConflict, queryAll, table } from './table.ts';
import { ttlAttribute } from './table-schema.ts';

const foldedSuffix = 'folded';
const guardAfterMs = 45 * 60_000;
const foldAfterMs = 60 * 60_000;

export const counterKeys = {
  partition: (metric: MetricKey) => `COUNTER#${metricCatalogue[metric].name}`,
  sort: (labels: Record<string, string>, epoch: string) => `${canonicalLabels(labels)}#${epoch}`,
  bySource: (sourceId: string) => `SOURCE#${sourceId}#COUNTERS`,
  history: (sourceId: string) => `SOURCE#${sourceId}#HISTORY`,
  historySort: (interval: number) => new Date(interval).toISOString(),
};

const intervalOf = (epoch: string) => Math.floor(epochStartMs(epoch) / historyIntervalMs) * historyIntervalMs;
const epochOf = (sk: string) => sk.slice(sk.lastIndexOf('#') + 1);

function indexAttributes(metric: MetricKey, labels: Record<string, string>, epoch: string) {
  return labels.source_id
    ? { gsi1pk: counterKeys.bySource(labels.source_id), gsi1sk: `${metric}#${counterKeys.sort(labels, epoch)}` }
    : {};
}

async function writeTotal(write: TotalWrite, now: number): Promise<void> {
  const index = indexAttributes(write.metric, write.labels, write.epoch);
  const settled = now - epochStartMs(write.epoch) > guardAfterMs;
  try {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: counterKeys.partition(write.metric), sk: counterKeys.sort(write.labels, write.epoch) },
        UpdateExpression: `SET #value = :value, entity = :entity, labels = :labels, metric = :metric, last_at = :at${
          index.gsi1pk ? ', gsi1pk = :gsi1pk, gsi1sk = :gsi1sk' : ''
        }`,
        ConditionExpression: settled
          ? 'attribute_exists(pk) AND #value < :value'
          : 'attribute_not_exists(#value) OR #value < :value',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: {
          ':value': write.value,
          ':entity': 'Counter',
          ':labels': write.labels,
          ':metric': write.metric,
          ':at': write.lastAt,
          ...(index.gsi1pk ? { ':gsi1pk': index.gsi1pk, ':gsi1sk': index.gsi1sk } : {}),
        },
      }),
    );
  } catch (error) {
    // Already as large (or folded): nothing to add.
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * At most this many counter writes at once. A flush can hold a series per source the process has
 * seen (hundreds): all at once, they queued every other request to the table behind them (in local
 * mode, ingest requests whose source was not cached waited over a second).
 */
const counterWritesAtOnce = 8;

/** Writes totals; answers those that could not be written (to be tried again). */
export async function writeTotals(writes: TotalWrite[], now = Date.now()): Promise<TotalWrite[]> {
  const failed: TotalWrite[] = [];
  await forEachAtMost(writes, counterWritesAtOnce, (write) =>
    writeTotal(write, now).catch(() => void failed.push(write)),
  );
  return failed;
}

interface CounterItem {
  sk: string;
  metric: MetricKey;
  labels: Record<string, string>;
  value: number;
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
    series.value += change === 'down' ? -Number(item.value) : Number(item.value);
    if (item.last_at && (!series.lastAt || item.last_at > series.lastAt)) series.lastAt = item.last_at;
    totals.set(key, series);
  }
  return [...totals.values()];
}

/** Every series of one metric. */
export async function readCounter(metric: MetricKey): Promise<Sample[]> {
  return sumSeries(await queryAll<CounterItem>({ partition: counterKeys.partition(metric) })).map(
    ({ labels, value }) => ({
      labels,
      value,
    }),
  );
}

/** Every counter series of one source (its connection's stats), with when each last moved. */
export async function readSourceCounters(sourceId: string): Promise<SourceSeries[]> {
  return sumSeries(await queryAll<CounterItem>({ index: 'gsi1', partition: counterKeys.bySource(sourceId) }));
}

/** What a series adds to its source's history: its figure, and +1 or -1 (a change=down series takes away). */
function historyShare(metric: MetricKey, labels: Record<string, string>) {
  const figure = labels.source_id ? historyFigure(metric, labels) : null;
  return figure ? { sourceId: labels.source_id as string, figure, sign: labels.change === 'down' ? -1 : 1 } : null;
}

/**
 * Folds the epochs that started over an hour ago: per series and 15-minute interval, one
 * transaction deletes them (each only if unchanged), adds their values to the series' folded total
 * and, for a source's series, to its history item of that interval. Answers the items folded.
 */
export async function foldSettledEpochs(now = Date.now()): Promise<number> {
  let folded = 0;
  for (const metric of Object.keys(metricCatalogue) as MetricKey[]) {
    const groups = new Map<string, { interval: number; items: CounterItem[] }>();
    for (const item of await queryAll<CounterItem>({ partition: counterKeys.partition(metric) })) {
      const epoch = epochOf(item.sk);
      if (epoch === foldedSuffix || now - epochStartMs(epoch) <= foldAfterMs) continue;
      const interval = intervalOf(epoch);
      const key = `${canonicalLabels(item.labels)}|${interval}`;
      const group = groups.get(key) ?? { interval, items: [] };
      group.items.push(item);
      groups.set(key, group);
    }
    for (const { interval, items } of groups.values()) {
      for (let i = 0; i < items.length; i += 98) {
        const chunk = items.slice(i, i + 98);
        const labels = (chunk[0] as CounterItem).labels;
        const sum = chunk.reduce((total, item) => total + Number(item.value), 0);
        const lastAt = chunk.reduce(
          (latest, item) => (item.last_at && item.last_at > latest ? item.last_at : latest),
          '',
        );
        const index = indexAttributes(metric, labels, foldedSuffix);
        const share = historyShare(metric, labels);
        try {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                ...chunk.map((item) => ({
                  Delete: {
                    TableName: table(),
                    Key: { pk: counterKeys.partition(metric), sk: item.sk },
                    ConditionExpression: '#value = :value',
                    ExpressionAttributeNames: { '#value': 'value' },
                    ExpressionAttributeValues: { ':value': item.value },
                  },
                })),
                {
                  Update: {
                    TableName: table(),
                    Key: { pk: counterKeys.partition(metric), sk: counterKeys.sort(labels, foldedSuffix) },
                    UpdateExpression: `ADD #value :sum SET entity = :entity, labels = :labels, metric = :metric, last_at = :at${
                      index.gsi1pk ? ', gsi1pk = :gsi1pk, gsi1sk = :gsi1sk' : ''
                    }`,
                    ExpressionAttributeNames: { '#value': 'value' },
                    ExpressionAttributeValues: {
                      ':sum': sum,
                      ':entity': 'Counter',
                      ':labels': labels,
                      ':metric': metric,
                      ':at': lastAt,
                      ...(index.gsi1pk ? { ':gsi1pk': index.gsi1pk, ':gsi1sk': index.gsi1sk } : {}),
                    },
                  },
                },
                ...(share
                  ? [
                      {
                        Update: {
                          TableName: table(),
                          Key: { pk: counterKeys.history(share.sourceId), sk: counterKeys.historySort(interval) },
                          UpdateExpression: 'ADD #figure :sum SET entity = :entity, #expires = :expires',
                          ExpressionAttributeNames: { '#figure': share.figure, '#expires': ttlAttribute },
                          ExpressionAttributeValues: {
                            ':sum': share.sign * sum,
                            ':entity': 'CounterHistory',
                            ':expires': Math.floor(interval / 1000) + (historyRetentionDays + 1) * 86_400,
                          },
                        },
                      },
                    ]
                  : []),
              ],
            }),
          );
          folded += chunk.length;
        } catch (error) {
          // An item moved meanwhile: it is folded on a later run.
          if (!isTransactionConflict(error)) throw error;
        }
      }
    }
  }
  return folded;
}

const historyItemAttributes = new Set(['pk', 'sk', 'entity', ttlAttribute]);

/**
 * A source's history of the intervals starting in [from, to): its folded history items, and the
 * epochs of its series not folded yet (the last hour or so). Like the stats, a reading taken while
 * an interval is being folded may count that interval twice for a moment: the index it reads the
 * epochs from follows the fold a fraction of a second late.
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
    queryAll<CounterItem>({ index: 'gsi1', partition: counterKeys.bySource(sourceId) }),
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
      readings.push({ interval, figure: share.figure, value: share.sign * Number(item.value) });
  }
  return readings;
}
