import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { globalIndexes, keyAttributes, ttlAttribute } from '#shared/adapters/dynamo/table-schema.ts';
import { platformAreas, platformExpiryDays, type QueueName, queues, stagedObjectDays } from '#shared/topology.ts';
import { serviceKey } from './constructs/service-key.ts';
import { keepStatefulLogicalIds } from './kept-ids.ts';
import { acknowledgeControl, acknowledgeNagRule } from './policy-checks.ts';

export interface StatefulStackProps extends StackProps {
  /**
   * RETAIN (default) keeps every resource of this stack when the stack is deleted or a resource
   * replaced: each holds data (the table; the queues hold accepted envelopes and jobs, their
   * dead-letter queues failed ones; the buckets and the platform bucket's key; the secrets, without
   * which the table's sealed secrets and bootstrap key are useless). DESTROY is for throw-away stacks only.
   */
  removalPolicy?: RemovalPolicy;
  /** Days before the platform bucket removes a dead letter that named no envelope (default 30). */
  unreadableDeadLetterDays?: number;
  /** Days before the platform bucket removes a query job's result (default 7). */
  jobResultDays?: number;
}

/**
 * What outlives a deployment: the single table (built from the same key module the code uses),
 * the queues from shared/topology.ts with their dead-letter queues, the platform bucket and its
 * access-log bucket, the bootstrap API key and the secrets key, all retained by default. Secure
 * defaults throughout: encryption at rest, SSL only, no public access, no ACLs.
 */
export class StatefulStack extends Stack {
  readonly table: Table;
  readonly queues: Record<QueueName, Queue>;
  readonly platformBucket: Bucket;
  readonly platformBucketKey: Key;
  readonly bootstrapKey: Secret;
  readonly secretsKey: Secret;
  readonly cursorKey: Secret;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    // The access-log bucket takes S3's log deliveries through its bucket policy, not an ACL.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
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
    this.queues = this.queuesOfTopology(removalPolicy);
    this.platformBucketKey = serviceKey(
      this,
      'PlatformBucketKey',
      "Encrypts the Tributary platform bucket (webhook bodies, staged envelopes, dead letters, jobs' results)",
      removalPolicy,
    );
    this.platformBucket = this.platformBucketWithLogs(this.platformBucketKey, removalPolicy, {
      unreadableDeadLetters: expiryDays('unreadableDeadLetterDays', props.unreadableDeadLetterDays),
      jobResults: expiryDays('jobResultDays', props.jobResultDays),
    });
    this.bootstrapKey = this.bootstrapKeySecret(removalPolicy);
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
    acknowledgeNagRule(
      this.secretsKey,
      'AwsSolutions-SMG4',
      'This key seals stored secrets; a new value would leave every sealed secret unreadable until resealed, which automatic rotation cannot do. Rotation is a planned operation (see docs/deploying.md).',
    );
    acknowledgeNagRule(
      this.cursorKey,
      'AwsSolutions-SMG4',
      'A new value only ends the paging of lists in progress (their next cursor is refused with 400); an operator may put one at any time, and nothing else depends on it.',
    );
    // What holds data keeps the logical id deployments have, wherever its construct moves.
    keepStatefulLogicalIds({
      table: this.table,
      queues: this.queues,
      platformBucketKey: this.platformBucketKey,
      accessLogs: this.node.findChild('AccessLogs'),
      platformBucket: this.platformBucket,
      bootstrapKey: this.bootstrapKey,
      secretsKey: this.secretsKey,
      cursorKey: this.cursorKey,
    });
  }

  /** The queues of shared/topology.ts, dead-letter queues first (the others name theirs). */
  private queuesOfTopology(removalPolicy: RemovalPolicy): Record<QueueName, Queue> {
    const created = {} as Record<QueueName, Queue>;
    const deadLetterQueues = new Set(Object.values(queues).flatMap((spec) => spec.deadLetter?.queue ?? []));
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
        // Said of a dead-letter queue, which has none of its own: what exhausts its deliveries is kept there.
        redriveAllowPolicy: deadLetterQueues.has(name) ? { redrivePermission: RedrivePermission.ALLOW_ALL } : undefined,
        removalPolicy,
      });
    }
    return created;
  }

  /** The platform bucket, encrypted with its own key, and the bucket its access logs go to. */
  private platformBucketWithLogs(
    key: Key,
    removalPolicy: RemovalPolicy,
    days: { unreadableDeadLetters: number | undefined; jobResults: number | undefined },
  ): Bucket {
    const accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
      autoDeleteObjects: false,
    });
    acknowledgeBucketControls(accessLogs, {
      s3_bucket_logging_enabled_check: 'It is the access-log bucket: logging its own access would log without end.',
      s3_bucket_default_encryption_kms_check:
        'S3 delivers server access logs only to buckets encrypted with S3-managed keys (SSE-S3), which this one is.',
      s3_bucket_object_lock_enabled_check:
        'S3 delivers server access logs to no bucket with a default Object Lock retention; the logs expire after 90 days.',
      s3_bucket_versioning_enabled_check:
        'Log objects are written once by S3 and never replaced; they expire after 90 days.',
      s3_event_notifications_enabled_check: 'Nothing acts on a new log object; the logs are read when investigating.',
    });

    const bucket = new Bucket(this, 'PlatformBucket', {
      encryption: BucketEncryption.KMS,
      encryptionKey: key,
      // One KMS request per bucket key and period instead of one per object: the bucket takes a PUT per webhook.
      bucketKeyEnabled: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'platform/',
      lifecycleRules: [
        // Claim checks outlive the ingest queue's retention and its dead-letter queue's, then go.
        { prefix: 'claims/', expiration: Duration.days(15) },
        // Staged batches: read until their tables are committed (a day at most, the longest freshness
        // target, and five attempts), then left to this rule. It outlives the records that point into
        // them (recordLifetimeMs, 7 days): an object is never gone while a record of it can be read.
        { prefix: 'staging/', expiration: Duration.days(stagedObjectDays) },
        // Dead letters that named no envelope: kept for an operator to read, never redriven (failed
        // deliveries, elsewhere under dead-letters/, stay until redriven or the data retention).
        {
          prefix: `${platformAreas.deadLetters}unreadable/`,
          expiration: Duration.days(days.unreadableDeadLetters ?? platformExpiryDays.unreadableDeadLetters),
        },
        // A query's result is read soon after its job, if at all; past this its job answers 404.
        {
          prefix: platformAreas.jobResults,
          expiration: Duration.days(days.jobResults ?? platformExpiryDays.jobResults),
        },
      ],
      removalPolicy,
    });
    acknowledgeBucketControls(bucket, {
      s3_bucket_object_lock_enabled_check:
        "Its objects must go when their time is up: claim checks and staged batches once written to their tables, dead letters with the tenant's data retention. Object Lock would keep what a tenant's retention deletes.",
      s3_bucket_versioning_enabled_check:
        'Every object is written once under a key of its own (conditional writes refuse a second one) and deleted when its time is up; versions would keep every deleted webhook body, against the data retention.',
      s3_event_notifications_enabled_check:
        'The functions that write an object act on it themselves (the queue message or the table item names it); nothing waits on S3 events.',
    });
    return bucket;
  }

  private bootstrapKeySecret(removalPolicy: RemovalPolicy): Secret {
    const secret = new Secret(this, 'BootstrapApiKey', {
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
    acknowledgeNagRule(
      secret,
      'AwsSolutions-SMG4',
      'The bootstrap key is an operator’s emergency API key, rotated on demand (`aws secretsmanager rotate-secret`: the stateless stack’s rotation function makes, installs and retires keys), not on a schedule. Day-to-day access uses per-user keys with their own revocation.',
    );
    return secret;
  }
}

function expiryDays(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= 36_500))
    throw new Error(`${name} must be a whole number from 1 to 36500, got ${value}`);
  return value;
}

function acknowledgeBucketControls(bucket: Bucket, reasons: Record<string, string>): void {
  for (const [rule, reason] of Object.entries(reasons)) acknowledgeControl(bucket, rule, reason);
}
