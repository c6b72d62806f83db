import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkedVisibilityTimeout } from '#lib/constructs/queue-consumer.ts';
import { dashboardCallTimeoutMs } from '#shared/adapters/dashboard-tool.ts';
import { routes } from '#shared/routes.ts';
import { consumers, queues, schedules } from '#shared/topology.ts';
import { type SynthesizedApp, synthesizedDefaultApp } from './app.ts';

let synthesized: SynthesizedApp;
beforeAll(async () => {
  synthesized = await synthesizedDefaultApp();
});

describe('the stateful stack', () => {
  it('builds the table from the key module: pk/sk and the generic GSIs, TTL, encryption, PITR', () => {
    synthesized.statefulTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
        }),
        Match.objectLike({
          IndexName: 'gsi2',
          KeySchema: [
            { AttributeName: 'gsi2pk', KeyType: 'HASH' },
            { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
          ],
        }),
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('gives the ingest queue a dead-letter queue after five receives', () => {
    synthesized.statefulTemplate.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 5 },
      VisibilityTimeout: queues.ingest.visibilityTimeoutSeconds,
      SqsManagedSseEnabled: true,
    });
  });

  it('keeps each queue visibility timeout at least six times the timeout of its consumer plus its batching window', () => {
    for (const consumer of Object.values(consumers)) {
      // The writer's window is a deployment's to set, up to 300 s.
      const window = consumer.queue === 'ingest' ? 300 : consumer.maxBatchingWindowSeconds;
      expect(queues[consumer.queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
        6 * consumer.function.timeoutSeconds + window,
      );
    }
    // And the synth stops on a consumer that would break it.
    const slow = { queue: 'commits' as const, function: { memoryMb: 256, timeoutSeconds: 121 } };
    expect(() => checkedVisibilityTimeout('slow', slow, 0)).toThrow(/below six times the function's timeout/);
    const gathering = { queue: 'commits' as const, function: { memoryMb: 256, timeoutSeconds: 120 } };
    expect(() => checkedVisibilityTimeout('gathering', gathering, 1)).toThrow(/\(721 s\)/);
    expect(() => checkedVisibilityTimeout('fits', gathering, 0)).not.toThrow();
  });

  it('gives the dashboard provisioner time for a whole batch of deliveries the tool answers at its limit', () => {
    const provisioner = consumers['dashboard-provisioner'];
    // Records are handled one after another: every delivery of a batch taking the tool's whole time
    // leaves at least half the timeout for the table and the secrets, or records go back unattempted.
    expect(provisioner.batchSize * dashboardCallTimeoutMs).toBeLessThanOrEqual(
      (provisioner.function.timeoutSeconds * 1000) / 2,
    );
  });

  it('keeps the platform bucket private, encrypted and SSL-only', () => {
    synthesized.statefulTemplate.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.objectLike({}),
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'platform/' }),
    });
    synthesized.statefulTemplate.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('what outlives the stacks', () => {
  const holdingData = ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret'];
  const policiesOf = (template: typeof synthesized.statefulTemplate) =>
    Object.entries(
      template.toJSON().Resources as Record<
        string,
        { Type: string; DeletionPolicy?: string; UpdateReplacePolicy?: string }
      >,
    )
      .filter(([, resource]) => holdingData.includes(resource.Type))
      .map(
        ([, resource]) =>
          `${resource.Type} ${resource.DeletionPolicy ?? 'Delete'}/${resource.UpdateReplacePolicy ?? 'Delete'}`,
      )
      .sort();

  it('retains every table, queue, bucket and secret when the stateful stack is deleted or replaces one', () => {
    expect(policiesOf(synthesized.statefulTemplate)).toEqual([
      'AWS::DynamoDB::Table Retain/Retain',
      'AWS::S3::Bucket Retain/Retain',
      'AWS::S3::Bucket Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      'AWS::SQS::Queue Retain/Retain',
      // The bootstrap key, the secrets key, the cursor key.
      'AWS::SecretsManager::Secret Retain/Retain',
      'AWS::SecretsManager::Secret Retain/Retain',
      'AWS::SecretsManager::Secret Retain/Retain',
    ]);
    synthesized.statefulTemplate.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
  });

  it('keeps nothing that holds data in the stateless stack, which can be replaced freely, and leaves nothing behind', () => {
    for (const template of [synthesized.statelessTemplate, ...synthesized.nestedTemplates]) {
      expect(policiesOf(template)).toEqual([]);
      // Its keys included: a retained one would be orphaned, and billed, whenever the stack is replaced.
      const retained = Object.entries(template.toJSON().Resources as Record<string, { DeletionPolicy?: string }>)
        .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
        .map(([id]) => id);
      expect(retained).toEqual([]);
    }
  });
});

describe('the stateless stack', () => {
  it('creates one function and one API route per entry of the route table', () => {
    const routeKeys = synthesized.nestedTemplates.flatMap((template) =>
      Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
        (route) => route.Properties.RouteKey as string,
      ),
    );
    expect(routeKeys.sort()).toEqual(Object.keys(routes).sort());
    const functionsInNested = synthesized.nestedTemplates.reduce(
      (sum, template) => sum + Object.keys(template.findResources('AWS::Lambda::Function')).length,
      0,
    );
    expect(functionsInNested).toBe(Object.keys(routes).length);
  });

  it('gives every API function at most 29 s, inside API Gateway’s 30 s integration limit', () => {
    // A function still working at 30 s leaves its caller with a 503 while the work goes on.
    const api = synthesized.nestedTemplates.flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => ({
        route: String(fn.Properties.Description).split(':')[0],
        timeout: fn.Properties.Timeout as number,
      })),
    );
    expect(api.length).toBe(Object.keys(routes).length);
    expect(api.filter((fn) => !(fn.timeout <= 29))).toEqual([]);
  });

  it('ends every scheduled run at least 10 s before the next one starts (EventBridge does not fire to the second)', () => {
    const runs = Object.entries(schedules).map(([name, schedule]) => ({
      name,
      endsInTime: (schedule.function?.timeoutSeconds ?? 10) <= schedule.everyMinutes * 60 - 10,
    }));
    expect(runs.filter((run) => !run.endsInTime)).toEqual([]);
  });

  it('never tries a scheduled run again: the next run is its retry, and would otherwise run beside it', () => {
    const template = synthesized.statelessTemplate;
    const resources = template.toJSON().Resources as Record<
      string,
      { Metadata?: Record<string, { name: string; kind: string }> }
    >;
    const rules = Object.values(template.findResources('AWS::Events::Rule'));
    const ruleRetries = rules.flatMap((rule) =>
      (rule.Properties.Targets as { Arn: { 'Fn::GetAtt': [string, string] }; RetryPolicy?: unknown }[]).map(
        (target) => ({
          schedule: resources[target.Arn['Fn::GetAtt'][0]]?.Metadata?.['tributary:function']?.name,
          retryPolicy: target.RetryPolicy,
        }),
      ),
    );
    const invokeRetries = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')).map((config) => ({
      schedule: resources[config.Properties.FunctionName.Ref]?.Metadata?.['tributary:function']?.name,
      retries: config.Properties.MaximumRetryAttempts,
      qualifier: config.Properties.Qualifier,
    }));
    const names = [
      'table-commits',
      'job-lease-sweeper',
      'table-maintenance',
      'pipeline-runs-on-new-data',
      'counter-upkeep',
    ];
    expect(ruleRetries.sort((a, b) => String(a.schedule).localeCompare(String(b.schedule)))).toEqual(
      [...names].sort().map((schedule) => ({ schedule, retryPolicy: { MaximumRetryAttempts: 0 } })),
    );
    expect(invokeRetries.sort((a, b) => String(a.schedule).localeCompare(String(b.schedule)))).toEqual(
      [...names].sort().map((schedule) => ({ schedule, retries: 0, qualifier: '$LATEST' })),
    );
  });

  it('sends unmatched requests to the not-found function', () => {
    synthesized.statelessTemplate.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
  });

  it('runs every function on arm64 and Node.js 22 with a log group that expires', () => {
    for (const template of [synthesized.statelessTemplate, ...synthesized.nestedTemplates]) {
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
        const properties = fn.Properties as Record<string, unknown>;
        // The custom-resource framework's own function is the provider's, not ours.
        if (String(properties.Description ?? '').startsWith('AWS CDK resource provider framework')) continue;
        expect(properties.Architectures).toEqual(['arm64']);
        expect(properties.Runtime).toBe('nodejs22.x');
      }
      for (const group of Object.values(template.findResources('AWS::Logs::LogGroup'))) {
        expect((group.Properties as { RetentionInDays?: number }).RetentionInDays).toBeGreaterThan(0);
      }
    }
  });

  it('keeps every template well below the CloudFormation limit of 500 resources', () => {
    for (const template of [
      synthesized.statefulTemplate,
      synthesized.statelessTemplate,
      ...synthesized.nestedTemplates,
    ]) {
      expect(Object.keys(template.toJSON().Resources).length).toBeLessThan(400);
    }
  });
});
