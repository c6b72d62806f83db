/**
 * One call per event counted: the shared counter (read by /metrics and connection stats) and the
 * CloudWatch metric in Embedded Metric Format (read by alarms and the dashboard) move together.
 * Only low-cardinality labels become CloudWatch dimensions; per-source figures stay in the counters.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { type MetricKey, metricCatalogue } from '../domain/observability/metric-catalogue.ts';
import { logger } from '../observability/logger.ts';
import { metrics } from '../observability/metrics.ts';
import { addToCounter } from './dynamo/counters.ts';

export async function count(metric: MetricKey, labels: Record<string, string>, by = 1): Promise<void> {
  const spec = metricCatalogue[metric];
  const single = metrics.singleMetric();
  for (const dimension of spec.cloudWatch.dimensions) single.addDimension(dimension, labels[dimension] ?? 'none');
  single.addMetric(spec.cloudWatch.name, MetricUnit.Count, by);
  await addToCounter(metric, labels, by);
}

/** Counting must never turn a request's answer into an error: a failed count is logged, not thrown. */
export async function countQuietly(metric: MetricKey, labels: Record<string, string>, by = 1): Promise<void> {
  await count(metric, labels, by).catch((error: Error) =>
    logger.warn('Could not count', { metric, error: error.message }),
  );
}
