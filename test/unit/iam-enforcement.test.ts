/**
 * Local IAM where the calls are made: requests written to a connection to a local AWS endpoint are
 * held to the caller's role before they leave. Here the endpoint is a real HTTP server on the
 * loopback that records what reaches it, the callers the AWS SDK's SQS and S3 clients (whose errors
 * say how the SDK reads the answer) and a raw connection writing a chunked request; the decisions
 * come from the policy evaluator on a role written out here.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enforceIam } from '../../local/iam/enforcement.ts';
import type { Denial } from '../../local/iam/policy-evaluator.ts';

const role = 'arn:aws:iam::000000000000:role/writer';
const received: string[] = [];
const denials: Denial[] = [];

/** A real HTTP endpoint on the loopback that records every request reaching it. */
async function recordingEndpoint(answer: (body: string) => string) {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(`${request.method} ${request.url} ${body}`);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(answer(body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let endpoint = '';
let s3Endpoint = '';
const servers: { close(): void }[] = [];

beforeAll(async () => {
  // SQS's answer to SendMessage, with the body's MD5 the SDK checks.
  const queues = await recordingEndpoint((body) =>
    JSON.stringify({
      MessageId: 'm-1',
      MD5OfMessageBody: createHash('md5')
        .update((JSON.parse(body) as { MessageBody: string }).MessageBody)
        .digest('hex'),
    }),
  );
  const buckets = await recordingEndpoint(() => '');
  servers.push(queues.server, buckets.server);
  endpoint = queues.url;
  s3Endpoint = buckets.url;
  enforceIam(
    {
      addresses: { [endpoint]: 'sqs', [s3Endpoint]: 's3' },
      identities: { LOCALwriter: { functionName: 'writer', roleArn: role } },
      rolePolicies: {
        [role]: [
          {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:us-east-1:000000000000:ingest' },
              { Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::lake/tables/*' },
              { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::lake' },
            ],
          },
        ],
      },
      resourcePolicies: {},
      roles: {},
      partitionKey: 'pk',
      secretArns: [],
    },
    (denial) => denials.push(denial),
  );
});
afterAll(() => {
  for (const server of servers) server.close();
});

const sqs = (accessKeyId: string) =>
  new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId, secretAccessKey: 'local' } });
const send = (client: SQSClient, queue: string) =>
  client.send(new SendMessageCommand({ QueueUrl: `${endpoint}/000000000000/${queue}`, MessageBody: 'hello' }));

/** An S3 client of the writer's role, to the checking front. */
const writerS3 = () =>
  new S3Client({
    endpoint: s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'LOCALwriter', secretAccessKey: 'local' },
  });

describe('IAM held where a function calls', () => {
  it('lets an allowed call out as it was written, and answers a denied one as SQS does without sending it', async () => {
    const client = sqs('LOCALwriter');
    received.length = 0;
    denials.length = 0;

    expect((await send(client, 'ingest')).MessageId).toBe('m-1');
    const denied = await send(client, 'jobs').catch(
      (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
    );
    // Again on the same kept-alive connection: the denied request left nothing half-sent on it.
    expect((await send(client, 'ingest')).MessageId).toBe('m-1');

    expect(denied).toMatchObject({
      name: 'AccessDenied',
      message:
        'User: arn:aws:sts::000000000000:assumed-role/writer/writer is not authorized to perform: sqs:SendMessage on resource: arn:aws:sqs:us-east-1:000000000000:jobs because no identity-based policy allows the sqs:SendMessage action',
      $metadata: { httpStatusCode: 400 },
    });
    expect(received.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(['POST /', 'POST /']);
    expect(received.every((line) => line.includes('"QueueUrl":"') && line.includes('/ingest"'))).toBe(true);
    expect(denials).toEqual([
      {
        functionName: 'writer',
        roleArn: role,
        action: 'sqs:SendMessage',
        resource: 'arn:aws:sqs:us-east-1:000000000000:jobs',
        reason: 'because no identity-based policy allows the sqs:SendMessage action',
      },
    ]);
    client.destroy();
  });

  it('lets calls signed with any other key, or none, pass untouched', async () => {
    const client = sqs('S3RVER');
    received.length = 0;
    expect((await send(client, 'jobs')).MessageId).toBe('m-1');
    expect(received).toHaveLength(1);
    client.destroy();
  });

  it('reads a chunked request written piece by piece to a raw connection, and decides on its whole body', async () => {
    received.length = 0;
    denials.length = 0;
    const { port } = new URL(endpoint);
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
    const body = JSON.stringify({ QueueUrl: `${endpoint}/000000000000/jobs`, MessageBody: 'x' });
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
        if (text.includes('}')) resolve(text);
      });
    });
    socket.write(
      'POST / HTTP/1.1\r\nhost: local\r\ntransfer-encoding: chunked\r\nx-amz-target: AmazonSQS.SendMessage\r\n' +
        'authorization: AWS4-HMAC-SHA256 Credential=LOCALwriter/20261127/us-east-1/sqs/aws4_request, Signature=x\r\n\r\n',
    );
    socket.write(`${(10).toString(16)}\r\n${body.slice(0, 10)}\r\n`);
    socket.write(`${Buffer.byteLength(body.slice(10)).toString(16)}\r\n${body.slice(10)}\r\n0\r\n\r\n`);
    const text = await answer;
    socket.destroy();
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(text).toContain('"__type":"com.amazon.coral.service#AccessDeniedException"');
    expect(received).toEqual([]);
    expect(denials.map((denial) => denial.resource)).toEqual(['arn:aws:sqs:us-east-1:000000000000:jobs']);
  });

  it('decides an S3 call from its head: an allowed one sends its body, a denied one gets 403 AccessDenied and sends none', async () => {
    received.length = 0;
    const s3 = writerS3();
    const put = (key: string) => s3.send(new PutObjectCommand({ Bucket: 'lake', Key: key, Body: 'x'.repeat(2048) }));
    await put('tables/a.parquet');
    const refused = await put('other/a.parquet').catch(
      (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
    );
    expect(refused).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(received).toEqual([`PUT /lake/tables/a.parquet?x-id=PutObject ${'x'.repeat(2048)}`]);
    s3.destroy();
  });

  it('sends a request without a body (HEAD) once its first decision is made, and again from the kept one', async () => {
    received.length = 0;
    const s3 = writerS3();
    for (let call = 0; call < 2; call++) {
      const answer = await s3.send(new HeadBucketCommand({ Bucket: 'lake' }), {
        abortSignal: AbortSignal.timeout(10_000),
      });
      expect(answer.$metadata.httpStatusCode).toBe(200);
    }
    expect(received).toEqual(['HEAD /lake/ ', 'HEAD /lake/ ']);
    s3.destroy();
  });
});
