import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured logs (JSON, one line per event). Keys such as tenant_id, source_id and request_id are
 * appended per invocation; secrets and payloads are never logged.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'tributary' });
