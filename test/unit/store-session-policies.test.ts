/**
 * The session policies that scope each session the platform opens for a store, evaluated offline by
 * an IAM policy simulator we did not write (@cloud-copilot/iam-simulate): the role may do anything
 * in the bucket, the session only what the store needs, where the store is.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { storeSessionPolicy } from '#shared/adapters/s3/session-policies.ts';
import { maxPrefixLength, parseBaseUrl } from '#shared/domain/tenants/object-stores.ts';

/**
 * The role behind the session: every object action in the whole bucket, and a key through S3 (as
 * the platform's writer role for tenant buckets has, in eu-west-1: lib/constructs/tenant-bucket-access.ts).
 */
const rolePolicy = {
  Version: '2012-10-17',
  Statement: [
    { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], Resource: 'arn:aws:s3:::lake/*' },
    { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::lake' },
    {
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      Resource: '*',
      Condition: { StringEquals: { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' } },
    },
  ],
};

const defaultKeyPolicy = {
  Version: '2012-10-17',
  Statement: [
    { Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::999999999999:root' }, Action: 'kms:*', Resource: '*' },
  ],
};

async function decide(
  access: 'read' | 'readWrite',
  action: string,
  resource: string,
  context: Record<string, string> = {},
  handedOut = false,
): Promise<string> {
  const result = await runSimulation(
    {
      request: {
        principal: 'arn:aws:sts::999999999999:assumed-role/TenantBucketWriter/tributary-t1',
        action,
        resource: { resource, accountId: '999999999999' },
        contextVariables: context,
      },
      sessionPolicy: storeSessionPolicy({ bucket: 'lake', prefix: 'tenants/t-abc', access }, 'aws', { handedOut }),
      identityPolicies: [{ name: 'role', policy: rolePolicy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      // A KMS key decides with its key policy too: the default one, which defers to IAM in its account.
      ...(action.startsWith('kms:') ? { resourcePolicy: defaultKeyPolicy } : {}),
    },
    {},
  );
  if (result.resultType !== 'single') throw new Error(`Simulation failed: ${JSON.stringify(result)}`);
  return result.overallResult;
}

describe('a store’s session, for a store at s3://lake/tenants/t-abc', () => {
  const key = 'arn:aws:s3:::lake/tenants/t-abc/data/part-0.parquet';
  const cases: [string, 'read' | 'readWrite', string, string, Record<string, string>, string][] = [
    ['reads an object of the store', 'read', 's3:GetObject', key, {}, 'Allowed'],
    ['writes an object of the store', 'readWrite', 's3:PutObject', key, {}, 'Allowed'],
    ['deletes an object of the store', 'readWrite', 's3:DeleteObject', key, {}, 'Allowed'],
    ['writes when its function only reads', 'read', 's3:PutObject', key, {}, 'ImplicitlyDenied'],
    ['deletes when its function only reads', 'read', 's3:DeleteObject', key, {}, 'ImplicitlyDenied'],
    [
      'reads a sibling whose name extends the prefix',
      'read',
      's3:GetObject',
      'arn:aws:s3:::lake/tenants/t-abcx/data/part-0.parquet',
      {},
      'ImplicitlyDenied',
    ],
    ['reads above the prefix', 'read', 's3:GetObject', 'arn:aws:s3:::lake/tenants/index.json', {}, 'ImplicitlyDenied'],
    ['reads at the bucket root', 'read', 's3:GetObject', 'arn:aws:s3:::lake/t-abc/x', {}, 'ImplicitlyDenied'],
    [
      'writes into another bucket',
      'readWrite',
      's3:PutObject',
      'arn:aws:s3:::lake-two/tenants/t-abc/x',
      {},
      'ImplicitlyDenied',
    ],
    [
      'lists the store',
      'read',
      's3:ListBucket',
      'arn:aws:s3:::lake',
      { 's3:prefix': 'tenants/t-abc/_delta_log/' },
      'Allowed',
    ],
    [
      'lists a sibling',
      'read',
      's3:ListBucket',
      'arn:aws:s3:::lake',
      { 's3:prefix': 'tenants/t-abcx/' },
      'ImplicitlyDenied',
    ],
    [
      'lists above the store',
      'read',
      's3:ListBucket',
      'arn:aws:s3:::lake',
      { 's3:prefix': 'tenants/' },
      'ImplicitlyDenied',
    ],
    ['changes the bucket policy', 'readWrite', 's3:PutBucketPolicy', 'arn:aws:s3:::lake', {}, 'ImplicitlyDenied'],
    [
      'decrypts through S3',
      'read',
      'kms:Decrypt',
      'arn:aws:kms:eu-west-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' },
      'Allowed',
    ],
    [
      'encrypts a new object through S3',
      'readWrite',
      'kms:GenerateDataKey',
      'arn:aws:kms:eu-west-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' },
      'Allowed',
    ],
    [
      'encrypts a new object when its function only reads',
      'read',
      'kms:GenerateDataKey',
      'arn:aws:kms:eu-west-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' },
      'ImplicitlyDenied',
    ],
    [
      'decrypts outside S3',
      'read',
      'kms:Decrypt',
      'arn:aws:kms:eu-west-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      {},
      'ImplicitlyDenied',
    ],
  ];
  it.each(cases)('%s (%s): %s', async (_, access, action, resource, context, expected) => {
    expect(await decide(access, action, resource, context)).toBe(expected);
  });
});

describe('a session whose credentials are handed to a catalog client', () => {
  const bucket = 'arn:aws:s3:::lake';
  it('lists under the store only, never the whole bucket without a prefix (the platform’s own session may)', async () => {
    expect({
      underStore: await decide('read', 's3:ListBucket', bucket, { 's3:prefix': 'tenants/t-abc/metadata/' }, true),
      noPrefix: await decide('read', 's3:ListBucket', bucket, {}, true),
      above: await decide('read', 's3:ListBucket', bucket, { 's3:prefix': 'tenants/' }, true),
      platformNoPrefix: await decide('read', 's3:ListBucket', bucket, {}, false),
      readsObject: await decide('read', 's3:GetObject', `${bucket}/tenants/t-abc/dt=2026-12-01/a.parquet`, {}, true),
    }).toEqual({
      underStore: 'Allowed',
      noPrefix: 'ImplicitlyDenied',
      above: 'ImplicitlyDenied',
      platformNoPrefix: 'Allowed',
      readsObject: 'Allowed',
    });
  });
});

describe('a session policy', () => {
  it('stays within STS’s 2,048 characters for the longest bucket name and prefix a store may have', () => {
    const bucket = `b${'x'.repeat(61)}b`;
    const prefix = Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(31, 'p'))
      .join('/')
      .slice(0, maxPrefixLength);
    expect(parseBaseUrl(`s3://${bucket}/${prefix}`).prefix).toBe(prefix);
    const policy = JSON.stringify(storeSessionPolicy({ bucket, prefix, access: 'readWrite' }, 'aws-us-gov'));
    expect(policy.length).toBeLessThanOrEqual(2048);
  });
});
