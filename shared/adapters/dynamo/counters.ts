/**
 * Shared counters: /metrics and connection stats read the same figures, whichever instance added to
 * them.
 *   pk COUNTER#<metric>   sk <labels as JSON>#<shard>   value (ADD), last_at (when it last moved)
 *     gsi1pk SOURCE#<source_id>#COUNTERS  gsi1sk <metric>#<labels>#<shard>   (series with a source)
 * A busy series is spread over shards so that no single item takes every write. Increments of one
 * series made while a write for it is under way are added up and written together; each caller
 * still waits for the write that carries its increment.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type MetricKey, metricCatalogue, type Sample } from '../../domain/observability/metric-catalogue.ts';
import { db, queryAll, table } from './table.ts';

const shards = 8;

export const counterKeys = {
  partition: (metric: MetricKey) => `COUNTER#${metricCatalogue[metric].name}`,
  sort: (labels: Record<string, string>, shard: number) => `${canonicalLabels(labels)}#${shard}`,
  bySource: (sourceId: string) => `SOURCE#${sourceId}#COUNTERS`,
};

function canonicalLabels(labels: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b))));
}

interface Pending {
  metric: MetricKey;
  labels: Record<string, string>;
  by: number;
  waiters: { resolve: () => void; reject: (error: Error) => void }[];
}

const pending = new Map<string, Pending>();
const writing = new Set<string>();

async function write(series: Pending): Promise<void> {
  const shard = Math.floor(Math.random() * shards);
  const sourceId = series.labels.source_id;
  await db.send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk: counterKeys.partition(series.metric), sk: counterKeys.sort(series.labels, shard) },
      UpdateExpression: `ADD #value :by SET entity = :entity, labels = :labels, metric = :metric, last_at = :at${
        sourceId ? ', gsi1pk = :source, gsi1sk = :order' : ''
      }`,
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: {
        ':by': series.by,
        ':entity': 'Counter',
        ':labels': series.labels,
        ':metric': series.metric,
        ':at': new Date().toISOString(),
        ...(sourceId
          ? {
              ':source': counterKeys.bySource(sourceId),
              ':order': `${series.metric}#${counterKeys.sort(series.labels, shard)}`,
            }
          : {}),
      },
    }),
  );
}

function flush(key: string): void {
  const series = pending.get(key);
  if (!series || writing.has(key)) return;
  pending.delete(key);
  writing.add(key);
  write(series)
    .then(
      () => {
        for (const waiter of series.waiters) waiter.resolve();
      },
      (error: Error) => {
        for (const waiter of series.waiters) waiter.reject(error);
      },
    )
    .finally(() => {
      writing.delete(key);
      flush(key);
    });
}

export function addToCounter(metric: MetricKey, labels: Record<string, string>, by = 1): Promise<void> {
  const key = `${metric}|${canonicalLabels(labels)}`;
  return new Promise((resolve, reject) => {
    const series = pending.get(key) ?? { metric, labels, by: 0, waiters: [] };
    series.by += by;
    series.waiters.push({ resolve, reject });
    pending.set(key, series);
    flush(key);
  });
}

/** Every series of one metric, shards summed. */
export async function readCounter(metric: MetricKey): Promise<Sample[]> {
  const totals = new Map<string, Sample>();
  const items = await queryAll<{ labels: Record<string, string>; value: number }>({
    partition: counterKeys.partition(metric),
  });
  for (const item of items) {
    const key = canonicalLabels(item.labels);
    const sample = totals.get(key) ?? { labels: item.labels, value: 0 };
    sample.value += Number(item.value);
    totals.set(key, sample);
  }
  return [...totals.values()];
}

export interface SourceSeries {
  metric: MetricKey;
  labels: Record<string, string>;
  value: number;
  lastAt: string | null;
}

/** Every counter series of one source (for its connection's stats), shards summed, latest time kept. */
export async function readSourceCounters(sourceId: string): Promise<SourceSeries[]> {
  const totals = new Map<string, SourceSeries>();
  const items = await queryAll<{ metric: MetricKey; labels: Record<string, string>; value: number; last_at?: string }>({
    index: 'gsi1',
    partition: counterKeys.bySource(sourceId),
  });
  for (const item of items) {
    const key = `${item.metric}|${canonicalLabels(item.labels)}`;
    const series = totals.get(key) ?? { metric: item.metric, labels: item.labels, value: 0, lastAt: null };
    series.value += Number(item.value);
    if (item.last_at && (!series.lastAt || item.last_at > series.lastAt)) series.lastAt = item.last_at;
    totals.set(key, series);
  }
  return [...totals.values()];
}
