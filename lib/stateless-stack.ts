import { Annotations, CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { numericSettings } from '#shared/config.ts';
import { consumers, type DeploymentSetting } from '#shared/topology.ts';
import { buildConsole } from '../console/build.ts';
import { StackBundles } from './bundling.ts';
import type { SharedResources } from './constructs/access.ts';
import { Api, type Throttle } from './constructs/api.ts';
import { BootstrapKey } from './constructs/bootstrap-key.ts';
import { DashboardProvisioning } from './constructs/dashboard-provisioning.ts';
import { IngestPipeline } from './constructs/ingest-pipeline.ts';
import { type AlarmThresholds, Operations } from './constructs/operations.ts';
import { QueueConsumer } from './constructs/queue-consumer.ts';
import { ScheduledFunctions } from './constructs/scheduled-functions.ts';
import { bundleSource, type FunctionContext, type ServiceFunction } from './constructs/service-function.ts';
import { allowLogGroups, serviceKey } from './constructs/service-key.ts';
import { TenantBucketAccess } from './constructs/tenant-bucket-access.ts';
import { allFunctions } from './functions.ts';
import { keepDeployedLogicalIds } from './kept-ids.ts';
import type { StatefulStack } from './stateful-stack.ts';

export interface StatelessStackProps extends StackProps {
  stateful: StatefulStack;
  /**
   * API Gateway's throttle for every route, each route with a bucket of its own: steady requests per
   * second and burst (default 1,000 and 2,000). Requests over it get API Gateway's 429, which no
   * function sees; the EdgeRefusals alarm counts them from the access log.
   */
  throttleRatePerSecond?: number;
  throttleBurst?: number;
  /**
   * The ingest route's own throttle (default: every route's rate, and a burst of 500). Every tenant's
   * webhooks share it; the per-source limit is each connection's `rate_limit`
   * (shared/domain/ingest/rate-limit.ts). It is also what bounds the ingest function's concurrency
   * (its rate times the time a request takes, plus at most the burst at once), so that a flood of
   * webhooks leaves the queue consumers their instances in an account's pool of 1,000 when their
   * concurrency is not reserved.
   */
  ingestThrottleRatePerSecond?: number;
  ingestThrottleBurst?: number;
  /** The dashboard tool that receives each tenant's read-only credential (none: provisioning fails with a reason). */
  dashboardUrl?: string;
  /**
   * Name or ARN of a Secrets Manager secret holding the bearer token the dashboard tool expects
   * (none: no Authorization header). The provisioner reads it at each provisioning, so a new value
   * put into the secret is used from the next one on.
   */
  dashboardTokenSecret?: string;
  /**
   * Let stores name roles in the platform's own account (default false: such a role would let a
   * tenant act with the platform's own permissions; stores there are reached through tenantBuckets).
   */
  allowPlatformAccountRoles?: boolean;
  /** Subscribed to the alarms topic (operators can add more subscriptions). */
  alarmEmail?: string;
  thresholds?: Partial<AlarmThresholds>;
  /**
   * The largest webhook body accepted, in bytes (default 1 MiB). At most 4 MiB: API Gateway hands
   * the body to Lambda base64-encoded, and a synchronous invocation carries at most 6 MB.
   */
  ingestMaxBytes?: number;
  /**
   * How long the batch writer gathers envelopes before it stages them (0–300 s; default the
   * topology's, 2 s): envelopes are listed as pending events once staged, so a longer window shows
   * them later, for fewer writer invocations.
   */
  writerBatchingWindowSeconds?: number;
  /**
   * Concurrency reserved for the batch writer and for the table committer, each: at least their
   * event sources' maximum concurrency (50). None by default (or 0): they share the account's
   * unreserved pool, and the synth warns. Lambda refuses a reservation that leaves the account fewer
   * than 100 unreserved executions, so 50 needs an account concurrency quota of at least 200; a new
   * account's starts far below. Without a reservation, the ingest route's throttle bounds how much of
   * the pool a flood of webhooks can take.
   */
  reservedConcurrency?: number;
  /**
   * How many table committers run at once at most (2–1,000; default the topology's, 50): the table
   * commits a second the deployment can make. A quiet source's row is a commit of its own (ten
   * one-row commits take 0.50 to 0.72 s), so 50 commit 700 to 1,000 quiet sources' requests a
   * second; many sources that each send now and then need more (`npm run bench scale`). A
   * reservation (`reservedConcurrency`) must be at least this.
   */
  committerConcurrency?: number;
  /**
   * How long staged envelopes wait at most before their table commits them (0–86,400 s; default
   * 600), unless the table sets `tributary.freshness`: longer means fewer commits and larger files
   * per event (the cost bench shows the figures), and rows that reach the table later.
   */
  tableFreshnessSeconds?: number;
  /**
   * Days of rows kept in tables that set no `tributary.dataRetention` (1–36,500); older day
   * partitions are removed by maintenance. None by default: rows are kept.
   */
  dataRetentionDays?: number;
  /**
   * Buckets of tenant stores registered without keys or a role, which the platform reaches with
   * its own role (typically buckets in the platform's own account). None by default.
   */
  tenantBuckets?: string[];
  /**
   * Roles in tenants' accounts the platform may assume for stores registered with a role_arn
   * (default: any role, since tenants' accounts are not known at deploy time; the tenant's trust
   * policy and external id decide). Narrow it, e.g. to arn:aws:iam::*:role/tributary-*.
   */
  tenantRoleArns?: string[];
  /**
   * Custom object store endpoints (`options.endpoint`) the deployment accepts: host patterns such as
   * `minio.example.com`, `minio.example.com:9000` or `*.r2.cloudflarestorage.com`. None by default:
   * a tenant cannot point the platform's functions at an address of its choosing.
   */
  allowedStoreEndpoints?: string[];
  /**
   * X-Ray active tracing for every function (default off: a trace of every sampled request costs
   * more than the request). When on, the functions that declare `tracesSdkCalls` (the ingest
   * function and the queue consumers) also trace each AWS SDK call, where a trace is worth the
   * tracer's size in the bundle.
   */
  tracing?: boolean;
  /** The web ACL (EdgeFirewallStack) of a CloudFront distribution to put in front of the API; none: no edge. */
  edgeWebAclArn?: string;
  /** With the edge, the version of its origin secret CloudFront sends (none: the current one). */
  edgeOriginSecretVersion?: string;
}

/**
 * The ingest route's burst unless the deployment sets one: the most webhooks API Gateway lets in at
 * one instant. With the queue consumers' maximum concurrency (178) it stays well inside Lambda's
 * default account quota of 1,000 executions, leaving the other routes room.
 */
export const defaultIngestBurst = 500;

/**
 * What a deployment replaces: the HTTP API with one function per route, the ingest pipeline, the
 * job runner, dashboard provisioning, the schedules, the bootstrap key's functions, and the alarms.
 * Every function is built from its declaration (lib/functions.ts), in one bundle build.
 */
export class StatelessStack extends Stack {
  readonly api: Api;
  readonly ingest: IngestPipeline;
  readonly jobRunner: QueueConsumer;
  /** Takes the counters' upkeep in pieces (shared/domain/observability/counter-upkeep.ts). */
  readonly upkeepWorker: QueueConsumer;
  readonly dashboardProvisioning: DashboardProvisioning;
  readonly schedules: ScheduledFunctions;
  readonly bootstrapKey: BootstrapKey;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { stateful } = props;
    const tracing = props.tracing ?? false;
    const logsKey = serviceKey(this, 'LogsKey', 'Encrypts the Tributary log groups', RemovalPolicy.DESTROY);
    allowLogGroups(logsKey);
    // The console function ships the console's script and stylesheet, built from source here
    // whenever functions are bundled.
    if (this.bundlingRequired) buildConsole();
    const context: FunctionContext = {
      resources: sharedResources(this, props),
      bundles: new StackBundles(allFunctions().map((declaration) => bundleSource(declaration, tracing))),
      tracing,
      logsKey,
    };
    const throttle = checkedThrottle('throttle', props.throttleRatePerSecond ?? 1000, props.throttleBurst ?? 2000);
    this.api = new Api(this, 'Api', {
      context,
      edgeWebAclArn: props.edgeWebAclArn,
      edgeOriginSecretVersion: props.edgeOriginSecretVersion,
      throttle,
      ingestThrottle: checkedThrottle(
        'ingestThrottle',
        props.ingestThrottleRatePerSecond ?? throttle.rateLimit,
        props.ingestThrottleBurst ?? Math.min(throttle.burstLimit, defaultIngestBurst),
      ),
    });
    const committerConcurrency = checkedWhole('committerConcurrency', props.committerConcurrency, 2, 1000);
    this.ingest = new IngestPipeline(this, 'Ingest', {
      queues: stateful.queues,
      context,
      writerBatchingWindowSeconds: checkedWhole(
        'writerBatchingWindowSeconds',
        props.writerBatchingWindowSeconds,
        0,
        300,
      ),
      reservedConcurrency: checkedReservation(props.reservedConcurrency, committerConcurrency),
      committerConcurrency,
    });
    if (!props.reservedConcurrency)
      Annotations.of(this).addWarningV2(
        'tributary:no-reserved-concurrency',
        'The batch writer and the table committer reserve no concurrency: they share the account’s unreserved pool with the API’s functions, and only the ingest route’s throttle keeps a flood of webhooks from taking their instances. With a Lambda concurrency quota of at least 200 in the region, deploy with -c reservedConcurrency=50 (docs/deploying.md).',
      );
    this.jobRunner = new QueueConsumer(this, 'JobRunner', {
      consumer: 'job-runner',
      queue: stateful.queues.jobs,
      context,
    });
    this.dashboardProvisioning = new DashboardProvisioning(this, 'DashboardProvisioning', {
      queue: stateful.queues.dashboard,
      context,
      dashboardUrl: props.dashboardUrl,
      dashboardTokenSecret: props.dashboardTokenSecret,
    });
    this.upkeepWorker = new QueueConsumer(this, 'UpkeepWorker', {
      consumer: 'counter-upkeep-worker',
      queue: stateful.queues.upkeep,
      context,
    });
    this.schedules = new ScheduledFunctions(this, 'Schedules', context);
    this.bootstrapKey = new BootstrapKey(this, 'BootstrapKey', { secret: stateful.bootstrapKey, context });
    this.operations = new Operations(this, 'Operations', {
      httpApi: this.api.httpApi,
      accessLogs: this.api.accessLogs,
      queues: stateful.queues,
      ingest: this.api.routeFunction('POST /api/ingest/{source_id}'),
      writer: this.ingest.writer.function,
      runner: this.jobRunner.function,
      unattended: [
        ...[
          this.ingest.writer,
          this.ingest.committer,
          this.ingest.deadLetterRecorder,
          this.jobRunner,
          this.dashboardProvisioning.provisioner,
          this.upkeepWorker,
        ].map((consumer) => consumer.function),
        ...Object.values(this.schedules.functions),
      ],
      alarmEmail: props.alarmEmail,
      thresholds: props.thresholds,
    });
    if (!props.alarmEmail)
      Annotations.of(this).addWarningV2(
        'tributary:no-alarm-email',
        'No alarmEmail: the alarms go to the AlarmTopic SNS topic, which nobody is subscribed to. Deploy with -c alarmEmail=oncall@example.com, or subscribe to the AlarmTopic output.',
      );
    keepDeployedLogicalIds(this, {
      httpApi: this.api.httpApi,
      stage: this.api.stage,
      accessLogs: this.api.accessLogs,
      bootstrapKeyInstallation: this.bootstrapKey.installation,
      bootstrapKeyRotationSchedule: this.bootstrapKey.rotationSchedule,
    });
    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint });
    if (this.api.edge)
      new CfnOutput(this, 'EdgeUrl', {
        value: this.api.publicUrl,
        description: 'The API behind CloudFront and AWS WAF: give this address to webhook senders and operators',
      });
    new CfnOutput(this, 'AlarmTopic', {
      value: this.operations.topic.topicArn,
      description: 'Subscribe operators here',
    });
    new CfnOutput(this, 'BootstrapKeySecret', {
      value: stateful.bootstrapKey.secretName,
      description: 'aws secretsmanager get-secret-value --secret-id <this> --query SecretString --output text',
    });
  }

  /** Every function of the stack, each with its declaration. */
  get functions(): ServiceFunction[] {
    return [
      this.api.notFound,
      ...this.api.functions.values(),
      this.ingest.writer.function,
      this.ingest.committer.function,
      this.ingest.deadLetterRecorder.function,
      this.jobRunner.function,
      this.dashboardProvisioning.provisioner.function,
      this.upkeepWorker.function,
      ...Object.values(this.schedules.functions),
      this.bootstrapKey.installer,
      this.bootstrapKey.rotation,
    ];
  }
}

/** What every function's access is granted on, and the deployment settings they read. */
function sharedResources(scope: Construct, props: StatelessStackProps): SharedResources {
  const { stateful } = props;
  const settings: Partial<Record<DeploymentSetting, number | undefined>> = {
    // The bounds the functions hold their environment to (shared/config.ts).
    tableFreshnessSeconds: checkedWhole(
      'tableFreshnessSeconds',
      props.tableFreshnessSeconds,
      numericSettings.TABLE_FRESHNESS_SECONDS.min,
      numericSettings.TABLE_FRESHNESS_SECONDS.max,
    ),
    dataRetentionDays: checkedWhole('dataRetentionDays', props.dataRetentionDays, 1, 36_500),
    ingestMaxBytes: checkedWhole(
      'ingestMaxBytes',
      props.ingestMaxBytes,
      numericSettings.INGEST_MAX_BYTES.min,
      numericSettings.INGEST_MAX_BYTES.max,
    ),
  };
  return {
    settings: Object.fromEntries(
      Object.entries(settings).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
    ),
    table: stateful.table,
    queues: stateful.queues,
    platformBucket: stateful.platformBucket,
    platformBucketKey: stateful.platformBucketKey,
    secretsKey: stateful.secretsKey,
    cursorKey: stateful.cursorKey,
    bootstrapKey: stateful.bootstrapKey,
    tenantStores: {
      bucketNames: props.tenantBuckets ?? [],
      bucketRoles: props.tenantBuckets?.length
        ? new TenantBucketAccess(scope, 'TenantBucketAccess', { bucketNames: props.tenantBuckets })
        : undefined,
      roleArns: props.tenantRoleArns,
      allowPlatformAccountRoles: props.allowPlatformAccountRoles ?? false,
      allowedEndpoints: props.allowedStoreEndpoints ?? [],
    },
  };
}

/** A deployment setting that must be a whole number from `min` to `max`, checked at synth. */
function checkedWhole(name: string, value: number | undefined, min: number, max: number): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max))
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
  return value;
}

/**
 * The writer's and committer's reservation: none (0), or at least their event sources' maximum
 * concurrency (a batch handed to a function at its reserved limit is throttled, and counts a receive).
 */
function checkedReservation(value: number | undefined, committerConcurrency: number | undefined): number | undefined {
  const least = Math.max(
    consumers['ingest-writer'].maxConcurrency,
    committerConcurrency ?? consumers['table-committer'].maxConcurrency,
  );
  if (value !== undefined && !(Number.isInteger(value) && (value === 0 || (value >= least && value <= 10_000))))
    throw new Error(
      `reservedConcurrency must be 0 (none) or a whole number from ${least} (the writer's and committer's maximum concurrency) to 10000, got ${value}`,
    );
  return value;
}

/** API Gateway's throttle values, checked at synth (a rate and a burst of at least 1). */
function checkedThrottle(name: string, rateLimit: number, burstLimit: number): Throttle {
  if (!(Number.isFinite(rateLimit) && rateLimit > 0))
    throw new Error(`${name}Rate must be a positive number of requests per second, got ${rateLimit}`);
  if (!(Number.isInteger(burstLimit) && burstLimit >= 1))
    throw new Error(`${name}Burst must be a whole number of requests of at least 1, got ${burstLimit}`);
  return { rateLimit, burstLimit };
}
