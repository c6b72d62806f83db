import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
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
