import {
  CfnOutput,
  CustomResource,
  Duration,
  NestedStack,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnRotationSchedule, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { notFoundRoute, type RouteSpec, routes } from '#shared/routes.ts';
import {
  bootstrapKeyInstaller,
  bootstrapKeyRotation,
  consumers,
  eventSourceSettings,
  schedules,
} from '#shared/topology.ts';
import { buildConsole } from '../console/build.ts';
import { bindAccess } from './constructs/access.ts';
import { ApiRoutes } from './constructs/api-routes.ts';
import { ApiEdge } from './constructs/edge.ts';
import { type AlarmThresholds, Operations } from './constructs/operations.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { TenantBucketAccess } from './constructs/tenant-bucket-access.ts';
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
   * The ingest route's own throttle (default: the same as every route's). Every tenant's webhooks share
   * it; the per-source limit is each connection's `rate_limit` (shared/domain/ingest/rate-limit.ts).
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
   * How long staged envelopes wait at most before their table commits them (0–86,400 s; default
   * 300), unless the table sets `tributary.freshness`: longer means fewer commits and larger files
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
   * more than the request). When on, the ingest function and the queue consumers also trace each AWS
   * SDK call, where a trace is worth the tracer's size in the bundle.
   */
  tracing?: boolean;
  /** The web ACL (EdgeFirewallStack) of a CloudFront distribution to put in front of the API; none: no edge. */
  edgeWebAclArn?: string;
}

/** The route whose function's SDK calls are traced when tracing is on, beside the queue consumers'. */
const ingestRoute = 'POST /api/ingest/{source_id}';

/**
 * One JSON line per request, as API Gateway saw it: who, which route, the answer and how long it took,
 * and what the integration did. `integrationStatus` is Lambda's own answer to the invocation: "200"
 * whenever a function ran, so a line without it is a request API Gateway or Lambda refused before any
 * function could record it (a throttle's 429, a body over the limits' 413, a timeout's 503/504): the
 * EdgeRefusals metric counts exactly those lines. No query string (cursors) and no header is logged,
 * nor the time (CloudWatch Logs stamps every line) or the response's length: a line is paid per byte
 * on every webhook.
 */
export const accessLogFields = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
};

/** API Gateway's throttle values, checked at synth (a rate and a burst of at least 1). */
function checkedThrottle(name: string, rateLimit: number, burstLimit: number) {
  if (!(Number.isFinite(rateLimit) && rateLimit > 0))
    throw new Error(`${name}Rate must be a positive number of requests per second, got ${rateLimit}`);
  if (!(Number.isInteger(burstLimit) && burstLimit >= 1))
    throw new Error(`${name}Burst must be a whole number of requests of at least 1, got ${burstLimit}`);
  return { rateLimit, burstLimit };
}

export const maxIngestBytes = 4 * 1024 * 1024;

/**
 * What a deployment replaces: the HTTP API with one function per route (grouped in one nested
 * stack per area, which keeps every template far below CloudFormation's resource limit), the
 * queue consumers, the schedules, and the custom resource that installs the bootstrap key.
 */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  readonly routeFunctions: Record<string, ServiceFunction> = {};
  readonly consumerFunctions: Record<string, ServiceFunction> = {};
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    if (
      props.ingestMaxBytes !== undefined &&
      !(Number.isInteger(props.ingestMaxBytes) && props.ingestMaxBytes >= 1 && props.ingestMaxBytes <= maxIngestBytes)
    )
      throw new Error(`ingestMaxBytes must be a whole number of bytes from 1 to ${maxIngestBytes}`);
    // The provisioner posts each tenant's read-only API key there: never in clear text.
    if (props.dashboardUrl !== undefined && !/^https:\/\/[^/?#\s]+/.test(props.dashboardUrl))
      throw new Error(
        `dashboardUrl must be an https:// URL (it receives tenants' API keys), got "${props.dashboardUrl}"`,
      );
    const writerWindow = props.writerBatchingWindowSeconds;
    if (writerWindow !== undefined && !(Number.isInteger(writerWindow) && writerWindow >= 0 && writerWindow <= 300))
      throw new Error('writerBatchingWindowSeconds must be a whole number of seconds from 0 to 300');
    const freshness = props.tableFreshnessSeconds;
    if (freshness !== undefined && !(Number.isInteger(freshness) && freshness >= 0 && freshness <= 86_400))
      throw new Error('tableFreshnessSeconds must be a whole number of seconds from 0 to 86400');
    const retention = props.dataRetentionDays;
    if (retention !== undefined && !(Number.isInteger(retention) && retention >= 1 && retention <= 36_500))
      throw new Error('dataRetentionDays must be a whole number of days from 1 to 36500');
    const resources = {
      settings: {
        ...(freshness === undefined ? {} : { TABLE_FRESHNESS_SECONDS: String(freshness) }),
        ...(retention === undefined ? {} : { DATA_RETENTION_DAYS: String(retention) }),
      } as Record<string, string>,
      table: props.stateful.table,
      queues: props.stateful.queues,
      platformBucket: props.stateful.platformBucket,
      secretsKey: props.stateful.secretsKey,
      cursorKey: props.stateful.cursorKey,
      bootstrapKey: props.stateful.bootstrapKey,
      tenantStores: {
        bucketNames: props.tenantBuckets ?? [],
        bucketRoles: props.tenantBuckets?.length
          ? new TenantBucketAccess(this, 'TenantBucketAccess', { bucketNames: props.tenantBuckets })
          : undefined,
        roleArns: props.tenantRoleArns,
        allowPlatformAccountRoles: props.allowPlatformAccountRoles ?? false,
        allowedEndpoints: props.allowedStoreEndpoints ?? [],
      },
    };

    const tracing = (sdkCalls: boolean) => (props.tracing ? { sdkCalls } : undefined);
    const notFound = new ServiceFunction(this, 'NotFound', {
      entry: notFoundRoute.entry,
      description: notFoundRoute.summary,
      tracing: tracing(false),
    });
    this.api = new HttpApi(this, 'Api', {
      description: 'Tributary management and ingest API',
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', notFound),
      createDefaultStage: false,
    });
    const throttle = checkedThrottle('throttle', props.throttleRatePerSecond ?? 1000, props.throttleBurst ?? 2000);
    const ingestThrottle = checkedThrottle(
      'ingestThrottle',
      props.ingestThrottleRatePerSecond ?? throttle.rateLimit,
      props.ingestThrottleBurst ?? throttle.burstLimit,
    );
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route authorises in its own function, before anything else: an API key checked against its hash in the table and the route’s permission (shared/http/api-handler.ts), or the source’s bearer token or signature on the ingest route. Public routes (live, health, openapi.json, docs, console) disclose nothing tenant-owned.',
    });

    // The console function ships the console's script and stylesheet, built from source here
    // whenever functions are bundled.
    if (this.bundlingRequired) buildConsole();
    const byArea = new Map<string, [string, RouteSpec][]>();
    for (const [key, spec] of Object.entries(routes) as [string, RouteSpec][]) {
      byArea.set(spec.tag, [...(byArea.get(spec.tag) ?? []), [key, spec]]);
    }
    for (const [area, areaRoutes] of byArea) {
      const nested = new NestedStack(this, `${area.replace(/\W/g, '')}Routes`, {
        description: `Tributary ${area} routes`,
      });
      const built = new ApiRoutes(nested, 'Routes', {
        api: this.api,
        routes: areaRoutes,
        resources,
        tracing: (routeKey) => tracing(routeKey === ingestRoute),
      });
      Object.assign(this.routeFunctions, built.functions);
      // The stage's settings for the ingest route name the route, which must exist first.
      if (areaRoutes.some(([key]) => key === ingestRoute)) stage.node.addDependency(nested);
    }
    (stage.node.defaultChild as CfnStage).routeSettings = {
      [ingestRoute]: {
        ThrottlingRateLimit: ingestThrottle.rateLimit,
        ThrottlingBurstLimit: ingestThrottle.burstLimit,
      },
    };

    for (const [name, consumer] of Object.entries(consumers)) {
      const fn = new ServiceFunction(this, `Consumer-${name}`, {
        entry: consumer.entry,
        description: consumer.summary,
        memoryMb: consumer.function.memoryMb,
        timeoutSeconds: consumer.function.timeoutSeconds,
        assets: consumer.function.assets,
        tracing: tracing(true),
      });
      bindAccess(fn, consumer.access, resources);
      if (name === 'dashboard-provisioner' && props.dashboardUrl)
        fn.addEnvironment('DASHBOARD_URL', props.dashboardUrl);
      if (name === 'dashboard-provisioner' && props.dashboardTokenSecret) {
        const token = props.dashboardTokenSecret.startsWith('arn:')
          ? Secret.fromSecretCompleteArn(this, 'DashboardToken', props.dashboardTokenSecret)
          : Secret.fromSecretNameV2(this, 'DashboardToken', props.dashboardTokenSecret);
        token.grantRead(fn);
        fn.addEnvironment('DASHBOARD_TOKEN_SECRET_ARN', token.secretArn);
      }
      const source = eventSourceSettings(
        consumer,
        name === 'ingest-writer' && writerWindow !== undefined ? writerWindow : consumer.maxBatchingWindowSeconds,
      );
      fn.addEventSource(
        new SqsEventSource(props.stateful.queues[consumer.queue], {
          batchSize: source.batchSize,
          maxBatchingWindow: Duration.seconds(source.windowSeconds),
          maxConcurrency: consumer.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      this.consumerFunctions[name] = fn;
    }

    for (const [name, schedule] of Object.entries(schedules)) {
      const fn = new ServiceFunction(this, `Schedule-${name}`, {
        entry: schedule.entry,
        description: schedule.summary,
        memoryMb: schedule.function?.memoryMb,
        timeoutSeconds: schedule.function?.timeoutSeconds,
        assets: schedule.function?.assets,
        tracing: tracing(false),
      });
      bindAccess(fn, schedule.access, resources);
      new Rule(this, `Rule-${name}`, {
        schedule: Schedule.rate(Duration.minutes(schedule.everyMinutes)),
        targets: [new LambdaFunction(fn)],
      });
    }

    const bootstrap = new ServiceFunction(this, 'BootstrapKeyInstaller', {
      entry: bootstrapKeyInstaller.entry,
      description: bootstrapKeyInstaller.summary,
      timeoutSeconds: bootstrapKeyInstaller.function.timeoutSeconds,
      tracing: tracing(false),
    });
    bindAccess(bootstrap, bootstrapKeyInstaller.access, resources);
    const provider = new Provider(this, 'BootstrapKeyProvider', { onEventHandler: bootstrap });
    Validations.of(provider).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(bootstrap.node.defaultChild as CfnFunction)}.Arn>:*]`,
      reason: 'The CDK custom resource framework invokes the installer function, by whichever version is current.',
    });
    Validations.of(provider).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'The role of the CDK custom resource framework’s own function, which CDK defines; it runs only during deployments.',
    });
    new CustomResource(this, 'BootstrapKey', {
      serviceToken: provider.serviceToken,
      // Installs the key at the first deploy; rotating it is the rotation function's (below).
      properties: { SecretArn: props.stateful.bootstrapKey.secretArn },
    });

    // `aws secretsmanager rotate-secret` on the bootstrap key secret makes a new key, installs it and
    // retires the old one (functions/platform/rotate-bootstrap-key.ts). Only on demand: the key is an
    // operator's emergency key, read from the secret when needed.
    const rotator = new ServiceFunction(this, 'BootstrapKeyRotation', {
      entry: bootstrapKeyRotation.entry,
      description: bootstrapKeyRotation.summary,
      timeoutSeconds: bootstrapKeyRotation.function.timeoutSeconds,
      tracing: tracing(false),
    });
    bindAccess(rotator, bootstrapKeyRotation.access, resources);
    rotator.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:UpdateSecretVersionStage'],
        resources: [props.stateful.bootstrapKey.secretArn],
      }),
    );
    rotator.addPermission('SecretsManagerRotates', {
      principal: new ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceAccount: this.account,
      sourceArn: props.stateful.bootstrapKey.secretArn,
    });
    new CfnRotationSchedule(this, 'BootstrapKeyRotationSchedule', {
      secretId: props.stateful.bootstrapKey.secretArn,
      rotationLambdaArn: rotator.functionArn,
      rotateImmediatelyOnUpdate: false,
    }).node.addDependency(rotator.permissionsNode.findChild('SecretsManagerRotates'));

    if (props.ingestMaxBytes !== undefined)
      this.routeFunctions['POST /api/ingest/{source_id}']?.addEnvironment(
        'INGEST_MAX_BYTES',
        String(props.ingestMaxBytes),
      );

    this.operations = new Operations(this, 'Operations', {
      api: this.api,
      accessLogs,
      queues: props.stateful.queues,
      writer: this.consumerFunctions['ingest-writer'] as ServiceFunction,
      runner: this.consumerFunctions['job-runner'] as ServiceFunction,
      ingest: this.routeFunctions['POST /api/ingest/{source_id}'] as ServiceFunction,
      alarmEmail: props.alarmEmail,
      thresholds: props.thresholds,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    if (props.edgeWebAclArn) {
      const edge = new ApiEdge(this, 'Edge', { api: this.api, webAclArn: props.edgeWebAclArn });
      const edgeUrl = `https://${edge.distribution.distributionDomainName}`;
      // Ingest URLs and the API reference name the edge, not the API's own address.
      for (const fn of Object.values(this.routeFunctions)) fn.addEnvironment('PUBLIC_BASE_URL', edgeUrl);
      new CfnOutput(this, 'EdgeUrl', {
        value: edgeUrl,
        description: 'The API behind CloudFront and AWS WAF: give this address to webhook senders and operators',
      });
    }
    new CfnOutput(this, 'AlarmTopic', {
      value: this.operations.topic.topicArn,
      description: 'Subscribe operators here',
    });
    new CfnOutput(this, 'BootstrapKeySecret', {
      value: props.stateful.bootstrapKey.secretName,
      description: 'aws secretsmanager get-secret-value --secret-id <this> --query SecretString --output text',
    });
  }
}
