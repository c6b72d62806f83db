/**
 * List cursors are the service's own: a cursor it did not issue, for this very list, is a 400 before
 * DynamoDB sees anything of it. The table's client is watched, not stubbed with answers: no call may
 * be made for a refused cursor.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openCursor, sealCursor } from '#shared/adapters/dynamo/cursors.ts';
import { asStored } from '#shared/adapters/dynamo/stored-items.ts';
import { db, queryPage } from '#shared/adapters/dynamo/table.ts';
import { DomainError } from '#shared/domain/errors.ts';

const saved = { ...process.env };
beforeAll(() => {
  process.env.SECRETS_KEY = randomBytes(32).toString('base64url');
  process.env.TABLE_NAME = 'tributary';
});
afterAll(() => {
  process.env = saved;
});
afterEach(() => {
  vi.restoreAllMocks();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  return { code: (error as DomainError).code, details: (error as DomainError).details };
}

describe('list cursors', () => {
  it('open to the position they were sealed with, for the list they were sealed for', async () => {
    const position = { pk: 'TENANT#1', sk: 'USER#2', gsi1pk: 'TENANTS', gsi1sk: '€ 😀' };
    expect(await openCursor('gsi1|TENANTS', await sealCursor('gsi1|TENANTS', position))).toEqual(position);
    expect(await openCursor('rejections|s', await sealCursor('rejections|s', 41))).toBe(41);
  });

  it('refuse a cursor of another list, and any cursor altered, truncated or made up', async () => {
    const real = await sealCursor('gsi1|TENANT#a', { pk: 'P', sk: 'S', gsi1pk: 'TENANT#a', gsi1sk: 'X' });
    const [payload, tag] = real.split('.') as [string, string];
    const forged = [
      await sealCursor('gsi1|TENANT#b', { pk: 'P', sk: 'S', gsi1pk: 'TENANT#a', gsi1sk: 'X' }),
      `${b64({ pk: '', sk: '', gsi1pk: 'TENANT#a', gsi1sk: '' })}.${tag}`,
      `${payload}.${tag.slice(0, -2)}`,
      `${payload.slice(0, -1)}A.${tag}`,
      payload,
      `${payload}.${tag}.${tag}`,
      b64({ pk: 'P', sk: 'S', gsi1pk: 'TENANT#a', gsi1sk: 'X' }),
      '.',
      'A'.repeat(4096),
    ];
    for (const cursor of forged) {
      expect(await refusal(openCursor('gsi1|TENANT#a', cursor))).toEqual({
        code: 'VALIDATION_ERROR',
        details: [{ path: 'cursor', message: 'Not a cursor returned by this list' }],
      });
    }
  });

  it('keep crafted cursors away from DynamoDB, and continue a list from a cursor it issued', async () => {
    const send = vi.spyOn(db, 'send');
    const crafted = b64({ pk: '', sk: '', gsi1pk: 'TENANTS', gsi1sk: '' });
    expect(
      (await refusal(queryPage({ index: 'gsi1', partition: 'TENANTS' }, { limit: 10, cursor: crafted }, asStored)))
        .code,
    ).toBe('VALIDATION_ERROR');
    expect(send).not.toHaveBeenCalled();

    send.mockResolvedValueOnce({ Items: [] } as never);
    const position = { pk: 'TENANT#1', sk: 'TENANT', gsi1pk: 'TENANTS', gsi1sk: 'acme' };
    await queryPage(
      { index: 'gsi1', partition: 'TENANTS' },
      { limit: 10, cursor: await sealCursor('gsi1|TENANTS', position) },
      asStored,
    );
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]?.[0]).toMatchObject({ input: { ExclusiveStartKey: position } });
  });
});
