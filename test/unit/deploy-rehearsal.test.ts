/**
 * Local mode's rehearsal of a deploy (local/deploy/): the order CloudFormation creates resources in,
 * the Create/Update/Delete requests a custom resource gets across starts (kept in the rehearsal's
 * state file), the steps Secrets Manager runs a rotation function through, and Lambda's rule for
 * reserved concurrency. Templates are fixture cloud assemblies written here; the rotation function
 * is the bootstrap key's own rotation (shared/domain/identity/bootstrap-key.ts) over the local
 * Secrets Manager's API.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type BootstrapSecret, rotateBootstrapKey } from '#shared/domain/identity/bootstrap-key.ts';
import { hashToken } from '#shared/domain/tokens.ts';
import { type DeployStep, readDeployment } from '../../local/cloud-assembly.ts';
import { settleBootstrapKey } from '../../local/deploy/bootstrap-key.ts';
import { checkReservedConcurrency } from '../../local/deploy/concurrency.ts';
import { creationOrder } from '../../local/deploy/order.ts';
import { readDeployed, rehearseDeploy } from '../../local/deploy/rehearsal.ts';
import { LocalSecretsManager } from '../../local/deploy/secrets-manager.ts';

const placement = { tableName: 't', platformBucket: 'b', queuePrefix: '', sqsEndpoint: 'http://127.0.0.1:1' };
const fn = (extra: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Runtime: 'nodejs22.x', Handler: 'index.handler', Code: { S3Key: 'code.zip' }, ...extra },
});
const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

/** A cloud assembly of one stack with this template (its functions' code is never loaded here). */
function assembly(resources: Record<string, unknown>): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'rehearsal-assembly-'));
  writeFileSync(
    path.join(directory, 'manifest.json'),
    JSON.stringify({
      artifacts: {
        Fixture: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Fixture.template.json' } },
        FixtureAssets: { type: 'cdk:asset-manifest', properties: { file: 'Fixture.assets.json' } },
      },
    }),
  );
  writeFileSync(
    path.join(directory, 'Fixture.assets.json'),
    JSON.stringify({
      files: { code: { source: { path: 'asset.code' }, destinations: { d: { objectKey: 'code.zip' } } } },
    }),
  );
  writeFileSync(
    path.join(directory, 'Fixture.template.json'),
    JSON.stringify({ Conditions: { Never: { 'Fn::Equals': ['a', 'b'] } }, Resources: resources }),
  );
  return directory;
}

/** CloudFormation's request, as a provider reads it. */
const requestSchema = z.object({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  ResponseURL: z.string(),
  StackId: z.string(),
  RequestId: z.string(),
  ResourceType: z.string(),
  LogicalResourceId: z.string(),
  ResourceProperties: z.record(z.string(), z.unknown()),
  PhysicalResourceId: z.string().optional(),
  OldResourceProperties: z.record(z.string(), z.unknown()).optional(),
});

const stepsOf = (resources: Record<string, unknown>) => readDeployment(assembly(resources), placement).deploySteps;

describe('the order a deploy creates resources in', () => {
  it('puts a resource after what it names with Ref and with DependsOn, else keeps the template order', () => {
    const order = creationOrder({
      A: { Type: 'Custom::A', DependsOn: 'C', Properties: { Table: { Ref: 'B' } } },
      B: { Type: 'Custom::B', Properties: { Name: 'plain' } },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own syntax, not JavaScript's.
      C: { Type: 'Custom::C', Properties: { Text: { 'Fn::Sub': 'at ${D.Arn}' } } },
      D: { Type: 'Custom::D' },
    });
    expect(order).toEqual(['B', 'D', 'C', 'A']);
  });

  it('refuses a cycle, as CloudFormation does', () => {
    expect(() =>
      creationOrder({
        A: { Type: 'Custom::A', DependsOn: ['B'] },
        B: { Type: 'Custom::B', Properties: { X: { Ref: 'A' } } },
      }),
    ).toThrow('Circular dependency between resources: A, B');
  });

  it('reads the custom resources and rotation schedules of an assembly in that order, with their providers', () => {
    const steps = stepsOf({
      Later: {
        Type: 'Custom::Later',
        Properties: { ServiceToken: arnOf('Direct'), After: { Ref: 'Framed' } },
      },
      Framed: { Type: 'AWS::CloudFormation::CustomResource', Properties: { ServiceToken: arnOf('Framework') } },
      Schedule: {
        Type: 'AWS::SecretsManager::RotationSchedule',
        DependsOn: 'Later',
        Properties: { SecretId: { Ref: 'Key' }, RotationLambdaARN: arnOf('Rotation') },
      },
      Key: { Type: 'AWS::SecretsManager::Secret', Properties: { GenerateSecretString: { PasswordLength: 12 } } },
      NeverMade: { Type: 'Custom::Off', Condition: 'Never', Properties: { ServiceToken: arnOf('Direct') } },
      Direct: fn(),
      OnEvent: fn(),
      Framework: fn({ Environment: { Variables: { USER_ON_EVENT_FUNCTION_ARN: arnOf('OnEvent') } } }),
      Rotation: fn(),
    });
    expect(steps.map((step) => [step.logicalId, step.action])).toEqual([
      ['Framed', { kind: 'customResource', functionId: 'Fixture/OnEvent', via: 'providerFramework' }],
      ['Later', { kind: 'customResource', functionId: 'Fixture/Direct', via: 'lambda' }],
      [
        'Schedule',
        {
          kind: 'rotationSchedule',
          secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:Key-AbCdEf',
          functionId: 'Fixture/Rotation',
          // RotateImmediatelyOnUpdate absent: Secrets Manager's default, at once.
          rotateImmediately: true,
        },
      ],
    ]);
  });
});

describe('custom resources across three starts', () => {
  const template = (resources: Record<string, unknown>) => ({
    Direct: fn(),
    OnEvent: fn(),
    Framework: fn({ Environment: { Variables: { USER_ON_EVENT_FUNCTION_ARN: arnOf('OnEvent') } } }),
    ...resources,
  });

  /** The providers: the plain one answers at the ResponseURL, the framework's onEvent returns its answer. */
  function providers() {
    const requests: z.infer<typeof requestSchema>[] = [];
    const invoke = async (functionId: string, event: unknown) => {
      const request = requestSchema.parse(event);
      requests.push(request);
      if (functionId === 'Fixture/OnEvent')
        return request.RequestType === 'Create' ? { PhysicalResourceId: 'framed-1' } : {};
      const failed = request.ResourceProperties.Fail === 'yes';
      await fetch(request.ResponseURL, {
        method: 'PUT',
        body: JSON.stringify({
          Status: failed ? 'FAILED' : 'SUCCESS',
          Reason: failed ? 'the bucket is not empty' : undefined,
          PhysicalResourceId: `direct-${request.ResourceProperties.Size}`,
          StackId: request.StackId,
          RequestId: request.RequestId,
          LogicalResourceId: request.LogicalResourceId,
        }),
      });
      return null;
    };
    return { requests, invoke };
  }

  it('sends Create, then Update with the old properties, then Delete, and keeps what it deployed', async () => {
    const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'rehearsal-state-')), 'resources.json');
    const secrets = new LocalSecretsManager(new Map(), null);
    const { requests, invoke } = providers();
    const deps = { stateFile, invoke, secrets, hasFunction: () => true };
    const direct = (size: string) => ({
      Type: 'Custom::Sized',
      Properties: { ServiceToken: arnOf('Direct'), Size: size },
    });
    const framed = { Type: 'AWS::CloudFormation::CustomResource', Properties: { ServiceToken: arnOf('Framework') } };

    // First start: both are new.
    const first = await rehearseDeploy(stepsOf(template({ Sized: direct('1'), Framed: framed })), deps);
    // Second start: Sized's properties changed; Framed's did not.
    const second = await rehearseDeploy(stepsOf(template({ Sized: direct('2'), Framed: framed })), deps);
    const afterSecond = readDeployed(stateFile);
    // Third start: Sized left the template.
    const third = await rehearseDeploy(stepsOf(template({ Framed: framed })), deps);

    expect([first.done, second.done, third.done]).toEqual([
      ['Sized (Custom::Sized): Create', 'Framed (AWS::CloudFormation::CustomResource): Create'],
      ['Sized (Custom::Sized): Update'],
      ['Sized (Custom::Sized): Delete'],
    ]);
    const serviceToken = 'arn:aws:lambda:us-east-1:000000000000:function:Direct';
    const seen = requests.map(
      ({ RequestType, LogicalResourceId, PhysicalResourceId, ResourceProperties, OldResourceProperties }) => ({
        RequestType,
        LogicalResourceId,
        PhysicalResourceId,
        ResourceProperties,
        OldResourceProperties,
      }),
    );
    expect(seen).toEqual([
      {
        RequestType: 'Create',
        LogicalResourceId: 'Sized',
        PhysicalResourceId: undefined,
        ResourceProperties: { ServiceToken: serviceToken, Size: '1' },
        OldResourceProperties: undefined,
      },
      {
        RequestType: 'Create',
        LogicalResourceId: 'Framed',
        PhysicalResourceId: undefined,
        ResourceProperties: { ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:Framework' },
        OldResourceProperties: undefined,
      },
      {
        RequestType: 'Update',
        LogicalResourceId: 'Sized',
        PhysicalResourceId: 'direct-1',
        ResourceProperties: { ServiceToken: serviceToken, Size: '2' },
        OldResourceProperties: { ServiceToken: serviceToken, Size: '1' },
      },
      {
        RequestType: 'Delete',
        LogicalResourceId: 'Sized',
        PhysicalResourceId: 'direct-2',
        ResourceProperties: { ServiceToken: serviceToken, Size: '2' },
        OldResourceProperties: undefined,
      },
    ]);
    for (const request of requests) {
      expect(request.StackId).toMatch(/^arn:aws:cloudformation:us-east-1:000000000000:stack\/Fixture\//);
      expect(request.ResourceType).toBe(
        request.LogicalResourceId === 'Sized' ? 'Custom::Sized' : 'AWS::CloudFormation::CustomResource',
      );
      expect(request.RequestId).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(
      Object.fromEntries(
        Object.entries(afterSecond.resources).map(([id, resource]) => [id, resource.physicalResourceId]),
      ),
    ).toEqual({ 'Fixture/Sized': 'direct-2', 'Fixture/Framed': 'framed-1' });
    expect(Object.keys(readDeployed(stateFile).resources)).toEqual(['Fixture/Framed']);
  });

  it('fails with the resource’s reason and keeps nothing of it, so the next start sends Create again', async () => {
    const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'rehearsal-state-')), 'resources.json');
    const { requests, invoke } = providers();
    const deps = { stateFile, invoke, secrets: new LocalSecretsManager(new Map(), null), hasFunction: () => true };
    const failing = template({
      Sized: { Type: 'Custom::Sized', Properties: { ServiceToken: arnOf('Direct'), Size: '1', Fail: 'yes' } },
    });

    await expect(rehearseDeploy(stepsOf(failing), deps)).rejects.toThrow(
      'Sized (Custom::Sized, Create) failed: the bucket is not empty',
    );
    await expect(rehearseDeploy(stepsOf(failing), deps)).rejects.toThrow('the bucket is not empty');
    expect(requests.map((request) => request.RequestType)).toEqual(['Create', 'Create']);
    expect(readDeployed(stateFile).resources).toEqual({});
  });
});

describe('a rotation schedule, as Secrets Manager sets it up', () => {
  const secretArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:Key-AbCdEf';
  const oldKey = `trb_key_${'o'.repeat(43)}`;

  /** The bootstrap key's rotation function over the local Secrets Manager's API; every step it is invoked for. */
  function rotationFunction(secrets: LocalSecretsManager) {
    const steps: string[] = [];
    let installed = hashToken(oldKey);
    const secret: BootstrapSecret = {
      async versionStages() {
        return z
          .record(z.string(), z.array(z.string()))
          .parse(secrets.handle('DescribeSecret', { SecretId: secretArn }).VersionIdsToStages);
      },
      async valueOf(versionId) {
        try {
          return String(secrets.handle('GetSecretValue', { SecretId: secretArn, VersionId: versionId }).SecretString);
        } catch {
          return null;
        }
      },
      async putPending(versionId, value) {
        secrets.handle('PutSecretValue', {
          SecretId: secretArn,
          ClientRequestToken: versionId,
          SecretString: value,
          VersionStages: ['AWSPENDING'],
        });
      },
      async makeCurrent(to, from) {
        secrets.handle('UpdateSecretVersionStage', {
          SecretId: secretArn,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: to,
          RemoveFromVersionId: from,
        });
      },
    };
    const invoke = async (_functionId: string, event: unknown) => {
      const { Step, ClientRequestToken } = z
        .object({
          Step: z.enum(['createSecret', 'setSecret', 'testSecret', 'finishSecret']),
          ClientRequestToken: z.string(),
        })
        .parse(event);
      steps.push(Step);
      await rotateBootstrapKey(
        {
          secret,
          async installBootstrapKey(hash) {
            installed = hash;
          },
        },
        Step,
        ClientRequestToken,
      );
    };
    return { steps, invoke, accepts: (key: string | null) => key !== null && hashToken(key) === installed };
  }

  const schedule = (rotateImmediately: boolean): DeployStep => ({
    id: 'Fixture/Schedule',
    stackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/Fixture/1',
    logicalId: 'Schedule',
    type: 'AWS::SecretsManager::RotationSchedule',
    properties: { RotateImmediatelyOnUpdate: rotateImmediately },
    action: { kind: 'rotationSchedule', secretArn, functionId: 'Fixture/Rotation', rotateImmediately },
  });

  const setUp = () => {
    const secrets = new LocalSecretsManager(new Map([[secretArn, { value: oldKey }]]), null);
    const rotation = rotationFunction(secrets);
    const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'rehearsal-state-')), 'resources.json');
    return { secrets, rotation, deps: { stateFile, invoke: rotation.invoke, secrets, hasFunction: () => true } };
  };

  it('rotates at once: the four steps on a new pending version, which becomes current and the only key accepted', async () => {
    const { secrets, rotation, deps } = setUp();
    const oldVersion = secrets.versionWith(secretArn, 'AWSCURRENT');

    await rehearseDeploy([schedule(true)], deps);

    expect(rotation.steps).toEqual(['createSecret', 'setSecret', 'testSecret', 'finishSecret']);
    const newKey = secrets.valueOf(secretArn);
    expect(newKey).toMatch(/^trb_key_/);
    expect(newKey).not.toBe(oldKey);
    expect(rotation.accepts(newKey)).toBe(true);
    expect(rotation.accepts(oldKey)).toBe(false);
    expect(secrets.versionWith(secretArn, 'AWSPREVIOUS')).toBe(oldVersion);
    expect(secrets.versionWith(secretArn, 'AWSPENDING')).toBe(secrets.versionWith(secretArn, 'AWSCURRENT'));
  });

  it('with RotateImmediatelyOnUpdate false, runs testSecret on an empty pending version, which this function refuses', async () => {
    // The template before "Bootstrap key: the rotation schedule rotates at once": the deploy failed here.
    const { secrets, rotation, deps } = setUp();
    const before = secrets.stagesOf(secretArn);

    await expect(rehearseDeploy([schedule(false)], deps)).rejects.toThrow(
      "Schedule (AWS::SecretsManager::RotationSchedule, Create) failed: Secrets Manager's test of the rotation configuration (testSecret on a new AWSPENDING version) failed: The pending value is not an API key",
    );
    expect(rotation.steps).toEqual(['testSecret']);
    // The test's version is removed; the key is as it was.
    expect(secrets.stagesOf(secretArn)).toEqual(before);
    expect(rotation.accepts(oldKey)).toBe(true);
  });

  it('rotates to the key an operator names, when the secret holds another', async () => {
    const { secrets, rotation } = setUp();
    const named = `trb_key_${'n'.repeat(43)}`;
    const deployment = {
      secrets: new Map([[secretArn, 'bootstrapKey' as const]]),
      deploySteps: [schedule(true)],
    };

    const key = await settleBootstrapKey(deployment, secrets, rotation.invoke, named);
    const again = await settleBootstrapKey(deployment, secrets, rotation.invoke, named);

    expect([key, again]).toEqual([named, named]);
    expect(rotation.steps).toEqual(['createSecret', 'setSecret', 'testSecret', 'finishSecret']);
    expect(rotation.accepts(named)).toBe(true);
  });
});

describe('the local Secrets Manager keeps what it generated', () => {
  it('makes a generated value once, as GenerateSecretString says, and reads it back at the next start', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'rehearsal-secrets-')), 'deployment', 'secrets.json');
    const sources = new Map([
      [
        'arn:aws:secretsmanager:us-east-1:000000000000:secret:K-AbCdEf',
        { generate: { template: '{}', key: 'random', length: 43 } },
      ],
    ]);
    const first = new LocalSecretsManager(sources, file).valueOf(
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:K-AbCdEf',
    );
    const second = new LocalSecretsManager(sources, file).valueOf(
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:K-AbCdEf',
    );
    expect(second).toBe(first);
    expect(JSON.parse(String(first))).toEqual({ random: expect.stringMatching(/^[A-Za-z0-9]{43}$/) });
    expect(readFileSync(file, 'utf8')).toContain('AWSCURRENT');
  });
});

describe("Lambda's rule for reserved concurrency", () => {
  const functions = [
    { functionName: 'writer', reservedConcurrency: 50 },
    { functionName: 'front', reservedConcurrency: null },
    { functionName: 'committer', reservedConcurrency: 50 },
  ];

  it('adds the reservations up and leaves the rest unreserved', () => {
    expect(checkReservedConcurrency(functions, 1000)).toEqual({
      accountConcurrency: 1000,
      reserved: 100,
      unreserved: 900,
    });
    // Exactly 100 left is allowed.
    expect(checkReservedConcurrency(functions, 200)).toEqual({
      accountConcurrency: 200,
      reserved: 100,
      unreserved: 100,
    });
    // Nothing reserved: nothing to refuse, whatever the account's concurrency.
    expect(checkReservedConcurrency([{ functionName: 'front', reservedConcurrency: null }], 10).unreserved).toBe(10);
  });

  it('refuses the first reservation that leaves less than 100, naming the function and the numbers', () => {
    expect(() => checkReservedConcurrency(functions, 199)).toThrow(
      "Lambda refuses ReservedConcurrentExecutions 50 for committer: the account's concurrency 199 less 50 already reserved leaves 149, and 50 more would leave 99 unreserved, below the 100 Lambda keeps",
    );
    expect(() => checkReservedConcurrency(functions, 10)).toThrow(
      "ReservedConcurrentExecutions 50 for writer: the account's concurrency 10 less 0 already reserved leaves 10, and 50 more would leave -40 unreserved",
    );
  });
});
