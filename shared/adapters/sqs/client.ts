import { SQSClient } from '@aws-sdk/client-sqs';
import { callLimits, smallCallLimits } from '../aws-http.ts';

/**
 * One SQS client per process; the endpoint comes from AWS_ENDPOINT_URL_SQS when set. The MD5
 * re-validation of each response is off: TLS already guarantees integrity in transit, and the
 * check costs a quarter of the client's CPU per call on the ingest hot path. A call unanswered for
 * 5 s is tried again (shared/adapters/aws-http.ts).
 */
export const sqs = new SQSClient({ md5: false, cacheMiddleware: true, requestHandler: callLimits(smallCallLimits) });
