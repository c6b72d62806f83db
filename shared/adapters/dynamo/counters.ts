/**
 * Shared counters: /metrics and connection stats read the same figures, whichever process counted.
 *   pk COUNTER#<metric>   sk <labels as JSON>#<epoch>    one process's running total in one epoch
 *   pk COUNTER#<metric>   sk <labels as JSON>#folded     the totals of settled epochs, added up
 *     gsi1pk SOURCE#<source_id>#COUNTERS   gsi1sk <metric>#<labels>#<epoch>   (series with a source)
 *   value, labels, metric, last_at (when the series last moved), entity Counter
 * A series' figure is the sum of its items. A total is written as "the larger of the stored value
 * and this one", so a retried or late write never counts twice (shared/domain/observability/tally.ts
 * says why counting works this way). Epochs over an hour old are folded, so a series stays a handful
 * of items; writes to an epoch over 45 minutes old only raise an item that still exists, so a write
 * arriving after its epoch was folded cannot count it again.
 * A decrement of a gauge is a series of its own, labelled change=down, subtracted when read.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type MetricKey, metricCatalogue, type Sample } from '../../domain/observability/metric-catalogue.ts';
import { canonicalLabels, epochStartMs, type TotalWrite } from '../../domain/observability/tally.ts';
import { db, isConditionFailure, isTransactionConflict, queryAll, table } from './table.ts';

const foldedSuffix = 'folded';
const guardAfterMs = 45 * 60_000;
const foldAfterMs = 60 * 60_000;

export const counterKeys = {
  partition: (metric: MetricKey) => `COUNTER#${metricCatalogue[metric].name}`,
  sort: (labels: Record<string, string>, epoch: string) => `${canonicalLabels(labels)}#${epoch}`,
  bySource: (sourceId: string) => `SOURCE#${sourceId}#COUNTERS`,
};

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

/** Writes totals; answers those that could not be written (to be tried again). */
export async function writeTotals(writes: TotalWrite[], now = Date.now()): Promise<TotalWrite[]> {
  const failed: TotalWrite[] = [];
  await Promise.all(writes.map((write) => writeTotal(write, now).catch(() => failed.push(write))));
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

/**
 * Folds the epochs that started over an hour ago into each series' folded item: per series, one
 * transaction deletes them (each only if unchanged) and adds their values. Answers the items folded.
 */
export async function foldSettledEpochs(now = Date.now()): Promise<number> {
  let folded = 0;
  for (const metric of Object.keys(metricCatalogue) as MetricKey[]) {
    const bySeries = new Map<string, CounterItem[]>();
    for (const item of await queryAll<CounterItem>({ partition: counterKeys.partition(metric) })) {
      const epoch = item.sk.slice(item.sk.lastIndexOf('#') + 1);
      if (epoch === foldedSuffix || now - epochStartMs(epoch) <= foldAfterMs) continue;
      const key = canonicalLabels(item.labels);
      bySeries.set(key, [...(bySeries.get(key) ?? []), item]);
    }
    for (const items of bySeries.values()) {
      for (let i = 0; i < items.length; i += 99) {
        const chunk = items.slice(i, i + 99);
        const labels = (chunk[0] as CounterItem).labels;
        const lastAt = chunk.reduce(
          (latest, item) => (item.last_at && item.last_at > latest ? item.last_at : latest),
          '',
        );
        const index = indexAttributes(metric, labels, foldedSuffix);
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
                      ':sum': chunk.reduce((sum, item) => sum + Number(item.value), 0),
                      ':entity': 'Counter',
                      ':labels': labels,
                      ':metric': metric,
                      ':at': lastAt,
                      ...(index.gsi1pk ? { ':gsi1pk': index.gsi1pk, ':gsi1sk': index.gsi1sk } : {}),
                    },
                  },
                },
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
