import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tributary } from '#lib/app.ts';
import { defaultThresholds } from '#lib/constructs/operations.ts';
import { checkedMaxConcurrency } from '#lib/constructs/queue-consumer.ts';
import { defaultIngestBurst } from '#lib/stateless-stack.ts';
import { recordLifetimeMs } from '#shared/domain/ingest/staging.ts';
import { consumers, schedules } from '#shared/topology.ts';
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

  it('pages when the dead-letter recorder fails on messages in every quarter of an hour, for an hour', () => {
    expect(alarmDescribed('The dead-letter recorder failed on messages of ingestDeadLetter')).toMatchObject({
      MetricName: 'DeadLetterRecordFailures',
      Namespace: 'Tributary',
      Statistic: 'Sum',
      Period: 900,
      EvaluationPeriods: 4,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    // Counted from the recorder's own log group: the line recordHandler writes for each record it fails on.
    const filters = Object.values(template.findResources('AWS::Logs::MetricFilter')).filter(
      (resource) => resource.Properties.MetricTransformations[0].MetricName === 'DeadLetterRecordFailures',
    );
    expect(filters).toHaveLength(1);
    expect(filters[0]?.Properties.FilterPattern).toBe(
      '{ ($.level = "ERROR") && ($.message = "dead letter record failed") }',
    );
    expect(JSON.stringify(filters[0]?.Properties.LogGroupName)).toMatch(/deadletterrecorderLogs/);
  });

  it('pages on any dead letter that names no envelope, and on any staged envelope lost', () => {
    for (const [text, metric] of [
      ['A message of ingestDeadLetter named no envelope', 'UnreadableDeadLetters'],
      ['Staged envelopes were lost', 'EnvelopesLost'],
    ])
      expect(alarmDescribed(text as string)).toMatchObject({
        MetricName: metric,
        Namespace: 'Tributary',
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
  });

  it('pages when staged envelopes wait past their freshness target for three readings in a row', async () => {
    expect(alarmDescribed('Staged envelopes wait more than 900 s past')).toMatchObject({
      MetricName: 'StagedOverdueSeconds',
      Namespace: 'Tributary',
      Statistic: 'Maximum',
      Threshold: 900,
      EvaluationPeriods: 3,
    });
    // The table-commits function reports the figure at the end of every pass, 0 when nothing is
    // overdue: no figure at all means no pass finishes, and commits have stopped.
    expect(alarmDescribed('Staged envelopes wait more than 900 s past').TreatMissingData).toBe('breaching');
    const configured = (await synthesizedConfiguredApp()).statelessTemplate;
    expect(alarmDescribed('Staged envelopes wait more than 120 s past', configured)).toMatchObject({ Threshold: 120 });
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
    expect(alarmDescribed('The ingest-writer queue consumer failed')).toMatchObject({
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Threshold: 1,
    });
    expect(alarmDescribed('Commits are failing')).toMatchObject({
      MetricName: 'BatchFailures',
      Threshold: defaultThresholds.batchFailures,
    });
  });

  it('watches the errors of every function no request waits on: each queue consumer and each schedule', () => {
    const watched = [
      ...Object.keys(consumers).map((name) => [name, `The ${name} queue consumer failed`]),
      ...Object.keys(schedules).map((name) => [name, `The ${name} scheduled function failed`]),
    ];
    expect(watched).toHaveLength(11);
    const resources = template.toJSON().Resources;
    for (const [name, description] of watched) {
      const alarm = alarmDescribed(description as string);
      const watchedFunction = (alarm.Dimensions as { Value: { Ref: string } }[] | undefined)?.[0]?.Value.Ref ?? '';
      expect({
        description,
        watches: resources[watchedFunction]?.Metadata?.['tributary:function']?.name,
        alarm,
      }).toMatchObject({
        description,
        watches: name,
        alarm: {
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
          Statistic: 'Sum',
          Period: 300,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: expect.any(String) } }],
        },
      });
    }
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

  it('gathers envelopes for the writer 2 s by default; a window of 0 deploys, with batches Lambda allows', async () => {
    /** The writer's event source mapping, found by the function it feeds. */
    const writerMapping = async (app: Promise<SynthesizedApp>) =>
      [(await app).statelessTemplate, ...(await app).nestedTemplates]
        .flatMap((one) => Object.values(one.findResources('AWS::Lambda::EventSourceMapping')))
        .filter((mapping) => /^IngestWriterFunction/.test(String(mapping.Properties.FunctionName.Ref)))
        .map((mapping) => ({
          batchSize: mapping.Properties.BatchSize,
          window: mapping.Properties.MaximumBatchingWindowInSeconds,
        }));
    expect(await writerMapping(synthesizedDefaultApp())).toEqual([{ batchSize: 1000, window: 2 }]);
    // configuredProps: writerBatchingWindowSeconds 0. Lambda refuses a batch over 10 without a window of at
    // least 1 s; the deployment keeps the window asked for and the largest batch allowed with it.
    expect(await writerMapping(synthesizedConfiguredApp())).toEqual([{ batchSize: 10, window: 0 }]);
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => tributary(app(), { writerBatchingWindowSeconds: 301 })).toThrow(/writerBatchingWindowSeconds/);
    expect(() => tributary(app(), { writerBatchingWindowSeconds: 2.5 })).toThrow(/writerBatchingWindowSeconds/);
  });

  it('feeds each consumer at most its declared concurrency, and never more than it reserves', async () => {
    const mappings = [template, ...(await synthesizedDefaultApp()).nestedTemplates].flatMap((one) =>
      Object.values(one.findResources('AWS::Lambda::EventSourceMapping')),
    );
    const resources = template.toJSON().Resources;
    const byConsumer = Object.fromEntries(
      mappings.map((mapping) => [
        resources[mapping.Properties.FunctionName.Ref]?.Metadata?.['tributary:function']?.name,
        mapping.Properties.ScalingConfig?.MaximumConcurrency,
      ]),
    );
    expect(byConsumer).toEqual({
      'ingest-writer': 50,
      'table-committer': 50,
      'dead-letter-recorder': 2,
      'job-runner': 10,
      'dashboard-provisioner': 2,
      'counter-upkeep-worker': 64,
    });
    // Given a reservation (configuredProps), the writer and the committer keep their instances whatever the API takes.
    const configured = (await synthesizedConfiguredApp()).statelessTemplate;
    type Resource = {
      Metadata?: Record<string, { name: string }>;
      Properties?: { ReservedConcurrentExecutions?: number };
    };
    const reserved = Object.fromEntries(
      (Object.values(configured.toJSON().Resources) as Resource[])
        .filter((resource) => Number.isInteger(resource.Properties?.ReservedConcurrentExecutions))
        .map((resource) => [
          resource.Metadata?.['tributary:function']?.name,
          resource.Properties?.ReservedConcurrentExecutions,
        ]),
    );
    expect(reserved).toEqual({ 'ingest-writer': 50, 'table-committer': 50 });
    const spec = (maxConcurrency: number, reservedConcurrency?: number) => ({
      maxConcurrency,
      function: { memoryMb: 256, timeoutSeconds: 30, reservedConcurrency },
    });
    expect(checkedMaxConcurrency('writer', spec(5, 5))).toBe(5);
    expect(() => checkedMaxConcurrency('writer', spec(6, 5))).toThrow(/reserved concurrency 5/);
    expect(() => checkedMaxConcurrency('writer', spec(1))).toThrow(/from 2 to 1000/);
  });

  it('reserves nothing by default (a new account’s quota cannot spare it), and what the deployment says', async () => {
    /** Each function's reserved concurrency, by name, and its event source's maximum concurrency. */
    const concurrency = async (synthesized: Promise<SynthesizedApp>) => {
      const app = await synthesized;
      const resources = app.statelessTemplate.toJSON().Resources as Record<
        string,
        { Metadata?: Record<string, { name: string }>; Properties?: Record<string, unknown> }
      >;
      const mappings = [app.statelessTemplate, ...app.nestedTemplates].flatMap((one) =>
        Object.values(one.findResources('AWS::Lambda::EventSourceMapping')),
      );
      return Object.fromEntries(
        ['ingest-writer', 'table-committer'].map((name) => {
          const [id, fn] = Object.entries(resources).find(
            ([, resource]) => resource.Metadata?.['tributary:function']?.name === name,
          ) ?? [undefined, undefined];
          const mapping = mappings.find((one) => one.Properties.FunctionName.Ref === id);
          return [
            name,
            {
              reserved: fn?.Properties?.ReservedConcurrentExecutions ?? 'none',
              maxConcurrency: mapping?.Properties.ScalingConfig?.MaximumConcurrency,
            },
          ];
        }),
      );
    };
    expect(await concurrency(synthesizedDefaultApp())).toEqual({
      'ingest-writer': { reserved: 'none', maxConcurrency: 50 },
      'table-committer': { reserved: 'none', maxConcurrency: 50 },
    });
    const functions = (await synthesizedDefaultApp()).statelessTemplate.findResources('AWS::Lambda::Function');
    const nestedFunctions = (await synthesizedDefaultApp()).nestedTemplates.flatMap((one) =>
      Object.values(one.findResources('AWS::Lambda::Function')),
    );
    expect(
      [...Object.values(functions), ...nestedFunctions].filter(
        (fn) => fn.Properties.ReservedConcurrentExecutions !== undefined,
      ),
    ).toEqual([]);
    // configuredProps: reservedConcurrency 50, for an account with a quota of at least 200, and
    // committerConcurrency 40.
    expect(await concurrency(synthesizedConfiguredApp())).toEqual({
      'ingest-writer': { reserved: 50, maxConcurrency: 50 },
      'table-committer': { reserved: 50, maxConcurrency: 40 },
    });
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    // Below the event sources' maximum concurrency, batches would be throttled.
    expect(() => tributary(app(), { reservedConcurrency: 20 })).toThrow(/reservedConcurrency must be 0 \(none\)/);
    expect(() => tributary(app(), { reservedConcurrency: -1 })).toThrow(/reservedConcurrency/);
    // More committers at once than a reservation covers; and outside what Lambda accepts.
    expect(() => tributary(app(), { committerConcurrency: 300, reservedConcurrency: 50 })).toThrow(
      /reservedConcurrency must be 0 \(none\) or a whole number from 300 /,
    );
    expect(() => tributary(app(), { committerConcurrency: 1001 })).toThrow(
      /committerConcurrency must be a whole number from 2 to 1000, got 1001/,
    );
    expect(() => tributary(app(), { committerConcurrency: 1 })).toThrow(/committerConcurrency must be a whole number/);
  });

  it('says at synth what it left out without a reservation, and what keeps an ingest flood off the consumers', async () => {
    // The run's two syntheses: the default app, and the configured one (reservedConcurrency 50,
    // alarmEmail oncall@example.com).
    const warnings = async (synthesized: Promise<SynthesizedApp>, about: RegExp) =>
      (await synthesized).statelessWarnings.filter((warning) => about.test(warning));
    expect(await warnings(synthesizedDefaultApp(), /reserve no concurrency/)).toEqual([
      expect.stringContaining('-c reservedConcurrency=50'),
    ]);
    expect(await warnings(synthesizedConfiguredApp(), /reserve no concurrency/)).toEqual([]);
    expect(await warnings(synthesizedDefaultApp(), /No alarmEmail/)).toEqual([
      expect.stringContaining('-c alarmEmail='),
    ]);
    expect(await warnings(synthesizedConfiguredApp(), /No alarmEmail/)).toEqual([]);
    // Without a reservation, what bounds the ingest function: at most its burst at one instant, which
    // with every consumer at its maximum concurrency stays inside Lambda's default quota of 1,000
    // with room for the other routes.
    const consumersAtMost = Object.values(consumers).reduce((sum, consumer) => sum + consumer.maxConcurrency, 0);
    expect(consumersAtMost).toBe(178);
    // 678 of 1,000: 322 left for the other routes' functions.
    expect(defaultIngestBurst + consumersAtMost).toBe(678);
    expect(defaultIngestBurst + consumersAtMost).toBeLessThanOrEqual(1000);
  });

  it('deploys only event source mappings Lambda accepts, in every variant', async () => {
    for (const app of [await synthesizedDefaultApp(), await synthesizedConfiguredApp()]) {
      const mappings = [app.statelessTemplate, ...app.nestedTemplates].flatMap((one) =>
        Object.values(one.findResources('AWS::Lambda::EventSourceMapping')),
      );
      expect(mappings.length).toBe(6);
      for (const mapping of mappings) {
        const { BatchSize: batch, MaximumBatchingWindowInSeconds: window = 0 } = mapping.Properties;
        // Lambda's rules for SQS sources, written out: 1–10,000 messages, 0–300 s, over 10 only with a window.
        expect({
          batch,
          window,
          legal: batch >= 1 && batch <= 10_000 && window <= 300 && (batch <= 10 || window >= 1),
        }).toEqual({ batch, window, legal: true });
      }
    }
  });

  it('lets CloudWatch publish to the encrypted alarm topic, for this account’s alarms only', () => {
    // Without both grants every alarm action fails (visible only in the alarm's history).
    const ownAlarms = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':cloudwatch:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':alarm:*',
            ],
          ],
        },
      },
    };
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Condition: ownAlarms,
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: Match.stringLikeRegexp('^OperationsAlarms') },
            Condition: ownAlarms,
          }),
        ]),
      },
    });
  });

  it('counts the requests API Gateway or Lambda refused before any function answered, and pages on them', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.integrationStatus != "200" }',
      LogGroupName: { Ref: Match.stringLikeRegexp('^ApiAccessLogs') },
      MetricTransformations: [
        Match.objectLike({ MetricNamespace: 'Tributary', MetricName: 'EdgeRefusals', MetricValue: '1' }),
      ],
    });
    expect(alarmDescribed('API Gateway or Lambda refused requests')).toMatchObject({
      MetricName: 'EdgeRefusals',
      Namespace: 'Tributary',
      Threshold: defaultThresholds.edgeRefusals,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('takes thresholds and an alarm email from stack props', async () => {
    // configuredProps: alarmEmail oncall@example.com, thresholds oldestIngestMessageSeconds 60, api5xxPercent 5.
    const custom = (await synthesizedConfiguredApp()).statelessTemplate;
    custom.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    expect(alarmDescribed('The oldest envelope on the ingest queue is older than 60 s', custom).Threshold).toBe(60);
    expect(alarmDescribed('More than 5 % of API responses', custom).Threshold).toBe(5);
  });
});

describe('the API stage', () => {
  const stage = (within: Template) => {
    const stages = Object.values(within.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    return stages[0]?.Properties as Record<string, unknown> & {
      AccessLogSettings: { Format: string };
      DefaultRouteSettings: Record<string, number>;
      RouteSettings?: Record<string, Record<string, number>>;
    };
  };

  it('writes an access log line with the route, the status, the latencies and what the integration did', () => {
    const line = JSON.parse(stage(template).AccessLogSettings.Format);
    expect(line).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      integrationError: '$context.integrationErrorMessage',
      errorType: '$context.error.responseType',
    });
    // Nothing a caller sent beyond the path: no query string (cursors), no header (keys, tokens).
    expect(JSON.stringify(line)).not.toMatch(/querystring|header|authorization/i);
  });

  it('throttles every route at 1,000 requests/s (burst 2,000) by default, and as the deployment says', async () => {
    expect(stage(template).DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 1000,
      ThrottlingBurstLimit: 2000,
    });
    // The ingest route's burst is its own: 500 webhooks at one instant at most.
    expect(stage(template).RouteSettings).toEqual({
      'POST /api/ingest/{source_id}': { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 500 },
    });
    // configuredProps: throttle 300/600, ingest 5000/8000.
    const configured = stage((await synthesizedConfiguredApp()).statelessTemplate);
    expect(configured.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
    expect(configured.RouteSettings).toEqual({
      'POST /api/ingest/{source_id}': { ThrottlingRateLimit: 5000, ThrottlingBurstLimit: 8000 },
    });
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => tributary(app(), { throttleRatePerSecond: 0 })).toThrow(/throttleRate/);
    expect(() => tributary(app(), { ingestThrottleBurst: Number.NaN })).toThrow(/ingestThrottleBurst/);
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

describe('staged commits', () => {
  it('commits staged tables every minute, and hands every function the deployment freshness target and data retention when set', async () => {
    const schedules = Object.values(template.findResources('AWS::Events::Rule')).map(
      (rule) => rule.Properties.ScheduleExpression,
    );
    expect(schedules).toContain('rate(1 minute)');
    const functions = async (app: Promise<SynthesizedApp>) =>
      [(await app).statelessTemplate, ...(await app).nestedTemplates].flatMap((one) =>
        Object.values(one.findResources('AWS::Lambda::Function')).filter(
          (fn) => fn.Properties.Environment?.Variables?.TABLE_NAME !== undefined,
        ),
      );
    const defaults = await functions(synthesizedDefaultApp());
    expect(defaults.length).toBeGreaterThan(10);
    for (const fn of defaults) {
      expect(fn.Properties.Environment.Variables.TABLE_FRESHNESS_SECONDS).toBeUndefined();
      expect(fn.Properties.Environment.Variables.DATA_RETENTION_DAYS).toBeUndefined();
    }
    for (const fn of await functions(synthesizedConfiguredApp())) {
      expect(fn.Properties.Environment.Variables.TABLE_FRESHNESS_SECONDS).toBe('900');
      expect(fn.Properties.Environment.Variables.DATA_RETENTION_DAYS).toBe('400');
    }
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => tributary(app(), { tableFreshnessSeconds: 86_401 })).toThrow(/tableFreshnessSeconds/);
    expect(() => tributary(app(), { tableFreshnessSeconds: 1.5 })).toThrow(/tableFreshnessSeconds/);
    expect(() => tributary(app(), { dataRetentionDays: 0 })).toThrow(/dataRetentionDays/);
    expect(() => tributary(app(), { dataRetentionDays: 36_501 })).toThrow(/dataRetentionDays/);
  });

  it('expires staged batches after the records that point into them', async () => {
    const stateful = (await synthesizedDefaultApp()).statefulTemplate;
    const rules = Object.values(stateful.findResources('AWS::S3::Bucket')).flatMap(
      (bucket) => bucket.Properties.LifecycleConfiguration?.Rules ?? [],
    );
    expect(rules).toEqual(
      expect.arrayContaining([expect.objectContaining({ Prefix: 'staging/', ExpirationInDays: 8, Status: 'Enabled' })]),
    );
    // Records are kept 7 days: past the longest freshness target (a day) and five failed attempts.
    expect(recordLifetimeMs).toBe(7 * 86_400_000);
  });

  it('expires unreadable dead letters and query results after the days a deployment sets (30 and 7 by default)', async () => {
    const rulesOf = (template: Template) =>
      Object.values(template.findResources('AWS::S3::Bucket'))
        .flatMap((bucket) => bucket.Properties.LifecycleConfiguration?.Rules ?? [])
        .filter(
          (rule: { Prefix?: string }) => rule.Prefix === 'dead-letters/unreadable/' || rule.Prefix === 'job-results/',
        )
        .map((rule: { Prefix: string; ExpirationInDays: number; Status: string }) => [
          rule.Prefix,
          rule.ExpirationInDays,
          rule.Status,
        ]);
    expect(rulesOf((await synthesizedDefaultApp()).statefulTemplate)).toEqual([
      ['dead-letters/unreadable/', 30, 'Enabled'],
      ['job-results/', 7, 'Enabled'],
    ]);
    expect(rulesOf((await synthesizedConfiguredApp()).statefulTemplate)).toEqual([
      ['dead-letters/unreadable/', 90, 'Enabled'],
      ['job-results/', 2, 'Enabled'],
    ]);
    // Failed deliveries (dead-letters/<data set>/…) wait for their redrive: no rule takes the whole prefix.
    const all = Object.values((await synthesizedDefaultApp()).statefulTemplate.findResources('AWS::S3::Bucket'))
      .flatMap((bucket) => bucket.Properties.LifecycleConfiguration?.Rules ?? [])
      .map((rule: { Prefix?: string }) => rule.Prefix);
    expect(all).not.toContain('dead-letters/');
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => tributary(app(), { jobResultDays: 0 })).toThrow(/jobResultDays/);
    expect(() => tributary(app(), { unreadableDeadLetterDays: 1.5 })).toThrow(/unreadableDeadLetterDays/);
  });
});
