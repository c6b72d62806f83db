import { SQSClient } from '@aws-sdk/client-sqs';

/** One SQS client per process; the endpoint comes from AWS_ENDPOINT_URL_SQS when set. */
export const sqs = new SQSClient({});
