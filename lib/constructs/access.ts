import { Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { apiKeyKeys } from '#shared/adapters/dynamo/api-key-items.ts';
import { globalIndexes } from '#shared/adapters/dynamo/table-schema.ts';
import { type Access, type QueueName, queues } from '#shared/topology.ts';

export interface SharedResources {
  table: Table;
  queues: Record<QueueName, Queue>;
  platformBucket: Bucket;
  secretsKey: ISecret;
  cursorKey: ISecret;
  bootstrapKey: ISecret;
  tenantStores: {
    /** Buckets reached with the platform's own role (stores registered without keys or a role). */
    bucketNames: string[];
    /** Roles in tenants' accounts that may be assumed (stores registered with a role_arn). */
    roleArns: string[];
    /** Custom store endpoints the deployment accepts (host patterns); none by default. */
    allowedEndpoints: string[];
  };
}

/** The DynamoDB calls the code makes; transactions are authorised per item by these same actions. */
const tableReads = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:DescribeTable'];
const tableWrites = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];
/** How cdk-nag names the platform bucket's objects in its findings: the stateful stack's export, then /*. */
const platformObjectsFinding = 'TributaryStateful:ExportsOutputFnGetAttPlatformBucket45416B39Arn74244195/*';

const objectReads = ['s3:GetObject'];
const objectWrites = ['s3:PutObject', 's3:DeleteObject'];

/**
 * Turns a function's declared Access (shared/routes/, shared/topology.ts) into IAM statements and
 * the environment variables that name the resources, in one call: a function can reach exactly what
 * it declares, each resource by its own ARN (the table and each of its indexes, each queue, the
 * platform bucket), with no wildcard standing for "any table, queue or bucket".
 */
export function bindAccess(
  fn: IFunction & { addEnvironment(key: string, value: string): unknown },
  access: Access,
  resources: SharedResources,
): void {
  const allow = (actions: string[], arns: string[], conditions?: Record<string, Record<string, unknown>>) =>
    fn.addToRolePolicy(new PolicyStatement({ actions, resources: arns, conditions }));

  // Every function knows which custom store endpoints are accepted: the ones that register a store check
  // it then, the ones that reach a store at every use. Unset means none.
  if (resources.tenantStores.allowedEndpoints.length > 0) {
    fn.addEnvironment('ALLOWED_STORE_ENDPOINTS', resources.tenantStores.allowedEndpoints.join(','));
  }

  const { table } = resources;
  if (access.table) {
    const writes = access.table === 'readWrite';
    allow(writes ? [...tableReads, ...tableWrites] : tableReads, [table.tableArn]);
    allow(
      ['dynamodb:Query'],
      globalIndexes.map((index) => `${table.tableArn}/index/${index.name}`),
    );
    if (!writes && access.recordsKeyUse) {
      // Authentication notes an API key's last use; a read-only route may write that one attribute
      // of API key items and nothing else.
      allow(['dynamodb:UpdateItem'], [table.tableArn], {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': [apiKeyKeys.lookup('*').pk, apiKeyKeys.userPartition('*')],
        },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      });
    }
    fn.addEnvironment('TABLE_NAME', table.tableName);
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

  if (access.cursorKey) {
    resources.cursorKey.grantRead(fn);
    fn.addEnvironment('CURSOR_KEY_SECRET_ARN', resources.cursorKey.secretArn);
  }

  if (access.bootstrapKey) {
    resources.bootstrapKey.grantRead(fn);
    resources.bootstrapKey.grantWrite(fn);
    fn.addEnvironment('BOOTSTRAP_KEY_SECRET_ARN', resources.bootstrapKey.secretArn);
  }

  if (access.platformBucket) {
    const bucket = resources.platformBucket;
    allow(access.platformBucket === 'readWrite' ? [...objectReads, ...objectWrites] : objectReads, [
      bucket.arnForObjects('*'),
    ]);
    allow(['s3:ListBucket'], [bucket.bucketArn]);
    Validations.of(fn.role ?? fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${platformObjectsFinding}]`,
      reason:
        'The objects of the platform bucket (claim checks, dead letters, job results), named by key, not any bucket.',
    });
    fn.addEnvironment('PLATFORM_BUCKET', bucket.bucketName);
  }

  if (access.tenantStores) {
    const { bucketNames, roleArns } = resources.tenantStores;
    if (bucketNames.length > 0) {
      allow(
        [...objectReads, ...objectWrites],
        bucketNames.map((name) => `arn:aws:s3:::${name}/*`),
      );
      allow(
        ['s3:ListBucket'],
        bucketNames.map((name) => `arn:aws:s3:::${name}`),
      );
      for (const name of bucketNames) {
        Validations.of(fn.role ?? fn).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:aws:s3:::${name}/*]`,
          reason: 'The objects of a tenant bucket the operator listed in tenantBuckets, where its Delta tables live.',
        });
      }
    }
    if (roleArns.length > 0) {
      allow(['sts:AssumeRole'], roleArns);
      for (const arn of roleArns.filter((candidate) => candidate.includes('*'))) {
        Validations.of(fn.role ?? fn).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${arn}]`,
          reason:
            "Tenants' roles live in tenants' accounts, unknown at deploy time; each role's trust policy and external id decide whether it may be assumed (narrow with tenantRoleArns).",
        });
      }
    }
  }
}
