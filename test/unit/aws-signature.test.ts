/**
 * The ingest queue's own SigV4 signature (shared/adapters/aws-signature.ts) against the AWS SDK's
 * signer (@smithy/signature-v4), an implementation we did not write: the same request, credentials
 * and moment must give the same Authorization header, with and without a session token.
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { signJsonPost } from '#shared/adapters/aws-signature.ts';

/** node's SHA-256 in the shape the SDK's signer takes. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | Uint8Array) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
  }
  update(data: string | Uint8Array) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

async function sdkAuthorization(
  host: string,
  body: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  now: Date,
) {
  // Without the optional x-amz-content-sha256 header, which only S3 requires.
  const signer = new SignatureV4({
    credentials,
    region: 'eu-west-1',
    service: 'sqs',
    sha256: Sha256 as ConstructorParameters<typeof SignatureV4>[0]['sha256'],
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: host.split(':')[0] as string,
      port: host.includes(':') ? Number(host.split(':')[1]) : undefined,
      path: '/',
      query: {},
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        host,
        'x-amz-target': 'AmazonSQS.SendMessageBatch',
      },
      body,
    },
    { signingDate: now },
  );
  return signed.headers.authorization;
}

describe('the SigV4 signature of a JSON POST', () => {
  const body = JSON.stringify({
    QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ingest',
    Entries: [{ Id: '0', MessageBody: '{"v":1,"payload":"w6k="}' }],
  });
  const now = new Date('2026-11-23T10:20:30.456Z');
  const request = {
    region: 'eu-west-1',
    service: 'sqs',
    target: 'AmazonSQS.SendMessageBatch',
    contentType: 'application/x-amz-json-1.0',
    body,
  };

  it('equals the SDK signer for long-term keys', async () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
    const ours = signJsonPost({ ...request, host: 'sqs.eu-west-1.amazonaws.com' }, credentials, now);
    expect(ours.authorization).toBe(await sdkAuthorization('sqs.eu-west-1.amazonaws.com', body, credentials, now));
    expect(ours['x-amz-date']).toBe('20261123T102030Z');
  });

  it('equals the SDK signer for session credentials and a host with a port', async () => {
    const credentials = {
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'another/secret+key',
      sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//token==',
    };
    const ours = signJsonPost({ ...request, host: '127.0.0.1:9324' }, credentials, now);
    expect(ours.authorization).toBe(await sdkAuthorization('127.0.0.1:9324', body, credentials, now));
    expect(ours['x-amz-security-token']).toBe(credentials.sessionToken);
  });

  it('changes with every byte of the body', () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
    const one = signJsonPost({ ...request, host: 'h' }, credentials, now);
    const other = signJsonPost({ ...request, host: 'h', body: `${body} ` }, credentials, now);
    expect(one.authorization).not.toBe(other.authorization);
  });
});
