/**
 * The deployment as the stack synthesises it, read by the cost and scale benches: each function's
 * memory, tracing and log levels, the API's access log format, and what the fixed monthly cost counts.
 */
import { App, type Stack } from 'aws-cdk-lib';
import { CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { CfnAlarm, CfnDashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnKey } from 'aws-cdk-lib/aws-kms';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { tributary } from '#lib/app.ts';
import { routes } from '#shared/routes.ts';

/** The ingest function, and the route API Gateway sends webhooks to it by. */
export const ingestEntry = 'functions/ingest/accept.ts';
export const ingestRoute = Object.entries(routes).find(([, spec]) => spec.entry === ingestEntry)?.[0] as string;

export interface Deployed {
  memoryMb: number;
  timeoutSeconds: number;
  tracing: boolean;
  systemLogLevel: string;
  logLevel: string;
}

function cfnFunctionOf(construct: IConstruct | undefined): CfnFunction {
  const child = construct?.node.defaultChild;
  if (!(child instanceof CfnFunction)) throw new Error(`No function at ${construct?.node.path}`);
  return child;
}

function deployedSettings(fn: CfnFunction): Deployed {
  const logging = (fn.loggingConfig ?? {}) as CfnFunction.LoggingConfigProperty;
  const variables = ((fn.environment as CfnFunction.EnvironmentProperty | undefined)?.variables ?? {}) as Record<
    string,
    string
  >;
  return {
    memoryMb: Number(fn.memorySize ?? 128),
    timeoutSeconds: Number(fn.timeout ?? 3),
    tracing: (fn.tracingConfig as CfnFunction.TracingConfigProperty | undefined)?.mode === 'Active',
    systemLogLevel: logging.systemLogLevel ?? 'INFO',
    logLevel: variables.POWERTOOLS_LOG_LEVEL ?? logging.applicationLogLevel ?? 'INFO',
  };
}

function all<T>(stacks: Stack[], type: abstract new (...args: never[]) => T): T[] {
  return stacks.flatMap((stack) => stack.node.findAll().filter((node): node is T & IConstruct => node instanceof type));
}

export function readDeployment() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const { stateful, stateless } = tributary(app);
  const functions = new Map<string, Deployed>();
  for (const fn of stateless.functions) functions.set(fn.declaration.entry, deployedSettings(cfnFunctionOf(fn)));
  // findAll walks nested stacks too: they are constructs of the stateless stack.
  const stacks = [stateful, stateless];
  const alarmMetrics = all(stacks, CfnAlarm).reduce((sum, alarm) => {
    const metrics = alarm.metrics as CfnAlarm.MetricDataQueryProperty[] | undefined;
    return sum + (metrics ? metrics.filter((metric) => metric.metricStat).length : 1);
  }, 0);
  const stage = all(stacks, CfnStage)[0];
  const accessLogFormat = (stage?.accessLogSettings as CfnStage.AccessLogSettingsProperty | undefined)?.format ?? null;
  return {
    functions,
    alarmMetrics,
    dashboards: all(stacks, CfnDashboard).length,
    secrets: all(stacks, CfnSecret).length,
    keys: all(stacks, CfnKey).length,
    accessLogFormat,
  };
}

/** An access log line as API Gateway writes it, with typical values in the deployed format. */
export function accessLogBytes(format: string | null): number {
  if (!format) return 0;
  const sample: Record<string, string> = {
    requestId: 'Jx3lUhGnoAMEVxg=',
    'identity.sourceIp': '192.0.2.10',
    requestTime: '23/Nov/2026:10:00:00 +0000',
    httpMethod: 'POST',
    routeKey: ingestRoute,
    resourcePath: ingestRoute.split(' ')[1] as string,
    path: '/api/ingest/3f1c7a52-3f4e-4d8e-9a51-2b6c1c0f9e77',
    status: '202',
    protocol: 'HTTP/1.1',
    responseLength: '52',
    'integration.latency': '9',
    'integration.status': '202',
    responseLatency: '12',
  };
  const line = format.replace(/\$context\.([A-Za-z.]+)/g, (_, name: string) => sample[name] ?? '-');
  return Buffer.byteLength(line) + 1;
}
