import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  type AlarmProps,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '#shared/topology.ts';
import { IngestDashboard } from './ingest-dashboard.ts';
import type { ServiceFunction } from './service-function.ts';
import { serviceKey } from './service-key.ts';
import { tributaryMetric, tributaryNamespace } from './tributary-metrics.ts';

/** What pages an operator. Every threshold is a stack prop; these are the defaults. */
export interface AlarmThresholds {
  /** Seconds the oldest envelope may wait on the ingest queue (default 900: the writer is far behind or stuck). */
  oldestIngestMessageSeconds: number;
  /**
   * Seconds a staged envelope may wait past its table's freshness target (default 900: its store
   * keeps failing, or commits fall behind; after five failed attempts the envelopes become failed deliveries).
   */
  stagedOverdueSeconds: number;
  /** Invocation errors of one queue consumer or scheduled function in 5 minutes (default 1: a crash or a timeout, not a refused record). */
  functionErrors: number;
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
  functionErrors: 1,
  batchFailures: 100,
  api5xxPercent: 1,
  failedJobPercent: 10,
  edgeRefusals: 1,
};

export interface OperationsProps {
  httpApi: HttpApi;
  /** The API's access log (one JSON line per request, lib/constructs/api.ts accessLogFields). */
  accessLogs: ILogGroup;
  queues: Record<QueueName, Queue>;
  /** The ingest route's function, the batch writer and the job runner, for the dashboard. */
  ingest: IFunction;
  writer: IFunction;
  runner: IFunction;
  /** Functions no request waits on (queue consumers, schedules): an alarm on each one's errors. */
  unattended: ServiceFunction[];
  alarmEmail?: string;
  thresholds?: Partial<AlarmThresholds>;
}

const fiveMinutes = Duration.minutes(5);

/**
 * Alarms for what must never go unnoticed, all to one encrypted SNS topic operators subscribe to,
 * and a dashboard of the ingest path at a glance.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly alarms: Record<string, Alarm> = {};
  readonly dashboard: IngestDashboard;
  private readonly thresholds: AlarmThresholds;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const given = Object.fromEntries(Object.entries(props.thresholds ?? {}).filter(([, value]) => value !== undefined));
    this.thresholds = { ...defaultThresholds, ...given };
    this.topic = this.alarmTopic();
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.action = new SnsAction(this.topic);
    const recorder = props.unattended.find((fn) => fn.declaration.name === 'dead-letter-recorder');
    if (!recorder) throw new Error('The dead-letter recorder is not among the functions to watch');
    this.watchDeadLetters(props.queues, recorder);
    this.watchIngestPath(props.queues.ingest);
    for (const fn of props.unattended) this.watchErrors(fn);
    const edgeRefusals = this.watchApi(props.httpApi, props.accessLogs);
    this.watchJobs();
    this.dashboard = new IngestDashboard(this, 'Dashboard', {
      // Dashboard names are unique per account across regions: the stack's name and region keep two copies apart.
      dashboardName: `${Stack.of(this).stackName}-${Stack.of(this).region}-ingest`,
      apiId: props.httpApi.apiId,
      edgeRefusals,
      queues: props.queues,
      ingest: props.ingest,
      writer: props.writer,
      runner: props.runner,
    });
  }

  private alarm(name: string, description: string, settings: Omit<AlarmProps, 'alarmDescription'>): Alarm {
    const created = new Alarm(this, name, {
      alarmDescription: description,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      ...settings,
    });
    created.addAlarmAction(this.action);
    this.alarms[name] = created;
    return created;
  }

  /**
   * The topic, encrypted with a key of its own. CloudWatch publishes alarm actions as its service
   * principal: without the topic's permission and the key's (an encrypted topic needs both), every
   * alarm action fails, visible only in alarm history. Both grants hold only for alarms of this
   * account and region (no other account's alarm can use them).
   */
  private alarmTopic(): Topic {
    // Deleted with the stack (after KMS's 30-day waiting period), never left behind: it encrypts only
    // the topic, which is replaced with the stack.
    const key = serviceKey(this, 'AlarmsKey', 'Encrypts the Tributary alarms topic', RemovalPolicy.DESTROY);
    const topic = new Topic(this, 'Alarms', { displayName: 'Tributary alarms', masterKey: key, enforceSSL: true });
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
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsUseTheKey',
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOwnAlarms,
      }),
    );
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    return topic;
  }

  private watchDeadLetters(queues: Record<QueueName, Queue>, recorder: ServiceFunction): void {
    for (const name of [
      'ingestDeadLetter',
      'commitsDeadLetter',
      'jobsDeadLetter',
      'dashboardDeadLetter',
      'upkeepDeadLetter',
    ] as const) {
      this.alarm(
        `DeadLetterQueue-${name}`,
        `Messages wait in ${name}: they exhausted their deliveries and nothing has taken them`,
        {
          metric: queues[name].metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 3,
        },
      );
    }
    // A message the recorder keeps failing on returns to the queue in flight, never visible for long:
    // the alarm above does not see it, nor its Errors alarm (a failed record is no failed invocation).
    // Its failures are counted from its log, where each has a line: failing in every quarter of an
    // hour is a message it cannot record (one comes back every visibility timeout, 6 minutes), where
    // a passing fault (a throttle) is over sooner. A flood of dead letters recorded well does not count.
    const recorderFailures = new MetricFilter(this, 'DeadLetterRecordFailuresFilter', {
      logGroup: recorder.logGroup,
      metricNamespace: tributaryNamespace,
      metricName: 'DeadLetterRecordFailures',
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.stringValue('$.message', '=', 'dead letter record failed'),
      ),
      metricValue: '1',
    }).metric({ statistic: 'Sum', period: Duration.minutes(15) });
    this.alarm(
      'DeadLetterRecorderStuck',
      'The dead-letter recorder failed on messages of ingestDeadLetter in every quarter of an hour, for an hour: it keeps failing on them (its log says why); they are in no figure until it records them',
      {
        metric: recorderFailures,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 4,
      },
    );
    this.alarm(
      'UnreadableDeadLetters',
      "A message of ingestDeadLetter named no envelope: it is kept as it was under dead-letters/unreadable/ in the platform bucket, and is in no connection's figures",
      {
        metric: tributaryMetric('UnreadableDeadLetters'),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    this.alarm(
      'EnvelopesDeadLettered',
      'Envelopes exhausted their deliveries and were recorded as failed deliveries; redrive them once the cause is fixed',
      {
        metric: tributaryMetric('DeadLettered'),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
  }

  private watchIngestPath(ingestQueue: Queue): void {
    const { thresholds } = this;
    this.alarm(
      'IngestBacklogAge',
      `The oldest envelope on the ingest queue is older than ${thresholds.oldestIngestMessageSeconds} s`,
      {
        metric: ingestQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: thresholds.oldestIngestMessageSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
      },
    );
    // The table-commits schedule emits the figure at the end of every pass, 0 when nothing is
    // overdue: no figure for 15 minutes means no pass finished (the function fails to start, crashes
    // or times out), and staged envelopes wait for commits that do not come.
    this.alarm(
      'StagedEnvelopesOverdue',
      `Staged envelopes wait more than ${thresholds.stagedOverdueSeconds} s past their table's freshness target, or no commit pass reported for 15 minutes: a tenant store keeps failing (connection stats show commit_failure), commits fall behind, or the table-commits function fails`,
      {
        metric: tributaryMetric('StagedOverdueSeconds').with({ statistic: 'Maximum' }),
        threshold: thresholds.stagedOverdueSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.BREACHING,
      },
    );
    this.alarm(
      'EnvelopesMissing',
      'Accepted envelopes are neither written, failed deliveries, nor on a queue (for 15 minutes): envelopes went missing between acceptance and the table; connection stats show which connection (unaccounted)',
      {
        metric: tributaryMetric('EnvelopesMissing').with({ statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
      },
    );
    this.alarm(
      'EnvelopesLost',
      'Staged envelopes were lost: their staged object was gone at their last commit attempt (deleted under the staging prefix, or a shorter lifecycle rule); tributary_envelopes_lost_total and connection stats (lost_rows) say which source',
      {
        metric: tributaryMetric('EnvelopesLost'),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    this.alarm(
      'BatchFailures',
      'Commits are failing (a tenant store is unreachable or refusing writes); the envelopes are retried',
      {
        metric: tributaryMetric('BatchFailures'),
        threshold: thresholds.batchFailures,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
  }

  /** A function no request waits on fails unseen unless its errors page someone. */
  private watchErrors(fn: ServiceFunction): void {
    const { name, kind } = fn.declaration;
    const what = kind === 'schedule' ? 'scheduled function' : kind === 'consumer' ? 'queue consumer' : 'function';
    this.alarm(`Errors-${name}`, `The ${name} ${what} failed (crashed or timed out): ${fn.declaration.description}`, {
      metric: fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: this.thresholds.functionErrors,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
  }

  /** Alarms on the API's answers and on the requests refused before any function; the refusals' metric. */
  private watchApi(httpApi: HttpApi, accessLogs: ILogGroup): Metric {
    const apiMetric = (metricName: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: httpApi.apiId },
        statistic: 'Sum',
        period: fiveMinutes,
      });
    this.alarm('Api5xxRate', `More than ${this.thresholds.api5xxPercent} % of API responses are 5xx`, {
      metric: new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { errors: apiMetric('5xx'), requests: apiMetric('Count') },
        period: fiveMinutes,
        label: 'API 5xx %',
      }),
      threshold: this.thresholds.api5xxPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
    });
    this.alarm(
      'FunctionsThrottled',
      'Lambda throttled invocations in this account and region (a concurrency limit is reached)',
      {
        metric: new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: fiveMinutes }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    // API Gateway's own refusals reach no function: counted from the access log, where a request
    // that no function answered has no integration status of 200 from Lambda.
    const edgeRefusals = new MetricFilter(this, 'EdgeRefusalsFilter', {
      logGroup: accessLogs,
      metricNamespace: tributaryNamespace,
      metricName: 'EdgeRefusals',
      filterPattern: FilterPattern.stringValue('$.integrationStatus', '!=', '200'),
      metricValue: '1',
      defaultValue: 0,
    }).metric({ statistic: 'Sum', period: fiveMinutes });
    this.alarm(
      'EdgeRefusals',
      'API Gateway or Lambda refused requests before any function answered (throttled 429, body too large 413, timed out 503/504); the API access log has each, with its route, status and error',
      {
        metric: edgeRefusals,
        threshold: this.thresholds.edgeRefusals,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      },
    );
    return edgeRefusals;
  }

  private watchJobs(): void {
    const jobs = (status: string) => tributaryMetric('JobTransitions', { status }, Duration.minutes(15));
    this.alarm('FailedJobRate', `More than ${this.thresholds.failedJobPercent} % of finished jobs failed`, {
      metric: new MathExpression({
        expression: 'IF(failed + succeeded > 0, 100 * failed / (failed + succeeded), 0)',
        usingMetrics: { failed: jobs('Failed'), succeeded: jobs('Succeeded') },
        period: Duration.minutes(15),
        label: 'Failed jobs %',
      }),
      threshold: this.thresholds.failedJobPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
  }
}
