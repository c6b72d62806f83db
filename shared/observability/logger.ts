import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * Structured logs (JSON, one line per event) and CloudWatch metrics in Embedded Metric Format.
 * Keys such as tenant_id, source_id and request_id are appended per invocation; secrets and
 * payloads are never logged.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tributary' });

export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Tributary',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tributary',
});
