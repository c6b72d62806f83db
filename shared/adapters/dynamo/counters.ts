/**
 * Shared counters for /metrics and connection stats.
 *   pk COUNTER#<metric>   sk <labels as JSON>#<shard>   value (ADD)
 * A hot counter (one busy source) is spread over shards so that no single item takes every write.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type MetricKey, metricCatalogue, type Sample } from '../../domain/observability/metric-catalogue.ts';
import { db, queryPage, table } from './table.ts';

const shards = 8;

export const counterKeys = {
  partition: (metric: MetricKey) => `COUNTER#${metricCatalogue[metric].name}`,
  sort: (labels: Record<string, string>, shard: number) => `${canonicalLabels(labels)}#${shard}`,
};

function canonicalLabels(labels: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b))));
}

export async function addToCounter(metric: MetricKey, labels: Record<string, string>, by = 1): Promise<void> {
  const shard = Math.floor(Math.random() * shards);
  await db.send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk: counterKeys.partition(metric), sk: counterKeys.sort(labels, shard) },
      UpdateExpression: 'ADD #value :by SET entity = :entity, labels = :labels',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':by': by, ':entity': 'Counter', ':labels': labels },
    }),
  );
}

/** Every series of one metric, shards summed. */
export async function readCounter(metric: MetricKey): Promise<Sample[]> {
  const totals = new Map<string, Sample>();
  let cursor: string | undefined;
  do {
    const page = await queryPage<{ labels: Record<string, string>; value: number }>(
      { partition: counterKeys.partition(metric) },
      { limit: 1000, cursor },
    );
    for (const item of page.items) {
      const key = canonicalLabels(item.labels);
      const sample = totals.get(key) ?? { labels: item.labels, value: 0 };
      sample.value += Number(item.value);
      totals.set(key, sample);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return [...totals.values()];
}
