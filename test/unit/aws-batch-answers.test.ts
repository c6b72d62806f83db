/**
 * AWS batch APIs answer partial failures as success: S3's DeleteObjects with 200 and per-key Errors,
 * DynamoDB's BatchWriteItem with UnprocessedItems. Each is handled in one place; these tests give
 * them the answers AWS gives (S3's XML through the real SDK client, DynamoDB's documented shape).
 */
import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import type { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchWriteAll, type WriteRequest } from '#shared/adapters/dynamo/table.ts';
import { deleteObjects, ObjectsNotDeleted } from '#shared/adapters/s3/delete-objects.ts';
import { storeFailureOf } from '#shared/adapters/s3/store-failure-codes.ts';

const noPause = async () => undefined;

/** An S3 client whose every DeleteObjects gets the next of `answers` (S3's XML), recording the keys asked. */
function s3Answering(answers: ((keys: string[]) => string)[]) {
  const asked: string[][] = [];
  const client = new S3Client({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: {
      async handle(request: { body?: unknown }) {
        const keys = [...String(request.body).matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1] as string);
        asked.push(keys);
        const xml = (answers.shift() ?? (() => '<DeleteResult/>'))(keys);
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/xml' },
            body: Readable.from([Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>${xml}`)]),
          },
        };
      },
    } as never,
  });
  return { client, asked };
}

const failing = (code: string, which: (keys: string[]) => string[]) => (keys: string[]) =>
  `<DeleteResult>${which(keys)
    .map((key) => `<Error><Key>${key}</Key><Code>${code}</Code><Message>We encountered an error</Message></Error>`)
    .join('')}</DeleteResult>`;

describe("S3's DeleteObjects", () => {
  it('retries the keys S3 throttled, until every one is gone', async () => {
    const { client, asked } = s3Answering([failing('SlowDown', (keys) => keys.slice(1, 3))]);
    await deleteObjects(client, 'lake', ['a', 'b', 'c', 'd'], noPause);
    expect(asked).toEqual([
      ['a', 'b', 'c', 'd'],
      ['b', 'c'],
    ]);
  });

  it('fails when S3 refused a key, with S3’s code, which a tenant sees as its store failure', async () => {
    const { client } = s3Answering([failing('AccessDenied', (keys) => [keys[2] as string])]);
    const error = await deleteObjects(client, 'lake', ['a', 'b', 'c'], noPause).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(ObjectsNotDeleted);
    expect({ name: (error as ObjectsNotDeleted).name, keys: (error as ObjectsNotDeleted).keys }).toEqual({
      name: 'AccessDenied',
      keys: ['c'],
    });
    expect(storeFailureOf(error)).toMatchObject({ category: 'ACCESS_DENIED', s3Code: 'AccessDenied' });
  });

  it('fails when throttling does not end', async () => {
    const always = Array.from({ length: 10 }, () => failing('SlowDown', (keys) => keys));
    const { client, asked } = s3Answering(always);
    await expect(deleteObjects(client, 'lake', ['a'], noPause)).rejects.toThrow(/1 object\(s\) were not deleted/);
    expect(asked.length).toBe(4);
  });

  it('sends 1,000 keys per call', async () => {
    const { client, asked } = s3Answering([]);
    await deleteObjects(
      client,
      'lake',
      Array.from({ length: 2001 }, (_, i) => `k${i}`),
      noPause,
    );
    expect(asked.map((keys) => keys.length)).toEqual([1000, 1000, 1]);
  });
});

describe("DynamoDB's BatchWriteItem", () => {
  beforeAll(() => {
    process.env.TABLE_NAME ??= 'tributary-test';
  });

  /** DynamoDB as documented: a batch naming one key twice is a ValidationException; `unprocess` picks what comes back. */
  function dynamo(unprocess: (batch: WriteRequest[], call: number) => WriteRequest[]) {
    const written = new Map<string, unknown>();
    const batches: number[] = [];
    const send = async (command: BatchWriteCommand) => {
      const [tableName, requests] = Object.entries(command.input.RequestItems ?? {})[0] ?? [];
      const batch = requests as WriteRequest[];
      const keys = batch.map((request) =>
        JSON.stringify(
          'PutRequest' in request
            ? [request.PutRequest.Item.pk, request.PutRequest.Item.sk]
            : [request.DeleteRequest.Key.pk, request.DeleteRequest.Key.sk],
        ),
      );
      if (new Set(keys).size !== keys.length || batch.length > 25) {
        throw Object.assign(new Error('Provided list of item keys contains duplicates'), {
          name: 'ValidationException',
        });
      }
      batches.push(batch.length);
      const left = unprocess(batch, batches.length);
      for (const request of batch) {
        if (left.includes(request) || !('PutRequest' in request)) continue;
        written.set(`${request.PutRequest.Item.pk}/${request.PutRequest.Item.sk}`, request.PutRequest.Item.value);
      }
      return { UnprocessedItems: left.length > 0 ? { [tableName as string]: left } : {}, $metadata: {} };
    };
    return { send, written, batches };
  }

  const put = (pk: string, value: number): WriteRequest => ({ PutRequest: { Item: { pk, sk: 'LAST', value } } });

  it('sends the unprocessed items again until each is written', async () => {
    const db = dynamo((batch, call) => (call === 1 ? batch.slice(0, 2) : []));
    await batchWriteAll([put('a', 1), put('b', 2), put('c', 3)], db.send as never, noPause);
    expect([...db.written.entries()].sort()).toEqual([
      ['a/LAST', 1],
      ['b/LAST', 2],
      ['c/LAST', 3],
    ]);
    expect(db.batches).toEqual([3, 2]);
  });

  it('keeps the later of two writes of one key, instead of failing the whole batch', async () => {
    const db = dynamo(() => []);
    await batchWriteAll([put('m1', 1), put('m2', 1), put('m1', 2)], db.send as never, noPause);
    expect([...db.written.entries()].sort()).toEqual([
      ['m1/LAST', 2],
      ['m2/LAST', 1],
    ]);
  });

  it('fails, rather than reading as success, when items stay unprocessed', async () => {
    const db = dynamo((batch) => batch);
    await expect(batchWriteAll([put('a', 1)], db.send as never, noPause)).rejects.toThrow(/unprocessed/);
    expect(db.written.size).toBe(0);
  });

  it('sends 25 per call', async () => {
    const db = dynamo(() => []);
    await batchWriteAll(
      Array.from({ length: 60 }, (_, i) => put(`k${i}`, i)),
      db.send as never,
      noPause,
    );
    expect(db.batches).toEqual([25, 25, 10]);
  });
});
