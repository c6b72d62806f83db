import path from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  type CfnFunction,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { deploymentSettings } from '#shared/topology.ts';
import type { BundleSource, StackBundles } from '../bundling.ts';
import type { FunctionDeclaration } from '../functions.ts';
import { acknowledgeControl, acknowledgeNagRule } from '../policy-checks.ts';
import { bindAccess, type SharedResources } from './access.ts';

export const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');

/** What every function of a stack is built with, besides its own declaration. */
export interface FunctionContext {
  resources: SharedResources;
  bundles: StackBundles;
  /** X-Ray active tracing for every function (the `tracing` context value). */
  tracing: boolean;
  /** Encrypts every log group of the stack. */
  logsKey: IKey;
}

/**
 * How every function logs, as deployed: JSON, application lines from INFO (the code logs no line per
 * request at INFO; API Gateway's access log has one), and the platform's own records from WARN, so
 * that the start and report records of every invocation are not written (and paid for); Lambda's
 * metrics keep the durations, errors and throttles, and failures are still logged.
 */
const deployedLogging = {
  format: LoggingFormat.JSON,
  applicationLogLevel: ApplicationLogLevel.INFO,
  systemLogLevel: SystemLogLevel.WARN,
};

/** How long every log group keeps its lines: a year, long enough to look back on an incident a tenant reports late. */
export const logRetention = RetentionDays.ONE_YEAR;

export function bundleSource(declaration: FunctionDeclaration, tracing: boolean): BundleSource {
  return {
    entry: declaration.entry,
    assets: declaration.settings.assets ?? [],
    tracesSdkCalls: tracing && Boolean(declaration.settings.tracesSdkCalls),
  };
}

/**
 * Every Tributary function, whatever starts it, built from its declaration (lib/functions.ts) in
 * this one place: arm64, Node.js 22, its bundle (lib/bundling.ts: the AWS SDK inside, its assets
 * beside index.js), memory, timeout, reserved concurrency, tracing, the deployment settings it reads,
 * JSON logs (deployedLogging) into its own encrypted log group, and a role of its own holding exactly
 * what its access declares (access.ts).
 */
export class ServiceFunction extends LambdaFunction {
  readonly declaration: FunctionDeclaration;

  constructor(scope: Construct, id: string, declaration: FunctionDeclaration, context: FunctionContext) {
    const { settings } = declaration;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention,
      encryptionKey: context.logsKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role, writing to its own log group only (rather than the managed basic execution
    // policy, which allows every log group in the account).
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Tributary ${declaration.entry}`.slice(0, 1000),
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    const source = bundleSource(declaration, context.tracing);
    super(scope, id, {
      role,
      code: Code.fromAsset(repositoryRoot, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never used: the local build always succeeds or throws (no Docker).
          image: DockerImage.fromRegistry('tributary-bundles-locally'),
          local: {
            // The entry and the variant make each function's bundling options (CDK's asset cache key) its own.
            ...source,
            tryBundle: (outputDir: string) => {
              context.bundles.bundleInto(source, outputDir);
              return true;
            },
          },
        },
      }),
      handler: 'index.handler',
      description: declaration.description.slice(0, 256),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memoryMb ?? 512,
      timeout: Duration.seconds(settings.timeoutSeconds ?? 10),
      reservedConcurrentExecutions: settings.reservedConcurrency,
      logGroup,
      loggingFormat: deployedLogging.format,
      applicationLogLevelV2: deployedLogging.applicationLogLevel,
      systemLogLevelV2: deployedLogging.systemLogLevel,
      tracing: context.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'tributary',
        POWERTOOLS_METRICS_NAMESPACE: 'Tributary',
        ...settingsRead(declaration, context.resources.settings),
      },
    });
    this.declaration = declaration;
    // Which declaration this function is, for whatever reads the template (the local runtime, the bundle tests).
    (this.node.defaultChild as CfnFunction).addMetadata('tributary:function', {
      name: declaration.name,
      kind: declaration.kind,
      entry: declaration.entry,
    });
    bindAccess(this, declaration.access, context.resources);
    acknowledgeControl(this, 'lambda_inside_vpc_check', outsideVpc);
    if (context.tracing)
      acknowledgeNagRule(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        "Active tracing's xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions; no other action of a function's role has a '*' resource (test/cdk/security.test.ts).",
      );
  }
}

export const outsideVpc =
  "Tributary's functions reach only AWS service endpoints and tenants' object stores, which may be anywhere on the internet (R2, MinIO, other accounts' buckets); inside a VPC they would need a NAT gateway per zone (a fixed monthly cost and a hop on every call) and gain no isolation: every call is authorised by IAM or the store's own credentials, and no function listens on a network.";

/** The deployment settings the function reads (shared/topology.ts deploymentSettings), as environment variables. */
function settingsRead(declaration: FunctionDeclaration, values: SharedResources['settings']): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(values ?? {}) as [keyof typeof deploymentSettings, string][]) {
    const setting = deploymentSettings[name];
    if (setting.readBy === 'every' || declaration.settings.settings?.includes(name))
      environment[setting.envVar] = value;
  }
  return environment;
}
