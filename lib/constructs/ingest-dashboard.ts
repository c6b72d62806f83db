import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type IWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '#shared/topology.ts';
import { tributaryMetric } from './tributary-metrics.ts';

export interface IngestDashboardProps {
  dashboardName: string;
  apiId: string;
  /** Requests refused before any function answered (the access log's metric filter). */
  edgeRefusals: Metric;
  queues: Record<QueueName, Queue>;
  ingest: IFunction;
  writer: IFunction;
  runner: IFunction;
}

const minute = Duration.minutes(1);

/** The ingest path at a glance: requests, the queue, the writer, commits, dead letters and jobs. */
export class IngestDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: IngestDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# Tributary ingest path\nRequests → ingest queue → batch writer → Delta tables; failures → dead letters.',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(...requests(props));
    this.dashboard.addWidgets(...writing(props));
    this.dashboard.addWidgets(...failures(props));
  }
}

function requests(props: IngestDashboardProps): IWidget[] {
  const apiMetric = (metricName: string) =>
    new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: { ApiId: props.apiId },
      statistic: 'Sum',
      period: minute,
    });
  return [
    new GraphWidget({
      title: 'Ingest requests by status',
      left: [
        new MathExpression({
          expression: `SEARCH('{Tributary,service,status} MetricName="IngestRequests"', 'Sum', 60)`,
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
      left: [apiMetric('5xx'), props.edgeRefusals.with({ period: minute, label: 'EdgeRefusals' })],
      right: [apiMetric('Count')],
      width: 8,
    }),
  ];
}

function writing({ queues, writer }: IngestDashboardProps): IWidget[] {
  return [
    new GraphWidget({
      title: 'Ingest queue',
      left: [queues.ingest.metricApproximateNumberOfMessagesVisible({ period: minute })],
      right: [queues.ingest.metricApproximateAgeOfOldestMessage({ period: minute })],
      width: 8,
    }),
    new GraphWidget({
      title: 'Envelopes written / commits / failures / missing',
      left: [tributaryMetric('EnvelopesWritten', {}, minute)],
      right: [
        tributaryMetric('BatchesCommitted', {}, minute),
        tributaryMetric('BatchFailures', {}, minute),
        tributaryMetric('EnvelopesMissing').with({ statistic: 'Maximum' }),
      ],
      width: 8,
    }),
    new GraphWidget({
      title: 'Batch writer',
      left: [writer.metricDuration({ statistic: 'p99', period: minute })],
      right: [writer.metricErrors({ period: minute }), writer.metricThrottles({ period: minute })],
      width: 8,
    }),
  ];
}

function failures({ queues, runner }: IngestDashboardProps): IWidget[] {
  return [
    new SingleValueWidget({
      title: 'Dead letters waiting',
      metrics: (
        ['ingestDeadLetter', 'commitsDeadLetter', 'jobsDeadLetter', 'dashboardDeadLetter', 'upkeepDeadLetter'] as const
      ).map((name) => queues[name].metricApproximateNumberOfMessagesVisible({ period: minute, label: name })),
      width: 12,
    }),
    new GraphWidget({
      title: 'Jobs finishing',
      left: ['Succeeded', 'Failed', 'Cancelled'].map((status) => tributaryMetric('JobTransitions', { status })),
      right: [runner.metricErrors({ period: Duration.minutes(5) })],
      width: 12,
    }),
  ];
}
