import { Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { apiKeyKeys } from '#shared/adapters/dynamo/api-key-items.ts';
import { globalIndexes } from '#shared/adapters/dynamo/table-schema.ts';
import {
  type Access,
  type DeploymentSetting,
  type PlatformArea,
  platformAreas,
  type QueueName,
  queues,
} from '#shared/topology.ts';
import { acknowledgeNagRule } from '../policy-checks.ts';
import { tenantBucketRoleTag } from './tenant-bucket-access.ts';

export interface SharedResources {
  table: Table;
  queues: Record<QueueName, Queue>;
  platformBucket: Bucket;
  /** The platform bucket's default encryption key. */
  platformBucketKey: IKey;
  secretsKey: ISecret;
  cursorKey: ISecret;
  bootstrapKey: ISecret;
  tenantStores: {
    /** Buckets reached with the platform's own role (stores registered without keys or a role). */
    bucketNames: string[];
    /** The platform's roles for those buckets, assumed per store with a session policy (TenantBucketAccess). */
    bucketRoles?: { reader: IRole; writer: IRole };
    /** Roles in tenants' accounts that may be assumed (stores registered with a role_arn); none: the stack's partition, any account. */
    roleArns?: string[];
    /** Roles in the platform's own account may be named too (refused by default, by the code and by IAM). */
    allowPlatformAccountRoles?: boolean;
    /** Custom store endpoints the deployment accepts (host patterns); none by default. */
    allowedEndpoints: string[];
  };
  /** The deployment's choices functions read from their environment (shared/topology.ts deploymentSettings). */
  settings?: Partial<Record<DeploymentSetting, string>>;
  /** The dashboard tool tenants' credentials are handed to, and the secret holding its token. */
  dashboardTool?: { url?: string; tokenSecret?: ISecret };
}

/** The DynamoDB calls the code makes; transactions are authorised per item by these same actions. */
const tableReads = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const tableWrites = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'];
const tableDeletes = ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
/** How cdk-nag names the platform bucket in its findings: the stateful stack's export of its ARN. */
const platformBucketFinding = 'TributaryStateful:ExportsOutputFnGetAttPlatformBucket45416B39Arn74244195';

const objectActions = {
  read: ['s3:GetObject'],
  readDelete: ['s3:GetObject', 's3:DeleteObject'],
  readWrite: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
};

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

  const stack = Stack.of(fn);
  const { table } = resources;
  if (access.table) {
    const writes = access.table === 'readWrite';
    allow(
      [
        ...tableReads,
        ...(writes ? tableWrites : []),
        ...(writes && access.deletesItems ? tableDeletes : []),
        ...(access.describesTable ? ['dynamodb:DescribeTable'] : []),
      ],
      [table.tableArn],
    );
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
    // 'consume' is granted by the event source mapping itself (receive, delete, and
    // ChangeMessageVisibility, with which a consumer defers the records it received).
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

  if (access.dashboardTool) {
    const { url, tokenSecret } = resources.dashboardTool ?? {};
    if (url) fn.addEnvironment('DASHBOARD_URL', url);
    if (tokenSecret) {
      tokenSecret.grantRead(fn);
      fn.addEnvironment('DASHBOARD_TOKEN_SECRET_ARN', tokenSecret.secretArn);
    }
  }

  if (access.platformBucket) {
    const bucket = resources.platformBucket;
    const areas = Object.entries(access.platformBucket) as [PlatformArea, keyof typeof objectActions][];
    for (const mode of ['read', 'readDelete', 'readWrite'] as const) {
      const prefixes = areas.filter(([, given]) => given === mode).map(([area]) => platformAreas[area]);
      if (prefixes.length === 0) continue;
      allow(
        objectActions[mode],
        prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
      );
      // The bucket's key, through S3 only: reading decrypts, writing makes data keys.
      allow(
        mode === 'readWrite' ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'],
        [resources.platformBucketKey.keyArn],
        {
          StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` },
        },
      );
      for (const prefix of prefixes) {
        acknowledgeNagRule(
          fn.role ?? fn,
          `AwsSolutions-IAM5[Resource::${platformBucketFinding}/${prefix}*]`,
          `The objects under one prefix of the platform bucket (${prefix}), named by key, not any bucket.`,
        );
      }
    }
    // HeadBucket (the health check), and a missing object answered as missing rather than as denied.
    allow(['s3:ListBucket'], [bucket.bucketArn]);
    fn.addEnvironment('PLATFORM_BUCKET', bucket.bucketName);
  }

  const { bucketRoles, roleArns = [`arn:${stack.partition}:iam::*:role/*`] } = resources.tenantStores;
  if (access.tenantStores) fn.addEnvironment('TENANT_STORES_ACCESS', access.tenantStores);
  // Tenant buckets are reached through the platform's role for them, never with the function's own:
  // the reader for a function that only reads, the writer otherwise, each session scoped to one store.
  const bucketRole = access.tenantStores && bucketRoles?.[access.tenantStores === 'read' ? 'reader' : 'writer'];
  if (bucketRole) {
    allow(['sts:AssumeRole'], [bucketRole.roleArn]);
    fn.addEnvironment('TENANT_BUCKET_ROLE_ARN', bucketRole.roleArn);
  }
  if ((access.tenantStores || access.checksTenantRoles) && roleArns.length > 0) {
    allow(['sts:AssumeRole'], roleArns);
    if (!resources.tenantStores.allowPlatformAccountRoles) {
      // A role of the platform's own account would let a tenant act with the platform's permissions
      // (a confused deputy): refused at registration, and by IAM whatever a store names, but for the
      // one role for tenant buckets this function may use (by its tag, which says read or readWrite).
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.DENY,
          actions: ['sts:AssumeRole'],
          resources: [`arn:${stack.partition}:iam::${stack.account}:role/*`],
          ...(bucketRole && access.tenantStores
            ? {
                conditions: {
                  StringNotEquals: {
                    [`iam:ResourceTag/${tenantBucketRoleTag.key}`]: tenantBucketRoleTag.value(access.tenantStores),
                  },
                },
              }
            : {}),
        }),
      );
    }
    for (const arn of roleArns.filter((candidate) => candidate.includes('*'))) {
      acknowledgeNagRule(
        fn.role ?? fn,
        `AwsSolutions-IAM5[Resource::${arn.replace(stack.partition, '<AWS::Partition>')}]`,
        "Tenants' roles live in tenants' accounts, unknown at deploy time; each role's trust policy and external id decide whether it may be assumed (narrow with tenantRoleArns). Roles of the platform's own account are denied.",
      );
    }
  }
  if (access.checksTenantRoles) {
    fn.addEnvironment('PLATFORM_ACCOUNT_ID', stack.account);
    // A store without keys or a role is registered only in these buckets: elsewhere the platform has no role for it.
    if (resources.tenantStores.bucketNames.length > 0)
      fn.addEnvironment('TENANT_BUCKETS', resources.tenantStores.bucketNames.join(','));
    if (resources.tenantStores.allowPlatformAccountRoles) fn.addEnvironment('ALLOW_PLATFORM_ACCOUNT_ROLES', 'true');
  }
}
