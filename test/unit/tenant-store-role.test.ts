/**
 * A tenant store registered with a role is reached with that role: STS AssumeRole with the store's
 * external id, then S3 signed with the temporary credentials it returned. STS and S3 here are small
 * HTTP servers that record what the SDK sends.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfig } from '#shared/adapters/s3/tenant-stores.ts';

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

const sts = recordingServer(() => ({
  status: 200,
  type: 'text/xml',
  body: assumed(new Date(Date.now() + 3_600_000).toISOString()),
}));
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
        {
          role_arn: 'arn:aws:iam::111122223333:role/lake-writer',
          external_id: 'tributary-7f3a',
          endpoint,
          region: 'eu-west-1',
        },
        'tributary-tenant-1',
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
    // STS itself is called as the platform...
    expect(sts.seen[0]?.authorization).toContain('Credential=AKIAPLATFORM00000001/');
    // ...and the tenant's bucket as the tenant's role.
    expect(s3.seen).toHaveLength(2);
    for (const request of s3.seen) expect(request.authorization).toContain('Credential=ASIATENANTROLE000001/');
  });

  it('uses the platform’s own credentials for a store registered with neither keys nor a role', () => {
    expect(clientConfig({ region: 'eu-west-1' }, 'tributary-tenant-2').credentials).toBeUndefined();
  });
});
