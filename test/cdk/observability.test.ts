/**
 * What every function logs and traces, as deployed: JSON logs with no per-invocation platform
 * records, and active tracing only when the deployment asks for it.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SynthesizedApp, synthesizedConfiguredApp, synthesizedDefaultApp } from './app.ts';

type Functions = Record<string, { Properties: Record<string, unknown> }>;

function functionsOf(templates: Template[]): Functions {
  return Object.assign({}, ...templates.map((template) => template.findResources('AWS::Lambda::Function')));
}

/** Ours, not the custom resource framework's own function (CDK's, which logs as CDK sets it). */
function tributaryFunctions(functions: Functions) {
  return Object.entries(functions).filter(
    ([, fn]) => !String(fn.Properties.Description ?? '').startsWith('AWS CDK resource provider framework'),
  );
}

let standard: SynthesizedApp;
/** configuredProps: tracing true. */
let traced: SynthesizedApp;
beforeAll(async () => {
  standard = await synthesizedDefaultApp();
  traced = await synthesizedConfiguredApp();
});

const all = (app: SynthesizedApp) => tributaryFunctions(functionsOf([app.statelessTemplate, ...app.nestedTemplates]));

describe('logging, as deployed', () => {
  it('writes JSON, application lines from INFO, and platform records from WARN only, for every function', () => {
    const functions = all(standard);
    expect(functions.length).toBeGreaterThan(60);
    for (const [id, fn] of functions) {
      expect({ id, logging: fn.Properties.LoggingConfig }).toEqual({
        id,
        logging: expect.objectContaining({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'WARN' }),
      });
    }
  });
});

describe('log groups, as deployed', () => {
  it('gives every function, CDK’s custom resource framework’s too, a log group kept a year under the logs key', () => {
    const functions = Object.entries(functionsOf([standard.statelessTemplate, ...standard.nestedTemplates]));
    const groups = [standard.statelessTemplate, ...standard.nestedTemplates].map((template) =>
      template.findResources('AWS::Logs::LogGroup'),
    );
    const groupOf = (ref: unknown) => {
      const id = (ref as { Ref?: string } | undefined)?.Ref ?? '';
      return groups.find((within) => within[id])?.[id]?.Properties as Record<string, unknown> | undefined;
    };
    const unkept = functions
      .map(([id, fn]) => {
        const group = groupOf((fn.Properties.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup);
        return { id, retention: group?.RetentionInDays, encrypted: group?.KmsKeyId !== undefined };
      })
      .filter((fn) => fn.retention !== 365 || !fn.encrypted);
    expect(functions.some(([, fn]) => String(fn.Properties.Description).startsWith('AWS CDK resource provider'))).toBe(
      true,
    );
    expect(unkept).toEqual([]);
  });
});

describe('tracing', () => {
  it('is off by default: no function traces, and no role may write to X-Ray', () => {
    for (const [id, fn] of all(standard))
      expect({ id, tracing: fn.Properties.TracingConfig }).toEqual({ id, tracing: undefined });
    const policies = JSON.stringify([
      standard.statelessTemplate.findResources('AWS::IAM::Policy'),
      ...standard.nestedTemplates.map((template) => template.findResources('AWS::IAM::Policy')),
    ]);
    expect(policies).not.toContain('xray:');
  });

  it("turns on for every function with the tracing context value, with X-Ray as a function's only * resource", () => {
    for (const [id, fn] of all(traced))
      expect({ id, tracing: fn.Properties.TracingConfig }).toEqual({ id, tracing: { Mode: 'Active' } });
    // Besides X-Ray, only the roles for tenantBuckets have a * resource: a bucket's KMS key, through S3.
    const starred = new Set<string>();
    for (const template of [traced.statelessTemplate, ...traced.nestedTemplates]) {
      for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
        const roles = JSON.stringify(policy.Properties.Roles);
        for (const statement of policy.Properties.PolicyDocument.Statement as {
          Action: string | string[];
          Resource: unknown;
          Condition?: Record<string, Record<string, unknown>>;
        }[]) {
          if (statement.Resource === '*' || (Array.isArray(statement.Resource) && statement.Resource.includes('*')))
            for (const action of [statement.Action].flat())
              starred.add(
                action.startsWith('kms:')
                  ? `${action} ${roles.includes('TenantBucketAccess') ? 'tenant buckets' : 'other'} ${Object.keys({ ...statement.Condition?.StringEquals, ...statement.Condition?.StringLike }).join()}`
                  : action,
              );
        }
      }
    }
    expect([...starred].sort()).toEqual([
      'kms:Decrypt tenant buckets kms:ViaService',
      'kms:GenerateDataKey tenant buckets kms:ViaService',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });
});
