import path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { esbuildSettings, tracingDefine } from '../bundling.ts';

export const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');

export interface ServiceFunctionProps {
  /** Handler module relative to the repository root, e.g. functions/tenants/list.ts. */
  entry: string;
  description: string;
  memoryMb?: number;
  timeoutSeconds?: number;
  environment?: Record<string, string>;
  logRetention?: RetentionDays;
  /** Files (repository-relative) the bundle reads from beside itself, e.g. parquet-wasm's .wasm. */
  assets?: string[];
  /**
   * X-Ray active tracing (off by default: the `tracing` context value turns it on for every function).
   * `sdkCalls` also traces each AWS SDK call (Powertools Tracer, bundled only then).
   */
  tracing?: { sdkCalls: boolean };
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

/**
 * Every Tributary function: arm64, Node.js 22, a CommonJS bundle (lib/bundling.ts) built by the local esbuild (no Docker),
 * minified with source maps, JSON logs (deployedLogging) into its own log group with a retention,
 * and the AWS SDK taken from the runtime rather than bundled.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role, writing to its own log group only (rather than the managed basic execution
    // policy, which allows every log group in the account).
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Tributary ${props.entry}`.slice(0, 1000),
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    super(scope, id, {
      role,
      entry: path.join(repositoryRoot, props.entry),
      handler: 'handler',
      description: props.description.slice(0, 256),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? 512,
      timeout: Duration.seconds(props.timeoutSeconds ?? 10),
      logGroup,
      loggingFormat: deployedLogging.format,
      applicationLogLevelV2: deployedLogging.applicationLogLevel,
      systemLogLevelV2: deployedLogging.systemLogLevel,
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      projectRoot: repositoryRoot,
      depsLockFilePath: path.join(repositoryRoot, 'package-lock.json'),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'tributary',
        POWERTOOLS_METRICS_NAMESPACE: 'Tributary',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.CJS,
        target: esbuildSettings.target,
        minify: esbuildSettings.minify,
        sourceMap: esbuildSettings.sourcemap,
        sourcesContent: esbuildSettings.sourcesContent,
        mainFields: esbuildSettings.mainFields,
        externalModules: esbuildSettings.external,
        define: tracingDefine(Boolean(props.tracing?.sdkCalls)),
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // Copied beside index.js, where the bundled code looks for them.
          afterBundling: (inputDir, outputDir) =>
            (props.assets ?? []).map((asset) => `cp "${path.posix.join(inputDir, asset)}" "${outputDir}/"`),
        },
      },
    });
    if (props.tracing)
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "Active tracing's xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions; no other action of a function's role has a '*' resource (test/cdk/security.test.ts).",
      });
  }
}
