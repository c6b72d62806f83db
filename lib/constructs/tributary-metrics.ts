import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';

export const tributaryNamespace = 'Tributary';

/** A figure the functions emit (shared/adapters/metrics.ts): its sum over 5 minutes unless told. */
export function tributaryMetric(
  metricName: string,
  dimensions: Record<string, string> = {},
  period = Duration.minutes(5),
) {
  return new Metric({
    namespace: tributaryNamespace,
    metricName,
    dimensionsMap: { service: 'tributary', ...dimensions },
    statistic: 'Sum',
    period,
  });
}
