import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '#shared/topology.ts';

/** What pages an operator. Every threshold is a stack prop; these are the defaults. */
export interface AlarmThresholds {
  /** Seconds the oldest envelope may wait on the ingest queue (default 900: the writer is far behind or stuck). */
  oldestIngestMessageSeconds: number;
  /**
   * Seconds a staged envelope may wait past its table's freshness target (default 900: its store
   * keeps failing, or commits fall behind; after five failed attempts the envelopes become failed deliveries).
   */
  stagedOverdueSeconds: number;
  /** Batch writer invocation errors in 5 minutes (default 1: a crash, not a refused record). */
  writerErrors: number;
  /** Envelopes left for redelivery by failed commits in 5 minutes (default 100: a tenant store is failing). */
  batchFailures: number;
  /** Percentage of API responses that are 5xx over 5 minutes, for 3 periods (default 1). */
  api5xxPercent: number;
  /** Percentage of finished jobs that failed over 15 minutes (default 10). */
  failedJobPercent: number;
  /**
   * Requests API Gateway or Lambda refused before any function answered (throttled, too large,
   * timed out) in 5 minutes (default 1: no function recorded them, so nothing else shows them).
   */
  edgeRefusals: number;
}

export const defaultThresholds: AlarmThresholds = {
  oldestIngestMessageSeconds: 900,
  stagedOverdueSeconds: 900,
  writerErrors: 1,
  batchFailures: 100,
  api5xxPercent: 1,
  failedJobPercent: 10,
  edgeRefusals: 1,
};

export interface OperationsProps {
  api: HttpApi;
  /** The API's access log (one JSON line per request, lib/stateless-stack.ts accessLogFields). */
  accessLogs: ILogGroup;
  queues: Record<QueueName, Queue>;
  writer: IFunction;
  ingest: IFunction;
  runner: IFunction;
  alarmEmail?: string;
  thresholds?: Partial<AlarmThresholds>;
}

const namespace = 'Tributary';
const service = { service: 'tributary' };

/**
 * Alarms for what must never go unnoticed, all to one SNS topic operators subscribe to, and a
 * dashboard of the ingest path at a glance.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly alarms: Record<string, Alarm> = {};
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const given = Object.fromEntries(Object.entries(props.thresholds ?? {}).filter(([, value]) => value !== undefined));
    const thresholds: AlarmThresholds = { ...defaultThresholds, ...given };
    const key = new Key(this, 'AlarmsKey', {
      enableKeyRotation: true,
      description: 'Encrypts the Tributary alarms topic',
    });
    this.topic = new Topic(this, 'Alarms', { displayName: 'Tributary alarms', masterKey: key, enforceSSL: true });
    // CloudWatch publishes alarm actions as its service principal: without the topic's permission and
    // the key's (an encrypted topic needs both), every alarm action fails, visible only in alarm history.
    // Both grants hold only for alarms of this account and region (no other account's alarm can use them).
    const stack = Stack.of(this);
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const fromOwnAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    // Grants of this key only for AWS services acting for a resource (Control Tower's CT.KMS.PR.3).
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'GrantsOnlyForAwsServices',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsUseTheKey',
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOwnAlarms,
      }),
    );
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const alarm = (name: string, description: string, settings: ConstructorParameters<typeof Alarm>[2]) => {
      const created = new Alarm(this, name, {
        alarmDescription: description,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...settings,
      });
      created.addAlarmAction(action);
      this.alarms[name] = created;
      return created;
    };
    const custom = (metricName: string, dimensions: Record<string, string> = {}, period = Duration.minutes(5)) =>
      new Metric({ namespace, metricName, dimensionsMap: { ...service, ...dimensions }, statistic: 'Sum', period });

    for (const name of ['ingestDeadLetter', 'jobsDeadLetter', 'dashboardDeadLetter'] as const) {
      alarm(
        `DeadLetterQueue-${name}`,
        `Messages wait in ${name}: they exhausted their deliveries and nothing has taken them`,
        {
          metric: props.queues[name].metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(5),
            statistic: 'Maximum',
          }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 3,
        },
      );
    }
    alarm(
      'EnvelopesDeadLettered',
      'Envelopes exhausted their deliveries and were recorded as failed deliveries; redrive them once the cause is fixed',
      {
        metric: custom('DeadLettered'),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    alarm(
      'IngestBacklogAge',
      `The oldest envelope on the ingest queue is older than ${thresholds.oldestIngestMessageSeconds} s`,
      {
        metric: props.queues.ingest.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: thresholds.oldestIngestMessageSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
      },
    );
    alarm(
      'StagedEnvelopesOverdue',
      `Staged envelopes wait more than ${thresholds.stagedOverdueSeconds} s past their table's freshness target: a tenant store keeps failing (connection stats show commit_failure), or commits fall behind`,
      {
        metric: custom('StagedOverdueSeconds').with({ statistic: 'Maximum' }),
        threshold: thresholds.stagedOverdueSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
      },
    );
    alarm(
      'EnvelopesMissing',
      'Accepted envelopes are neither written, failed deliveries, nor on a queue (for 15 minutes): envelopes went missing between acceptance and the table; connection stats show which connection (unaccounted)',
      {
        metric: custom('EnvelopesMissing').with({ statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
      },
    );
    alarm('BatchWriterErrors', 'The batch writer crashed or timed out', {
      metric: props.writer.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: thresholds.writerErrors,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
    alarm(
      'BatchFailures',
      'Commits are failing (a tenant store is unreachable or refusing writes); the envelopes are retried',
      {
        metric: custom('BatchFailures'),
        threshold: thresholds.batchFailures,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    alarm(
      'FunctionsThrottled',
      'Lambda throttled invocations in this account and region (a concurrency limit is reached)',
      {
        metric: new Metric({
          namespace: 'AWS/Lambda',
          metricName: 'Throttles',
          statistic: 'Sum',
          period: Duration.minutes(5),
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    const apiMetric = (metricName: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: props.api.apiId },
        statistic: 'Sum',
        period: Duration.minutes(5),
      });
    alarm('Api5xxRate', `More than ${thresholds.api5xxPercent} % of API responses are 5xx`, {
      metric: new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { errors: apiMetric('5xx'), requests: apiMetric('Count') },
        period: Duration.minutes(5),
        label: 'API 5xx %',
      }),
      threshold: thresholds.api5xxPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
    });
    // API Gateway's own refusals reach no function: counted from the access log, where a request
    // that no function answered has no integration status of 200 from Lambda.
    const edgeRefusals = new MetricFilter(this, 'EdgeRefusalsFilter', {
      logGroup: props.accessLogs,
      metricNamespace: namespace,
      metricName: 'EdgeRefusals',
      filterPattern: FilterPattern.stringValue('$.integrationStatus', '!=', '200'),
      metricValue: '1',
      defaultValue: 0,
    }).metric({ statistic: 'Sum', period: Duration.minutes(5) });
    alarm(
      'EdgeRefusals',
      'API Gateway or Lambda refused requests before any function answered (throttled 429, body too large 413, timed out 503/504); the API access log has each, with its route, status and error',
      {
        metric: edgeRefusals,
        threshold: thresholds.edgeRefusals,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    const jobs = (status: string) => custom('JobTransitions', { status }, Duration.minutes(15));
    alarm('FailedJobRate', `More than ${thresholds.failedJobPercent} % of finished jobs failed`, {
      metric: new MathExpression({
        expression: 'IF(failed + succeeded > 0, 100 * failed / (failed + succeeded), 0)',
        usingMetrics: { failed: jobs('Failed'), succeeded: jobs('Succeeded') },
        period: Duration.minutes(15),
        label: 'Failed jobs %',
      }),
      threshold: thresholds.failedJobPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    const minute = Duration.minutes(1);
    // Dashboard names are unique per account across regions: the stack's name and region keep two copies apart.
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${Stack.of(this).region}-ingest`,
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# Tributary ingest path\nRequests → ingest queue → batch writer → Delta tables; failures → dead letters.',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Ingest requests by status',
        left: [
          new MathExpression({
            expression: `SEARCH('{${namespace},service,status} MetricName="IngestRequests"', 'Sum', 60)`,
            label: '',
            period: minute,
          }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Ingest latency (ms)',
        left: [
          props.ingest.metricDuration({ statistic: 'p50', period: minute }),
          props.ingest.metricDuration({ statistic: 'p99', period: minute }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'API 5xx and refusals at the edge',
        left: [apiMetric('5xx').with({ period: minute }), edgeRefusals.with({ period: minute, label: 'EdgeRefusals' })],
        right: [apiMetric('Count').with({ period: minute })],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Ingest queue',
        left: [props.queues.ingest.metricApproximateNumberOfMessagesVisible({ period: minute })],
        right: [props.queues.ingest.metricApproximateAgeOfOldestMessage({ period: minute })],
        width: 8,
      }),
      new GraphWidget({
        title: 'Envelopes written / commits / failures / missing',
        left: [custom('EnvelopesWritten', {}, minute)],
        right: [
          custom('BatchesCommitted', {}, minute),
          custom('BatchFailures', {}, minute),
          custom('EnvelopesMissing').with({ statistic: 'Maximum' }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Batch writer',
        left: [props.writer.metricDuration({ statistic: 'p99', period: minute })],
        right: [props.writer.metricErrors({ period: minute }), props.writer.metricThrottles({ period: minute })],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new SingleValueWidget({
        title: 'Dead letters waiting',
        metrics: (['ingestDeadLetter', 'jobsDeadLetter', 'dashboardDeadLetter'] as const).map((name) =>
          props.queues[name].metricApproximateNumberOfMessagesVisible({ period: minute, label: name }),
        ),
        width: 12,
      }),
      new GraphWidget({
        title: 'Jobs finishing',
        left: ['Succeeded', 'Failed', 'Cancelled'].map((status) =>
          custom('JobTransitions', { status }, Duration.minutes(5)),
        ),
        right: [props.runner.metricErrors({ period: Duration.minutes(5) })],
        width: 12,
      }),
    );
  }
}
