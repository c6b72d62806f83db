/**
 * The S3 stand-in answers conditional writes as S3 does, through the AWS SDK against the running
 * stand-in: put-if-absent (`If-None-Match: *`), compare-and-swap (`If-Match`), the refusals S3 gives
 * for what it does not implement, and racing writers of one key, of which exactly one wins.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localS3 } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';

const bucket = 'demo-bucket';
let s3: S3Client;
beforeAll(() => {
  s3 = localS3();
});

const key = () => `conditional/${randomUUID()}/_delta_log/00000000000000000001.json`;

async function read(objectKey: string): Promise<string> {
  const result = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey }));
  return (result.Body as { transformToString(): Promise<string> }).transformToString();
}

/** The S3 error a put answered (its code and status), or 'ok' with the new ETag. */
async function put(
  objectKey: string,
  body: string,
  condition: { IfNoneMatch?: string; IfMatch?: string },
): Promise<{ ok: true; etag: string } | { ok: false; code: string; status: number | undefined }> {
  try {
    const result = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey, Body: body, ...condition }));
    return { ok: true, etag: result.ETag ?? '' };
  } catch (error) {
    if (!(error instanceof S3ServiceException)) throw error;
    return { ok: false, code: error.name, status: error.$metadata.httpStatusCode };
  }
}

describe('conditional writes on the S3 stand-in', () => {
  it('If-None-Match: * writes a new key once; the second write is 412 and changes nothing', async () => {
    const objectKey = key();
    expect(await put(objectKey, 'first', { IfNoneMatch: '*' })).toMatchObject({ ok: true });
    expect(await put(objectKey, 'second', { IfNoneMatch: '*' })).toEqual({
      ok: false,
      code: 'PreconditionFailed',
      status: 412,
    });
    expect(await read(objectKey)).toBe('first');
  });

  it('answers a failed condition with S3 XML error body', async () => {
    const objectKey = key();
    await put(objectKey, 'first', {});
    const response = await fetch(`${inject('runtimeEnv').AWS_ENDPOINT_URL_S3}/${bucket}/${objectKey}`, {
      method: 'PUT',
      headers: { 'if-none-match': '*', 'content-type': 'application/json' },
      body: 'second',
    });
    const body = await response.text();
    expect(response.status).toBe(412);
    expect(response.headers.get('content-type')).toMatch(/application\/xml/);
    expect(body).toContain('<Code>PreconditionFailed</Code>');
    expect(body).toContain('<Condition>If-None-Match</Condition>');
  });

  it('If-Match writes over the object with that ETag only: a stale ETag is 412, a missing key 404', async () => {
    const objectKey = key();
    const first = await put(objectKey, 'first', {});
    if (!first.ok) throw new Error('the first put failed');
    const second = await put(objectKey, 'second', { IfMatch: first.etag });
    expect(second).toMatchObject({ ok: true });
    // The first ETag is stale now; S3 compares ETags with or without their quotes.
    expect(await put(objectKey, 'third', { IfMatch: first.etag })).toEqual({
      ok: false,
      code: 'PreconditionFailed',
      status: 412,
    });
    expect(await put(objectKey, 'third', { IfMatch: first.etag.replace(/"/g, '') })).toMatchObject({ ok: false });
    expect(await read(objectKey)).toBe('second');
    if (!second.ok) throw new Error('unreachable');
    expect(await put(objectKey, 'fourth', { IfMatch: second.etag.replace(/"/g, '') })).toMatchObject({ ok: true });
    expect(await read(objectKey)).toBe('fourth');
    expect(await put(key(), 'nothing there', { IfMatch: second.etag })).toEqual({
      ok: false,
      code: 'NoSuchKey',
      status: 404,
    });
  });

  it('refuses what S3 does not implement: If-None-Match with an ETag, or both headers', async () => {
    const objectKey = key();
    const first = await put(objectKey, 'first', {});
    if (!first.ok) throw new Error('the first put failed');
    expect(await put(objectKey, 'x', { IfNoneMatch: first.etag })).toEqual({
      ok: false,
      code: 'NotImplemented',
      status: 501,
    });
    expect(await put(objectKey, 'x', { IfNoneMatch: '*', IfMatch: first.etag })).toEqual({
      ok: false,
      code: 'NotImplemented',
      status: 501,
    });
    expect(await read(objectKey)).toBe('first');
  });

  it('of sixteen racing put-if-absent writes of one key, exactly one wins and its content stays', async () => {
    const objectKey = key();
    const bodies = Array.from({ length: 16 }, (_, i) => `writer ${i} ${'x'.repeat(1024 * 1024 + i * 4096)}`);
    const results = await Promise.all(bodies.map((body) => put(objectKey, body, { IfNoneMatch: '*' })));
    const winners = results.flatMap((result, i) => (result.ok ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const result of results.filter((result) => !result.ok))
      expect(['PreconditionFailed:412', 'ConditionalRequestConflict:409']).toContain(
        result.ok ? '' : `${result.code}:${result.status}`,
      );
    expect(await read(objectKey)).toBe(bodies[winners[0] as number]);
  });

  it('a write of the key that lands while a conditional upload is under way makes that upload 409', async () => {
    const objectKey = key();
    const url = new URL(`${inject('runtimeEnv').AWS_ENDPOINT_URL_S3}/${bucket}/${objectKey}`);
    // A slow conditional upload: its condition holds as it starts; its body ends after another write landed.
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const slow = request(
        url,
        { method: 'PUT', headers: { 'if-none-match': '*', 'transfer-encoding': 'chunked' } },
        (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      slow.on('error', reject);
      slow.write('the slow writer, part one; ');
      // The stand-in opens the upload's temporary file once its condition held and it watches the key.
      const objectDirectory = path.join(inject('runtimeEnv').DATA_DIR ?? '', 's3', bucket, path.dirname(objectKey));
      pollUntil(
        async () => existsSync(objectDirectory) && readdirSync(objectDirectory).some((name) => name.endsWith('.tmp')),
        (underWay) => underWay,
        { what: 'the slow upload under way in the stand-in', intervalMs: 20 },
      )
        .then(async () => {
          expect(await put(objectKey, 'the fast writer', {})).toMatchObject({ ok: true });
          slow.end('part two');
        })
        .catch(reject);
    });
    const { status, body } = await answer;
    expect(status).toBe(409);
    expect(body).toContain('<Code>ConditionalRequestConflict</Code>');
    expect(await read(objectKey)).toBe('the fast writer');
  });

  it('CompleteMultipartUpload honours If-None-Match: * as a single put does', async () => {
    const objectKey = key();
    const upload = async (content: string) => {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: objectKey }));
      const part = await s3.send(
        new UploadPartCommand({ Bucket: bucket, Key: objectKey, UploadId, PartNumber: 1, Body: content }),
      );
      return s3
        .send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: objectKey,
            UploadId,
            IfNoneMatch: '*',
            MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
          }),
        )
        .then(
          () => 'ok',
          (error: S3ServiceException) => `${error.name}:${error.$metadata.httpStatusCode}`,
        );
    };
    expect(await upload('first upload')).toBe('ok');
    expect(await upload('second upload')).toBe('PreconditionFailed:412');
    expect(await read(objectKey)).toBe('first upload');
  });
});
