import { Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { globalIndexes, keyAttributes, ttlAttribute } from '#shared/adapters/dynamo/table-schema.ts';
import { type QueueName, queues } from '#shared/topology.ts';

export interface StatefulStackProps extends StackProps {
  /**
   * RETAIN (default) keeps every resource of this stack when the stack is deleted or a resource
   * replaced: each holds data (the table; the queues hold accepted envelopes and jobs, their
   * dead-letter queues failed ones; the buckets; the secrets, without which the table's sealed
   * secrets and bootstrap key are useless). DESTROY is for throw-away stacks only.
   */
  removalPolicy?: RemovalPolicy;
}

/**
 * What outlives a deployment: the single table (built from the same key module the code uses),
 * the queues from shared/topology.ts with their dead-letter queues, the platform bucket and its
 * access-log bucket, the bootstrap API key and the secrets key, all retained by default. Secure
 * defaults throughout: encryption at rest, SSL only, no public access.
 */
export class StatefulStack extends Stack {
  readonly table: Table;
  readonly queues: Record<QueueName, Queue>;
  readonly platformBucket: Bucket;
  readonly bootstrapKey: Secret;
  readonly secretsKey: Secret;
  readonly cursorKey: Secret;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: keyAttributes.partition, type: AttributeType.STRING },
      sortKey: { name: keyAttributes.sort, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: ttlAttribute,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    for (const index of globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partition, type: AttributeType.STRING },
        sortKey: { name: index.sort, type: AttributeType.STRING },
      });
    }

    const created = {} as Record<QueueName, Queue>;
    const ordered = (Object.keys(queues) as QueueName[]).sort(
      (a, b) => Number(Boolean(queues[a].deadLetter)) - Number(Boolean(queues[b].deadLetter)),
    );
    for (const name of ordered) {
      const spec = queues[name];
      created[name] = new Queue(this, `Queue-${spec.name}`, {
        visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(spec.retentionDays),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: spec.deadLetter
          ? { queue: created[spec.deadLetter.queue], maxReceiveCount: spec.deadLetter.maxReceiveCount }
          : undefined,
        removalPolicy,
      });
    }
    this.queues = created;

    const accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
      autoDeleteObjects: false,
    });

    this.platformBucket = new Bucket(this, 'PlatformBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'platform/',
      lifecycleRules: [
        // Claim checks outlive the ingest queue's retention and its dead-letter queue's, then go.
        { prefix: 'claims/', expiration: Duration.days(15) },
        // A staged batch is deleted once every table in it is committed (minutes to a day); one a
        // stopped pass left behind goes after that long.
        { prefix: 'staging/', expiration: Duration.days(15) },
      ],
      removalPolicy,
    });

    this.bootstrapKey = new Secret(this, 'BootstrapApiKey', {
      description: 'Tributary bootstrap API key (PlatformAdmin). Read it once to create users and their keys.',
      generateSecretString: {
        // trb_key_ + 43 characters, the same shape as every other Tributary API key.
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: 'random',
        passwordLength: 43,
        excludePunctuation: true,
      },
      removalPolicy,
    });

    this.secretsKey = new Secret(this, 'SecretsKey', {
      description: 'Tributary key material that seals stored secrets (object store options, signing secrets)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });

    // A key of its own for list cursors: functions that only list never hold the key that opens stored secrets.
    this.cursorKey = new Secret(this, 'CursorKey', {
      description: 'Tributary key material that authenticates list cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });

    Validations.of(this.bootstrapKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The bootstrap key is an operator’s emergency API key, rotated on demand (`aws secretsmanager rotate-secret`: the stateless stack’s rotation function makes, installs and retires keys), not on a schedule. Day-to-day access uses per-user keys with their own revocation.',
    });
    Validations.of(this.secretsKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'This key seals stored secrets; a new value would leave every sealed secret unreadable until resealed, which automatic rotation cannot do. Rotation is a planned operation (see docs/deploying.md).',
    });
    Validations.of(this.cursorKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A new value only ends the paging of lists in progress (their next cursor is refused with 400); an operator may put one at any time, and nothing else depends on it.',
    });
  }
}
