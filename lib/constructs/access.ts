import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { type Access, type QueueName, queues } from '#shared/topology.ts';

export interface SharedResources {
  table: Table;
  queues: Record<QueueName, Queue>;
  platformBucket: Bucket;
  secretsKey: ISecret;
}

/**
 * Turns a function's declared Access (shared/routes.ts, shared/topology.ts) into its IAM grants
 * and the environment variables that name the resources, in one call: a function can reach exactly
 * what it declares and nothing else.
 */
export function bindAccess(
  fn: IFunction & { addEnvironment(key: string, value: string): unknown },
  access: Access,
  resources: SharedResources,
): void {
  if (access.table) {
    if (access.table === 'readWrite') resources.table.grantReadWriteData(fn);
    else resources.table.grantReadData(fn);
    fn.addEnvironment('TABLE_NAME', resources.table.tableName);
  }
  for (const [name, mode] of Object.entries(access.queues ?? {}) as [QueueName, 'send' | 'consume' | 'inspect'][]) {
    const queue = resources.queues[name];
    if (mode === 'send') queue.grantSendMessages(fn);
    if (mode === 'inspect') queue.grant(fn, 'sqs:GetQueueAttributes');
    // 'consume' is granted by the event source mapping itself.
    fn.addEnvironment(queues[name].envVar, queue.queueUrl);
  }
  if (access.secretsKey) {
    resources.secretsKey.grantRead(fn);
    fn.addEnvironment('SECRETS_KEY_SECRET_ARN', resources.secretsKey.secretArn);
  }
  if (access.platformBucket) {
    if (access.platformBucket === 'readWrite') resources.platformBucket.grantReadWrite(fn);
    else resources.platformBucket.grantRead(fn);
    fn.addEnvironment('PLATFORM_BUCKET', resources.platformBucket.bucketName);
  }
}
