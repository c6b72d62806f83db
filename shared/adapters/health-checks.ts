import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { setting } from '../config.ts';
import { logger } from '../observability/logger.ts';
import { type QueueName, queues } from '../topology.ts';
import { db, table } from './dynamo/table.ts';
import { platformBucket, platformS3 } from './s3/platform-bucket.ts';
import { sqs } from './sqs/client.ts';

export interface Check {
  name: string;
  healthy: boolean;
}

const checkTimeoutMs = 3000;

/**
 * How old a health result may be when it is answered (HEALTH_MAX_AGE_SECONDS, at most and by default
 * 10): the public /health makes its AWS calls no more often, however often it is asked.
 */
export const healthResultMaxAgeMs = () => setting('HEALTH_MAX_AGE_SECONDS') * 1000;

/**
 * `run`, at most once per `maxAgeMs`: a call within that time of the last run's start gets its result
 * (or waits for it, when it is still running), so a flood of requests costs one run per period.
 */
export function recentResult<T>(maxAgeMs: number, run: () => Promise<T>, now: () => number = Date.now) {
  let last: { at: number; result: Promise<T> } | undefined;
  return (): Promise<T> => {
    if (!last || now() - last.at >= maxAgeMs) last = { at: now(), result: run() };
    return last.result;
  };
}

/** A dependency check that answers within a bound; a hung dependency counts as unhealthy. */
async function probe(name: string, run: (signal: AbortSignal) => Promise<unknown>): Promise<Check> {
  try {
    await run(AbortSignal.timeout(checkTimeoutMs));
    return { name, healthy: true };
  } catch (error) {
    logger.warn('Health check failed', { check: name, error: (error as Error).name });
    return { name, healthy: false };
  }
}

export function checkTable(): Promise<Check> {
  return probe('table', (abortSignal) => db.send(new DescribeTableCommand({ TableName: table() }), { abortSignal }));
}

export function checkQueue(queue: QueueName): Promise<Check> {
  return probe(`queue:${queues[queue].name}`, (abortSignal) =>
    sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: process.env[queues[queue].envVar] ?? '',
        AttributeNames: ['QueueArn'],
      }),
      { abortSignal },
    ),
  );
}

export function checkPlatformBucket(): Promise<Check> {
  return probe('platform-bucket', (abortSignal) =>
    platformS3.send(new HeadBucketCommand({ Bucket: platformBucket() }), { abortSignal }),
  );
}
