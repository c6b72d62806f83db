/**
 * The stack's security posture, checked on every test run: cdk-nag's AwsSolutions rules with no
 * unacknowledged finding, and least privilege per function, generated from the same Access
 * declarations the stack grants from.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedByCdkNag, checkedByControlTower, tributary } from '#lib/app.ts';
import { acknowledgeControl, acknowledgeNagRule } from '#lib/policy-checks.ts';
import { type RouteSpec, routes } from '#shared/routes.ts';
import {
  type Access,
  bootstrapKeyInstaller,
  bootstrapKeyRotation,
  consumers,
  platformAreas,
  type QueueName,
  queues,
  schedules,
} from '#shared/topology.ts';
import { type SynthesizedApp, synthesizedConfiguredApp, synthesizedDefaultApp } from './app.ts';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

function appInTemporaryDirectory() {
  const outdir = mkdtempSync(path.join(os.tmpdir(), 'tributary-cdk-'));
  outdirs.push(outdir);
  return new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
}

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in either stack', async () => {
    // Synthesis runs the checks: the run's one synthesis of the app would have failed.
    await expect(synthesizedDefaultApp()).resolves.toBeDefined();
  });

  it('fails the synth on a finding nobody acknowledged', () => {
    // The checks the app is built with (lib/app.ts), on a stack with one careless bucket.
    const app = appInTemporaryDirectory();
    checkedByCdkNag(app);
    // A bucket without SSL enforcement or access logs: two findings.
    new Bucket(new Stack(app, 'Careless'), 'Careless');
    expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
  });

  it("lists an acknowledged finding in the validation report with its reason, beside Control Tower's", () => {
    const app = appInTemporaryDirectory();
    checkedByCdkNag(app);
    // Two careless buckets: one's missing access log acknowledged, the other's not.
    const stack = new Stack(app, 'Careless');
    acknowledgeNagRule(new Bucket(stack, 'Excused'), 'AwsSolutions-S1', 'A test of the acknowledgement.');
    new Bucket(stack, 'Careless');
    expect(() => app.synth()).toThrow();
    const report = JSON.parse(readFileSync(path.join(app.outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: {
        pluginName: string;
        violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
        suppressedViolations: {
          ruleName: string;
          reason: string;
          acknowledgedAt: string;
          violatingConstructs: { constructPath: string }[];
        }[];
      }[];
    };
    const nag = report.pluginReports.find((plugin) => plugin.pluginName === 'AwsSolutions');
    expect(
      nag?.suppressedViolations.map((violation) => [
        violation.ruleName,
        violation.reason,
        violation.acknowledgedAt,
        violation.violatingConstructs.map((construct) => construct.constructPath),
      ]),
    ).toEqual([
      ['AwsSolutions-S1', 'A test of the acknowledgement.', 'Careless/Excused', ['Careless/Excused/Resource']],
    ]);
    const unacknowledged = nag?.violations.find((violation) => violation.ruleName === 'AwsSolutions-S1');
    expect(unacknowledged?.violatingConstructs.map((construct) => construct.constructPath)).toEqual([
      'Careless/Careless/Resource',
    ]);
  });
});

describe("AWS Control Tower's proactive controls (cfn-guard)", () => {
  it('find nothing unacknowledged in any template, nested ones included', async () => {
    // Synthesis runs the rules: the run's one synthesis of the app would have failed.
    await expect(synthesizedDefaultApp()).resolves.toBeDefined();
  });

  it('fail the synth on a violation nobody acknowledged, in a nested stack too, and only that one', () => {
    const app = appInTemporaryDirectory();
    checkedByControlTower(app);
    const stack = new Stack(app, 'Careless');
    // A queue with no dead-letter queue (CT.SQS.PR.1), one level down.
    new Queue(new NestedStack(stack, 'Nested'), 'Careless', { encryption: QueueEncryption.SQS_MANAGED });
    // The same queue, its violation acknowledged beside it.
    const excused = new Queue(stack, 'Excused', { encryption: QueueEncryption.SQS_MANAGED });
    acknowledgeControl(excused, 'sqs_dlq_check', 'A test of the acknowledgement.');
    expect(() => app.synth()).toThrow();
    const report = JSON.parse(readFileSync(path.join(app.outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: {
        conclusion: string;
        violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
        suppressedViolations: { ruleName: string; acknowledgedAt: string }[];
      }[];
    };
    const [guard] = report.pluginReports;
    expect(guard?.conclusion).toBe('failure');
    expect(
      guard?.violations.map((violation) => [
        violation.ruleName,
        violation.violatingConstructs.map((construct) => construct.constructPath),
      ]),
    ).toEqual([['sqs_dlq_check', ['Careless/Nested/Careless/Resource']]]);
    expect(guard?.suppressedViolations.map((violation) => [violation.ruleName, violation.acknowledgedAt])).toEqual([
      ['sqs_dlq_check', 'Careless/Excused'],
    ]);
  });
});

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

interface Resource {
  Type: string;
  Properties: {
    Description?: string;
    Roles?: { Ref: string }[];
    PolicyDocument?: { Statement: Statement[] };
  };
}

/** Every function role's statements, by the handler entry its role is described with ("Tributary <entry>"). */
function statementsByEntry(synthesized: SynthesizedApp) {
  const byEntry = new Map<string, Statement[]>();
  for (const template of [synthesized.statelessTemplate, ...synthesized.nestedTemplates]) {
    const resources = template.toJSON().Resources as Record<string, Resource>;
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      for (const role of resource.Properties.Roles ?? []) {
        const description = String(resources[role.Ref]?.Properties.Description ?? `role ${role.Ref}`);
        const entry = description.replace(/^Tributary /, '');
        byEntry.set(entry, [...(byEntry.get(entry) ?? []), ...(resource.Properties.PolicyDocument?.Statement ?? [])]);
      }
    }
  }
  return byEntry;
}

const list = <T>(value: T | T[]) => (Array.isArray(value) ? value : [value]);
const text = (value: unknown) => JSON.stringify(value);

describe('least privilege', () => {
  let byEntry: Map<string, Statement[]>;
  beforeAll(async () => {
    byEntry = statementsByEntry(await synthesizedDefaultApp());
  });

  it('gives no function a wildcard resource on a DynamoDB, SQS or S3 action', () => {
    // No exception for these services. Object keys inside one named bucket (arn:…:bucket/*) are that
    // bucket's objects, not a wildcard over buckets; so are a table's named indexes.
    const offending: string[] = [];
    for (const [entry, statements] of byEntry) {
      for (const statement of statements) {
        const services = list(statement.Action).map((action) => action.split(':')[0] as string);
        if (!services.some((service) => ['dynamodb', 'sqs', 's3'].includes(service))) continue;
        for (const resource of list(statement.Resource)) {
          const arn = text(resource);
          if (arn === '"*"' || /arn:aws:s3:::\*|table\/\*|index\/\*|:\*"/.test(arn))
            offending.push(`${entry}: ${list(statement.Action).join(',')} on ${arn}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it("uses no '*' resource (X-Ray's, the one exception, comes with tracing: test/cdk/observability.test.ts)", () => {
    const starred = new Set<string>();
    for (const statements of byEntry.values()) {
      for (const statement of statements) {
        if (list(statement.Resource).includes('*')) for (const action of list(statement.Action)) starred.add(action);
      }
    }
    expect([...starred].sort()).toEqual([]);
  });

  const declared: [string, Access, QueueName | undefined][] = [
    ...(Object.values(routes) as RouteSpec[]).map(
      (spec) => [spec.entry, spec.access, undefined] as [string, Access, undefined],
    ),
    ...Object.values(consumers).map((spec) => [spec.entry, spec.access, spec.queue] as [string, Access, QueueName]),
    ...Object.values(schedules).map((spec) => [spec.entry, spec.access, undefined] as [string, Access, undefined]),
    [bootstrapKeyInstaller.entry, bootstrapKeyInstaller.access, undefined],
    [bootstrapKeyRotation.entry, bootstrapKeyRotation.access, undefined],
  ];

  it.each(declared)('grants %s exactly what it declares', (entry, access, consumed) => {
    const statements = byEntry.get(entry) ?? [];
    const allowed = statements.filter((statement) => statement.Effect === 'Allow');
    const actions = allowed.flatMap((statement) => list(statement.Action));
    const unconditional = (action: string) =>
      allowed.some((statement) => !statement.Condition && list(statement.Action).includes(action));
    const platformObjects = allowed.filter((statement) =>
      /PlatformBucket.*\/\*|"\/[a-z-]+\/\*"/.test(text(statement.Resource)),
    );
    const areas = Object.entries(access.platformBucket ?? {});

    expect(statements.length).toBeGreaterThan(0);
    expect(actions.includes('dynamodb:GetItem')).toBe(Boolean(access.table));
    expect(['dynamodb:PutItem', 'dynamodb:UpdateItem'].map(unconditional)).toEqual(
      Array(2).fill(access.table === 'readWrite'),
    );
    expect(['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'].map(unconditional)).toEqual(
      Array(2).fill(access.table === 'readWrite' && Boolean(access.deletesItems)),
    );
    // Reads a page of keys at once (data set versions, the message ids of recent runs): a read like GetItem.
    expect(actions.includes('dynamodb:BatchGetItem')).toBe(Boolean(access.table));
    expect(actions.includes('dynamodb:DescribeTable')).toBe(Boolean(access.describesTable));
    // The platform bucket: the declared areas' prefixes, never the whole bucket's objects.
    expect(actions.includes('s3:ListBucket')).toBe(Boolean(access.platformBucket) || false);
    expect(platformObjects.some((statement) => list(statement.Action).includes('s3:GetObject'))).toBe(areas.length > 0);
    expect(platformObjects.some((statement) => list(statement.Action).includes('s3:PutObject'))).toBe(
      areas.some(([, mode]) => mode === 'readWrite'),
    );
    expect(text(platformObjects)).not.toMatch(/PlatformBucket\w*"\},"\/\*"/);
    for (const [area, prefix] of Object.entries(platformAreas))
      expect({ area, granted: text(platformObjects).includes(`/${prefix}*`) }).toEqual({
        area,
        granted: area in (access.platformBucket ?? {}),
      });
    expect(actions.includes('sts:AssumeRole')).toBe(Boolean(access.tenantStores || access.checksTenantRoles));
    // Each key is its own secret: a function that only lists never holds the key that opens stored secrets.
    const secretReads = text(
      statements.filter((statement) => list(statement.Action).includes('secretsmanager:GetSecretValue')),
    );
    expect({
      secretsKey: /SecretsKey/.test(secretReads),
      cursorKey: /CursorKey/.test(secretReads),
      bootstrapKey: /BootstrapApiKey/.test(secretReads),
    }).toEqual({
      secretsKey: Boolean(access.secretsKey),
      cursorKey: Boolean(access.cursorKey),
      bootstrapKey: Boolean(access.bootstrapKey),
    });
    expect(actions.includes('secretsmanager:PutSecretValue')).toBe(Boolean(access.bootstrapKey));

    const sqs = text(
      statements.filter((statement) => list(statement.Action).some((action) => action.startsWith('sqs:'))),
    );
    for (const queue of Object.keys(queues) as QueueName[]) {
      const logicalId = new RegExp(`Queue${queues[queue].name.replace(/[^A-Za-z0-9]/g, '')}[0-9A-F]{8}`);
      expect({ queue, reachable: logicalId.test(sqs) }).toEqual({
        queue,
        reachable: Boolean(access.queues?.[queue]) || consumed === queue,
      });
    }
  });

  it('lets a read-only route write only the last-use time of API key items', () => {
    const conditional = (byEntry.get(routes['GET /api/tenants'].entry) ?? []).filter(
      (statement) => statement.Condition,
    );
    expect(conditional).toHaveLength(1);
    expect(conditional[0]?.Action).toBe('dynamodb:UpdateItem');
    expect(conditional[0]?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['API_KEY#*', 'USER#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
    });
  });
});

describe('tenant stores', () => {
  it('reaches listed buckets only through the platform’s reader or writer role, and assumes only the roles it is told to', async () => {
    // configuredProps: tenantBuckets ['acme-lake'], tenantRoleArns [arn:aws:iam::123456789012:role/tributary-writer].
    const synthesized = await synthesizedConfiguredApp();
    const byEntry = statementsByEntry(synthesized);
    const reaching = [...byEntry.entries()].filter(([, statements]) => text(statements).includes('sts:AssumeRole'));
    const declared = [
      ...(Object.values(routes) as RouteSpec[]),
      ...Object.values(consumers),
      ...Object.values(schedules),
    ];
    expect(reaching.map(([entry]) => entry).sort()).toEqual(
      declared
        .filter((spec) => spec.access.tenantStores || spec.access.checksTenantRoles)
        .map((spec) => spec.entry)
        .sort(),
    );
    const roles = synthesized.statelessTemplate.findResources('AWS::IAM::Role', {
      Properties: { Description: Match.stringLikeRegexp('tenantBuckets') },
    });
    const roleId = (name: string) => Object.keys(roles).find((id) => id.includes(`TenantBucketAccess${name}`));
    expect([roleId('Reader'), roleId('Writer')].every(Boolean)).toBe(true);
    for (const [entry, statements] of reaching) {
      const access = declared.find((spec) => spec.entry === entry)?.access as Access;
      const policy = text(statements);
      expect(policy).toContain('arn:aws:iam::123456789012:role/tributary-writer');
      expect(policy).not.toContain(':iam::*:role/*');
      // No function reaches the bucket with its own role.
      expect({ entry, direct: policy.includes('acme-lake') }).toEqual({ entry, direct: false });
      // The reader for a function that only reads, the writer for one that writes; the deny on
      // roles of the platform's own account spares only that one (by its tag).
      const assumable = statements
        .filter((statement) => statement.Effect !== 'Deny' && list(statement.Action).includes('sts:AssumeRole'))
        .map((statement) => text(statement.Resource));
      expect({
        entry,
        // By logical id, or the nested stack's parameter that carries it.
        reader: assumable.some((arn) => arn.includes('TenantBucketAccessReader')),
        writer: assumable.some((arn) => arn.includes('TenantBucketAccessWriter')),
      }).toEqual({
        entry,
        reader: access.tenantStores === 'read',
        writer: access.tenantStores === 'readWrite',
      });
      const deny = statements.find((statement) => statement.Effect === 'Deny');
      expect(deny?.Condition ?? null).toEqual(
        access.tenantStores
          ? { StringNotEquals: { 'iam:ResourceTag/tributary:purpose': `tenant-buckets-${access.tenantStores}` } }
          : null,
      );
    }
    // The roles: the buckets' objects (written only by the writer), each session narrowed by the code's session policy.
    const rolePolicies = (name: string) =>
      text(
        Object.values(
          synthesized.statelessTemplate.findResources('AWS::IAM::Policy', {
            Properties: { Roles: [{ Ref: roleId(name) }] },
          }),
        ),
      );
    expect(rolePolicies('Reader')).toContain('acme-lake/*');
    expect(rolePolicies('Reader')).not.toContain('s3:PutObject');
    expect(rolePolicies('Writer')).toContain('s3:PutObject');
    // A bucket's customer managed key, through S3 only: the sessions' policies allow it too
    // (test/unit/store-session-policies.test.ts).
    for (const name of ['Reader', 'Writer']) {
      const policy = rolePolicies(name);
      expect({ name, decrypts: policy.includes('"kms:Decrypt"') }).toEqual({ name, decrypts: true });
      expect({ name, encrypts: policy.includes('kms:GenerateDataKey') }).toEqual({ name, encrypts: name === 'Writer' });
      // S3 asks KMS from the bucket's region, which need not be the stack's.
      expect(policy).toContain('"StringLike":{"kms:ViaService":"s3.*.amazonaws.com"}');
    }
    for (const name of ['Reader', 'Writer'])
      expect(roles[roleId(name) as string]?.Properties.AssumeRolePolicyDocument.Statement[0].Condition).toEqual({
        StringEquals: { 'sts:ExternalId': 'tributary-tenant-buckets' },
      });
  });

  it('tells each function that reaches stores whether it only reads them', async () => {
    const synthesized = await synthesizedConfiguredApp();
    const access = Object.values(
      synthesized.nestedTemplates.flatMap((template) =>
        Object.values(template.findResources('AWS::Lambda::Function')).map(
          (fn) => (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>,
        ),
      ),
    )
      .filter((env) => 'TENANT_STORES_ACCESS' in env)
      .map((env) => env.TENANT_STORES_ACCESS);
    // The data set routes that read tables (list, files, table properties, suggest columns, events) read only.
    expect(new Set(access)).toEqual(new Set(['read', 'readWrite']));
    expect(access.filter((mode) => mode === 'read').length).toBe(
      (Object.values(routes) as RouteSpec[]).filter((spec) => spec.access.tenantStores === 'read').length,
    );
  });

  it('accepts no custom store endpoint unless the operator lists some, and then tells every function', async () => {
    const environments = (synthesized: SynthesizedApp) =>
      synthesized.nestedTemplates.flatMap((template) =>
        Object.values(template.findResources('AWS::Lambda::Function')).map(
          (fn) => (fn.Properties.Environment?.Variables ?? {}) as Record<string, string>,
        ),
      );
    expect(environments(await synthesizedDefaultApp()).filter((env) => 'ALLOWED_STORE_ENDPOINTS' in env)).toEqual([]);
    // configuredProps: allowedStoreEndpoints ['*.r2.cloudflarestorage.com', 'minio.example.com:9000'].
    const allowed = environments(await synthesizedConfiguredApp());
    expect(allowed.length).toBeGreaterThan(0);
    for (const env of allowed)
      expect(env.ALLOWED_STORE_ENDPOINTS).toBe('*.r2.cloudflarestorage.com,minio.example.com:9000');
  });

  it('passes the ingest limit to the ingest function, and refuses one API Gateway and Lambda cannot carry', async () => {
    const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => tributary(app(), { ingestMaxBytes: 8 * 1024 * 1024 })).toThrow(/ingestMaxBytes/);
    expect(() => tributary(app(), { ingestMaxBytes: 0 })).toThrow(/ingestMaxBytes/);
    // configuredProps: ingestMaxBytes 2 MiB.
    const ingest = (await synthesizedConfiguredApp()).nestedTemplates.flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
        String(fn.Properties.Description).startsWith('POST /api/ingest/'),
      ),
    );
    expect(ingest[0]?.Properties.Environment.Variables.INGEST_MAX_BYTES).toBe(String(2 * 1024 * 1024));
  });
});

describe('the platform’s own account, and its partition', () => {
  const templates = (app: SynthesizedApp) => [app.statefulTemplate, app.statelessTemplate, ...app.nestedTemplates];

  it('writes no ARN of one partition: every ARN the stack makes names the stack’s own (aws-cn is a target)', async () => {
    for (const app of [await synthesizedDefaultApp(), await synthesizedConfiguredApp()]) {
      const literal = templates(app)
        .flatMap((template) => JSON.stringify(template.toJSON()).match(/"arn:aws[a-z-]*:[^"]*"/g) ?? [])
        // configuredProps: the operator's own role ARN, as given.
        .filter((arn) => arn !== '"arn:aws:iam::123456789012:role/tributary-writer"');
      expect(literal).toEqual([]);
    }
  });

  it("denies every function that may assume tenants' roles the roles of the platform's own account", async () => {
    for (const app of [await synthesizedDefaultApp(), await synthesizedConfiguredApp()]) {
      for (const [entry, statements] of statementsByEntry(app)) {
        if (!text(statements).includes('sts:AssumeRole')) continue;
        const denied = statements.filter((statement) => statement.Effect === 'Deny');
        expect({ entry, denied }).toEqual({
          entry,
          denied: [
            expect.objectContaining({
              Action: 'sts:AssumeRole',
              Resource: {
                'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/*']],
              },
            }),
          ],
        });
      }
    }
  });

  it("tells the functions that register stores the platform's account, and gives them STS only", async () => {
    const byEntry = statementsByEntry(await synthesizedDefaultApp());
    const checking = (Object.values(routes) as RouteSpec[]).filter((spec) => spec.access.checksTenantRoles);
    expect(checking.map((spec) => spec.entry).sort()).toEqual([
      'functions/tenants/register-object-store.ts',
      'functions/tenants/update-object-store-options.ts',
    ]);
    for (const spec of checking) {
      const statements = byEntry.get(spec.entry) ?? [];
      expect(text(statements)).toContain('"sts:AssumeRole"');
      expect(text(statements)).not.toMatch(/"s3:/);
    }
    const environments = (await synthesizedDefaultApp()).nestedTemplates.flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function'))
        .filter((fn) => 'PLATFORM_ACCOUNT_ID' in (fn.Properties.Environment?.Variables ?? {}))
        .map((fn) => String(fn.Properties.Description).split(':')[0]),
    );
    expect(environments.sort()).toEqual([
      'POST /api/tenants/{tenant_id}/register-object-store',
      'POST /api/tenants/{tenant_id}/update-object-store-options',
    ]);
  });

  it('tells the functions that register stores which buckets are tenant buckets, and no other function', async () => {
    // configuredProps: tenantBuckets ['acme-lake'].
    const told = (await synthesizedConfiguredApp()).nestedTemplates.flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function'))
        .filter((fn) => 'TENANT_BUCKETS' in (fn.Properties.Environment?.Variables ?? {}))
        .map((fn) => [
          String(fn.Properties.Description).split(':')[0],
          fn.Properties.Environment.Variables.TENANT_BUCKETS,
        ]),
    );
    expect(told.sort()).toEqual([
      ['POST /api/tenants/{tenant_id}/register-object-store', 'acme-lake'],
      ['POST /api/tenants/{tenant_id}/update-object-store-options', 'acme-lake'],
    ]);
  });
});

describe('the dashboard tool', () => {
  it('gives the provisioner the secret holding the tool’s token, and nothing else has it', async () => {
    // configuredProps: dashboardUrl https://dashboards.example.com/connections, dashboardTokenSecret tributary/dashboard-token.
    const app = await synthesizedConfiguredApp();
    const functions = Object.values(app.statelessTemplate.findResources('AWS::Lambda::Function'));
    const withToken = functions.filter(
      (fn) => 'DASHBOARD_TOKEN_SECRET_ARN' in (fn.Properties.Environment?.Variables ?? {}),
    );
    expect(withToken.map((fn) => fn.Properties.Description)).toEqual([consumers['dashboard-provisioner']?.summary]);
    expect(text(withToken[0]?.Properties.Environment.Variables)).toContain(':secret:tributary/dashboard-token');
    expect(withToken[0]?.Properties.Environment.Variables.DASHBOARD_URL).toBe(
      'https://dashboards.example.com/connections',
    );
    const reading = [...statementsByEntry(app).entries()]
      .filter(([, statements]) => text(statements).includes(':secret:tributary/dashboard-token'))
      .map(([entry]) => entry);
    expect(reading).toEqual([consumers['dashboard-provisioner']?.entry]);
    const nested = app.nestedTemplates.flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function')),
    );
    expect(nested.filter((fn) => text(fn).includes('DASHBOARD_TOKEN'))).toEqual([]);
  });
});

describe('the bootstrap key', () => {
  it('is rotated for real by its rotation function, which Secrets Manager alone may invoke', async () => {
    const app = await synthesizedDefaultApp();
    const template = app.statelessTemplate;
    const schedules = Object.values(template.findResources('AWS::SecretsManager::RotationSchedule'));
    expect(schedules).toHaveLength(1);
    const schedule = schedules[0]?.Properties as Record<string, unknown>;
    expect(text(schedule.SecretId)).toMatch(/BootstrapApiKey/);
    // All four steps at once, after the key is installed: never Secrets Manager's test of testSecret
    // alone, on a pending version that holds no key (which fails the deploy).
    expect(schedule.RotateImmediatelyOnUpdate).toBe(true);
    expect(Object.keys(template.findResources('AWS::CloudFormation::CustomResource'))).toContain('BootstrapKey');
    expect(schedules[0]?.DependsOn).toEqual(expect.arrayContaining(['BootstrapKey']));
    const rotatorId = (schedule.RotationLambdaARN as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] as string;
    expect(template.toJSON().Resources[rotatorId].Properties.Description).toBe(bootstrapKeyRotation.summary);
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter((permission) =>
      text(permission.Properties.FunctionName).includes(rotatorId),
    );
    expect(permissions.map((permission) => permission.Properties.Principal)).toEqual(['secretsmanager.amazonaws.com']);
    expect(text(permissions[0]?.Properties.SourceArn)).toMatch(/BootstrapApiKey/);
    const statements = statementsByEntry(app).get(bootstrapKeyRotation.entry) ?? [];
    const onSecret = statements.filter((statement) => /BootstrapApiKey/.test(text(statement.Resource)));
    expect(onSecret.flatMap((statement) => list(statement.Action)).sort()).toEqual(
      expect.arrayContaining([
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
        'secretsmanager:UpdateSecretVersionStage',
      ]),
    );
  });
});
