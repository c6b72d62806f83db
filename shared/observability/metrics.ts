import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * CloudWatch metrics in Embedded Metric Format. Apart from the logger so that only the functions
 * that count something load it.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Tributary',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tributary',
});
