import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tributary } from '#lib/app.ts';
import { defaultThresholds } from '#lib/constructs/operations.ts';
import { type SynthesizedApp, synthesizedConfiguredApp, synthesizedDefaultApp } from './app.ts';

let template: Template;
beforeAll(async () => {
  template = (await synthesizedDefaultApp()).statelessTemplate;
});

/** The alarm whose description starts with `text`, with its properties. */
function alarmDescribed(text: string, within = template) {
  const alarms = Object.values(within.findResources('AWS::CloudWatch::Alarm')).filter((alarm) =>
    String(alarm.Properties.AlarmDescription).startsWith(text),
  );
  expect(alarms, `an alarm described "${text}…"`).toHaveLength(1);
  return alarms[0]?.Properties as Record<string, unknown>;
}

function notifiesTopic(alarm: Record<string, unknown>) {
  expect(alarm.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^OperationsAlarms/) }]);
}

describe('alarms', () => {
  it('sends every alarm to one encrypted SNS topic', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm')))
      notifiesTopic(alarm.Properties);
  });

  it('watches each dead-letter queue for waiting messages', () => {
    for (const name of ['ingestDeadLetter', 'jobsDeadLetter', 'dashboardDeadLetter']) {
      const alarm = alarmDescribed(`Messages wait in ${name}`);
      expect(alarm).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('pages on any envelope recorded as a failed delivery', () => {
    expect(alarmDescribed('Envelopes exhausted their deliveries')).toMatchObject({
      MetricName: 'DeadLettered',
      Namespace: 'Tributary',
      Threshold: 1,
    });
  });

  it('pages when accepted envelopes stay missing for three readings in a row', () => {
    expect(alarmDescribed('Accepted envelopes are neither written')).toMatchObject({
      MetricName: 'EnvelopesMissing',
      Namespace: 'Tributary',
      Statistic: 'Maximum',
      Threshold: 1,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('watches the age of the oldest ingest message against its threshold', () => {
    expect(alarmDescribed('The oldest envelope on the ingest queue')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: defaultThresholds.oldestIngestMessageSeconds,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('watches batch writer errors and failing commits', () => {
    expect(alarmDescribed('The batch writer crashed')).toMatchObject({
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Threshold: 1,
    });
    expect(alarmDescribed('Commits are failing')).toMatchObject({
      MetricName: 'BatchFailures',
      Threshold: defaultThresholds.batchFailures,
    });
  });

  it('watches throttling of any function', () => {
    const alarm = alarmDescribed('Lambda throttled');
    expect(alarm).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda', Threshold: 1 });
    expect(alarm.Dimensions).toBeUndefined();
  });

  it('computes the API 5xx rate and the failed-job rate as percentages', () => {
    const api = alarmDescribed('More than 1 % of API responses are 5xx');
    expect(api.Threshold).toBe(1);
    expect(JSON.stringify(api.Metrics)).toContain('100 * errors / requests');
    expect(JSON.stringify(api.Metrics)).toContain('"MetricName":"5xx"');
    const jobs = alarmDescribed('More than 10 % of finished jobs failed');
    expect(jobs.Threshold).toBe(10);
    expect(JSON.stringify(jobs.Metrics)).toContain('JobTransitions');
  });

  it('gathers envelopes for the writer 20 s by default, and as long as the deployment says', async () => {
    const windows = async (app: Promise<SynthesizedApp>) =>
      [(await app).statelessTemplate, ...(await app).nestedTemplates].flatMap((one) =>
        Object.values(one.findResources('AWS::Lambda::EventSourceMapping'))
          .filter((mapping) => mapping.Properties.BatchSize === 1000)
          .map((mapping) => mapping.Properties.MaximumBatchingWindowInSeconds),
      );
    expect(await windows(synthesizedDefaultApp())).toEqual([20]);
    // configuredProps: writerBatchingWindowSeconds 60.
    expect(await windows(synthesizedConfiguredApp())).toEqual([60]);
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => tributary(app(), { writerBatchingWindowSeconds: 301 })).toThrow(/writerBatchingWindowSeconds/);
  });

  it('takes thresholds and an alarm email from stack props', async () => {
    // configuredProps: alarmEmail oncall@example.com, thresholds oldestIngestMessageSeconds 60, api5xxPercent 5.
    const custom = (await synthesizedConfiguredApp()).statelessTemplate;
    custom.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    expect(alarmDescribed('The oldest envelope on the ingest queue is older than 60 s', custom).Threshold).toBe(60);
    expect(alarmDescribed('More than 5 % of API responses', custom).Threshold).toBe(5);
  });
});

describe('the dashboard', () => {
  it('shows the ingest path at a glance', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    for (const title of [
      'Ingest requests by status',
      'Ingest queue',
      'Envelopes written / commits / failures / missing',
      'Batch writer',
      'Dead letters waiting',
      'Jobs finishing',
    ]) {
      expect(body).toContain(title);
    }
  });
});
