/**
 * A tenant store registered with a role is reached with that role: STS AssumeRole with the tenant's
 * external id and a session policy naming the store, then S3 signed with the temporary credentials it
 * returned; a store in a tenant bucket is reached through the platform's own role the same way. STS
 * and S3 here are small HTTP servers that record what the SDK sends.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientConfig } from '#shared/adapters/s3/tenant-stores.ts';
import { tenantRoleChecks } from '#shared/adapters/tenant-roles.ts';
import type { StoreConnection } from '#shared/domain/tenants/store-access.ts';
import { StoreFailure } from '#shared/domain/tenants/store-failures.ts';

/** A store connection as the domain describes it (shared/domain/tenants/store-access.ts). */
function connection(
  credentials: StoreConnection['credentials'],
  settings: Partial<Omit<StoreConnection, 'credentials'>> = {},
): StoreConnection {
  return {
    cacheKey: 'store-1',
    tenantId: 'tenant-1',
    objectStoreId: 'store-1',
    scope: { bucket: 'lake', prefix: 'tenants/acme', access: 'readWrite' },
    region: 'eu-west-1',
    endpoint: undefined,
    forcePathStyle: undefined,
    credentials,
    sessionName: 'tributary-tenant-1',
    ...settings,
  };
}

interface Seen {
  url: string;
  authorization: string;
  body: string;
}

function recordingServer(respond: (request: Seen) => { status: number; type: string; body: string }) {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const entry = { url: request.url ?? '', authorization: String(request.headers.authorization ?? ''), body };
      seen.push(entry);
      const answer = respond(entry);
      response.writeHead(answer.status, { 'content-type': answer.type });
      response.end(answer.body);
    });
  });
  return { server, seen };
}

const listed = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>lake</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>`;

const assumed = (expiration: string) => `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>ASIATENANTROLE000001</AccessKeyId>
      <SecretAccessKey>tenant-secret</SecretAccessKey>
      <SessionToken>tenant-session</SessionToken>
      <Expiration>${expiration}</Expiration>
    </Credentials>
    <AssumedRoleUser><AssumedRoleId>AROA:tributary</AssumedRoleId><Arn>arn:aws:sts::111122223333:assumed-role/lake-writer/tributary</Arn></AssumedRoleUser>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>1</RequestId></ResponseMetadata>
</AssumeRoleResponse>`;

/** What STS answers (a test may change it: the store adapter keeps one STS client per process, on this server). */
let stsAnswer = () => ({
  status: 200,
  type: 'text/xml',
  body: assumed(new Date(Date.now() + 3_600_000).toISOString()),
});
const sts = recordingServer(() => stsAnswer());
const s3 = recordingServer(() => ({ status: 200, type: 'application/xml', body: listed }));
const saved = { ...process.env };

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

beforeAll(async () => {
  process.env.AWS_ENDPOINT_URL_STS = await listen(sts.server);
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'AKIAPLATFORM00000001';
  process.env.AWS_SECRET_ACCESS_KEY = 'platform-secret';
  await listen(s3.server);
});

afterAll(() => {
  process.env = saved;
  sts.server.close();
  s3.server.close();
});

describe('a tenant store registered with a role', () => {
  it('assumes the role with the external id and signs S3 requests with the role’s credentials', async () => {
    const endpoint = `http://127.0.0.1:${(s3.server.address() as AddressInfo).port}`;
    const client = new S3Client(
      clientConfig(
        connection(
          { kind: 'tenantRole', roleArn: 'arn:aws:iam::111122223333:role/lake-writer', externalId: 'tributary-7f3a' },
          { endpoint, scope: { bucket: 'lake', prefix: 'tenants/acme', access: 'read' } },
        ),
      ),
    );
    await client.send(new ListObjectsV2Command({ Bucket: 'lake' }));
    await client.send(new ListObjectsV2Command({ Bucket: 'lake' }));

    // One AssumeRole for both requests: the temporary credentials are reused until near expiry.
    expect(sts.seen).toHaveLength(1);
    const call = new URLSearchParams(sts.seen[0]?.body);
    expect(call.get('Action')).toBe('AssumeRole');
    expect(call.get('RoleArn')).toBe('arn:aws:iam::111122223333:role/lake-writer');
    expect(call.get('ExternalId')).toBe('tributary-7f3a');
    expect(call.get('RoleSessionName')).toBe('tributary-tenant-1');
    // The session reads the store's prefix and nothing else (a function that only reads).
    expect(JSON.parse(call.get('Policy') ?? 'null')).toMatchObject({
      Statement: [
        { Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::lake/tenants/acme/*' },
        {
          Action: ['s3:ListBucket'],
          Resource: 'arn:aws:s3:::lake',
          Condition: { StringLikeIfExists: { 's3:prefix': ['tenants/acme/*'] } },
        },
        { Action: ['kms:Decrypt'] },
      ],
    });
    // STS itself is called as the platform...
    expect(sts.seen[0]?.authorization).toContain('Credential=AKIAPLATFORM00000001/');
    // ...and the tenant's bucket as the tenant's role.
    expect(s3.seen).toHaveLength(2);
    for (const request of s3.seen) expect(request.authorization).toContain('Credential=ASIATENANTROLE000001/');
  });

  it('gives up on a store that takes no connection within 3 s or sends nothing for 20 s, whatever the transfer’s length', () => {
    for (const credentials of [{ kind: 'platform' }, { kind: 'anonymous' }] as const) {
      expect(clientConfig(connection(credentials)).requestHandler).toEqual({
        connectionTimeout: 3_000,
        socketTimeout: 20_000,
      });
    }
  });

  it('never reaches a store for the platform’s role with the function’s own credentials where no role for tenant buckets is set: ACCESS_DENIED, and nothing sent', async () => {
    // Arrange: no TENANT_BUCKET_ROLE_ARN; the function's own credentials (AKIAPLATFORM00000001) are in the environment.
    const endpoint = `http://127.0.0.1:${(s3.server.address() as AddressInfo).port}`;
    const settings = clientConfig(connection({ kind: 'platform' }, { endpoint, cacheKey: 'store-6' }));
    const client = new S3Client(settings);
    const before = { s3: s3.seen.length, sts: sts.seen.length };
    const categoryOf = (error: unknown) => (error instanceof StoreFailure ? error.category : String(error));
    // Act
    const listing = await client
      .send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: 'tenants/acme/' }))
      .then(() => 'sent', categoryOf);
    const download = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'lake', Key: 'tenants/acme/a' })).then(
      (url) => url,
      categoryOf,
    );
    // Assert
    expect(settings.credentials).not.toBeUndefined();
    expect({ listing, download }).toEqual({ listing: 'ACCESS_DENIED', download: 'ACCESS_DENIED' });
    expect({ s3: s3.seen.length, sts: sts.seen.length }).toEqual(before);
  });

  it('reaches a tenant bucket through the platform’s own role, scoped by a session policy to the store', async () => {
    // Prepare: the stack names the platform's role for tenant buckets.
    const endpoint = `http://127.0.0.1:${(s3.server.address() as AddressInfo).port}`;
    process.env.TENANT_BUCKET_ROLE_ARN = 'arn:aws:iam::999999999999:role/TenantBucketWriter';
    const before = sts.seen.length;
    try {
      // Act
      const client = new S3Client(clientConfig(connection({ kind: 'platform' }, { endpoint, cacheKey: 'store-5' })));
      await client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: 'tenants/acme/' }));
    } finally {
      delete process.env.TENANT_BUCKET_ROLE_ARN;
    }
    // Assess
    const call = new URLSearchParams(sts.seen[before]?.body);
    expect({
      role: call.get('RoleArn'),
      externalId: call.get('ExternalId'),
      session: call.get('RoleSessionName'),
      objects: JSON.parse(call.get('Policy') ?? 'null').Statement[0],
    }).toEqual({
      role: 'arn:aws:iam::999999999999:role/TenantBucketWriter',
      externalId: 'tributary-tenant-buckets',
      session: 'tributary-tenant-1',
      objects: {
        Sid: 'StoreObjects',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        Resource: 'arn:aws:s3:::lake/tenants/acme/*',
      },
    });
  });
});

describe('checking the role a store names', () => {
  const denied = `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform: sts:AssumeRole</Message></Error><RequestId>2</RequestId></ErrorResponse>`;

  it('asks STS once with the external id given (or none): a role that grants it is unsafe, one that refuses is safe', async () => {
    // Prepare: an STS that grants the first request and refuses the others.
    let answers = 0;
    const probe = recordingServer(() =>
      answers++ === 0
        ? { status: 200, type: 'text/xml', body: assumed(new Date(Date.now() + 900_000).toISOString()) }
        : { status: 403, type: 'text/xml', body: denied },
    );
    const saved = process.env.AWS_ENDPOINT_URL_STS;
    process.env.AWS_ENDPOINT_URL_STS = await listen(probe.server);
    try {
      // Act
      const unsafe = await tenantRoleChecks.assumable(
        'arn:aws:iam::111122223333:role/trusts-anyone',
        'tributary-tenant-1',
        null,
      );
      const safe = await tenantRoleChecks.assumable(
        'arn:aws:iam::111122223333:role/lake-writer',
        'tributary-tenant-1',
        null,
      );
      const foreign = await tenantRoleChecks.assumable(
        'arn:aws:iam::111122223333:role/lake-writer',
        'tributary-tenant-1',
        'tributary-someone-else',
      );
      // Assess
      expect({ unsafe, safe, foreign }).toEqual({ unsafe: true, safe: false, foreign: false });
      expect(
        probe.seen.map((request) => {
          const call = new URLSearchParams(request.body);
          return { action: call.get('Action'), externalId: call.get('ExternalId') };
        }),
      ).toEqual([
        { action: 'AssumeRole', externalId: null },
        { action: 'AssumeRole', externalId: null },
        { action: 'AssumeRole', externalId: 'tributary-someone-else' },
      ]);
    } finally {
      process.env.AWS_ENDPOINT_URL_STS = saved;
      probe.server.close();
    }
  });
});

describe('download URLs signed with a role', () => {
  it('are signed with credentials that outlive them: the role is assumed again before 15 minutes are left', async () => {
    // Prepare: an STS handing out one-hour sessions, each with its own key id.
    let issued = 0;
    const before = stsAnswer;
    stsAnswer = () => {
      issued++;
      return {
        status: 200,
        type: 'text/xml',
        body: assumed(new Date(Date.now() + 3_600_000).toISOString()).replace(
          'ASIATENANTROLE000001',
          `ASIATENANTROLE00000${issued}`,
        ),
      };
    };
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-21T10:00:00.000Z') });
    try {
      const client = new S3Client(
        clientConfig(
          connection({ kind: 'tenantRole', roleArn: 'arn:aws:iam::111122223333:role/lake-writer', externalId: 'x' }),
        ),
      );
      const signAt = async (at: string) => {
        vi.setSystemTime(new Date(at));
        const url = new URL(
          await getSignedUrl(client, new GetObjectCommand({ Bucket: 'lake', Key: 'a.parquet' }), { expiresIn: 900 }),
        );
        return url.searchParams.get('X-Amz-Credential')?.split('/')[0];
      };
      // Act: at 10:00 (a new session, until 11:00), 10:30 (30 minutes left) and 10:44 (16 minutes left).
      const keys = [
        await signAt('2026-11-21T10:00:00.000Z'),
        await signAt('2026-11-21T10:30:00.000Z'),
        await signAt('2026-11-21T10:44:00.000Z'),
      ];
      // Assess: a URL of 10:44 valid until 10:59 cannot be signed with credentials that end at 11:00 minus a margin.
      expect(keys).toEqual(['ASIATENANTROLE000001', 'ASIATENANTROLE000001', 'ASIATENANTROLE000002']);
    } finally {
      vi.useRealTimers();
      stsAnswer = before;
    }
  });
});

describe('a bucket in another region than the one given', () => {
  it('is reached: S3’s redirect naming the bucket’s region is followed', async () => {
    // Prepare: an S3 that, like AWS, answers a request signed for the wrong region with a 301 naming the right one.
    const redirecting = recordingServer((request) =>
      request.authorization.includes('/eu-west-1/s3/')
        ? { status: 200, type: 'application/xml', body: listed }
        : {
            status: 301,
            type: 'application/xml',
            body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message><Bucket>lake</Bucket></Error>',
          },
    );
    const original = redirecting.server.listeners('request')[0] as (...args: unknown[]) => void;
    redirecting.server.removeAllListeners('request');
    redirecting.server.on('request', (request, response) => {
      response.setHeader('x-amz-bucket-region', 'eu-west-1');
      original(request, response);
    });
    const endpoint = await listen(redirecting.server);
    try {
      const client = new S3Client(
        clientConfig(
          connection(
            { kind: 'keys', accessKeyId: 'AKIATENANT0000000001', secretAccessKey: 's', sessionToken: undefined },
            { endpoint, region: 'us-east-1' },
          ),
        ),
      );
      // Act
      const answer = await client.send(new ListObjectsV2Command({ Bucket: 'lake' }));
      // Assess
      expect(answer.KeyCount).toBe(0);
      expect(
        redirecting.seen.map((request) => /\/(us-east-1|eu-west-1)\/s3\//.exec(request.authorization)?.[1]),
      ).toEqual(['us-east-1', 'eu-west-1']);
    } finally {
      redirecting.server.close();
    }
  });
});
