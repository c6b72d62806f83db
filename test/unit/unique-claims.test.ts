/**
 * A unique claim (a tenant's slug, a user's email) is answered "taken" only when DynamoDB cancelled its
 * transaction for the claim's condition. A cancellation for TransactionConflict (another transaction
 * held the item at that moment: nobody may have won) is tried again. The answers are DynamoDB's
 * documented shape: TransactionCanceledException with one CancellationReason per item.
 */
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { besideTransactions, putWithUniqueClaim, transactionHeld } from '#shared/adapters/dynamo/table.ts';

const noPause = async () => undefined;

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

/** A transaction endpoint that gives each attempt the next answer (an error to throw, or success). */
function answering(answers: (Error | 'ok')[]) {
  let attempts = 0;
  const send = async () => {
    const answer = answers[attempts++] ?? 'ok';
    if (answer !== 'ok') throw answer;
  };
  return { send, attempts: () => attempts };
}

const claim = { pk: 'EMAIL#ada@example.com', sk: 'CLAIM' };
const item = { pk: 'USER#u1', sk: 'USER' };

describe('putWithUniqueClaim', () => {
  beforeAll(() => {
    process.env.TABLE_NAME ??= 'tributary-test';
  });

  it('answers written on success', async () => {
    const dynamo = answering(['ok']);
    expect(await putWithUniqueClaim(claim, item, dynamo.send, noPause)).toBe(true);
    expect(dynamo.attempts()).toBe(1);
  });

  it("answers taken, at once, when the claim's condition failed", async () => {
    const dynamo = answering([cancelled('ConditionalCheckFailed', 'None')]);
    expect(await putWithUniqueClaim(claim, item, dynamo.send, noPause)).toBe(false);
    expect(dynamo.attempts()).toBe(1);
  });

  it('tries again after a conflict with another transaction, and then wins', async () => {
    const dynamo = answering([
      cancelled('TransactionConflict', 'None'),
      cancelled('None', 'TransactionConflict'),
      'ok',
    ]);
    expect(await putWithUniqueClaim(claim, item, dynamo.send, noPause)).toBe(true);
    expect(dynamo.attempts()).toBe(3);
  });

  it('answers taken when the retry finds the claim held by the transaction it conflicted with', async () => {
    const dynamo = answering([cancelled('TransactionConflict', 'None'), cancelled('ConditionalCheckFailed', 'None')]);
    expect(await putWithUniqueClaim(claim, item, dynamo.send, noPause)).toBe(false);
    expect(dynamo.attempts()).toBe(2);
  });

  it('fails, rather than answering taken, when conflicts outlast its attempts or the cause is another', async () => {
    const conflicts = answering(Array.from({ length: 10 }, () => cancelled('TransactionConflict', 'None')));
    await expect(putWithUniqueClaim(claim, item, conflicts.send, noPause)).rejects.toThrow(
      TransactionCanceledException,
    );
    expect(conflicts.attempts()).toBe(6);
    const throttled = answering([cancelled('ThrottlingError', 'None')]);
    await expect(putWithUniqueClaim(claim, item, throttled.send, noPause)).rejects.toThrow(/ThrottlingError/);
    expect(throttled.attempts()).toBe(1);
  });
});

describe('transactionHeld (a count made once, a store path claimed)', () => {
  const command = new TransactWriteCommand({ TransactItems: [] });
  const outcome = async (answers: (Error | 'ok')[]) => {
    const dynamo = answering(answers);
    const answer = await transactionHeld(command, dynamo.send, noPause).then(String, (thrown: Error) => thrown.name);
    return { answer, attempts: dynamo.attempts() };
  };

  it('answers not written only for a condition, tries a conflict again, and throws anything else', async () => {
    expect({
      written: await outcome(['ok']),
      condition: await outcome([cancelled('None', 'ConditionalCheckFailed')]),
      conflictThenWritten: await outcome([cancelled('TransactionConflict', 'None'), 'ok']),
      conflictThenCondition: await outcome([cancelled('TransactionConflict'), cancelled('ConditionalCheckFailed')]),
      conflictEveryTime: await outcome(Array.from({ length: 6 }, () => cancelled('TransactionConflict'))),
      throttled: await outcome([cancelled('ThrottlingError')]),
    }).toEqual({
      written: { answer: 'true', attempts: 1 },
      condition: { answer: 'false', attempts: 1 },
      conflictThenWritten: { answer: 'true', attempts: 2 },
      conflictThenCondition: { answer: 'false', attempts: 2 },
      conflictEveryTime: { answer: 'TransactionCanceledException', attempts: 6 },
      throttled: { answer: 'TransactionCanceledException', attempts: 1 },
    });
  });
});

describe('besideTransactions (a plain write of an item that transactions also write: a store’s)', () => {
  const inTransaction = () =>
    new TransactionConflictException({
      message: 'Transaction is ongoing for the item',
      $metadata: { httpStatusCode: 400 },
    });
  const outcome = async (answers: (Error | 'ok')[]) => {
    const dynamo = answering(answers);
    const answer = await besideTransactions(dynamo.send, noPause).then(
      () => 'written',
      (thrown: Error) => thrown.name,
    );
    return { answer, attempts: dynamo.attempts() };
  };

  it('waits out a transaction holding the item, and throws anything else at once', async () => {
    const refused = Object.assign(new Error('The conditional request failed'), {
      name: 'ConditionalCheckFailedException',
    });
    expect({
      written: await outcome(['ok']),
      afterTwoTransactions: await outcome([inTransaction(), inTransaction(), 'ok']),
      transactionsEveryTime: await outcome(Array.from({ length: 10 }, inTransaction)),
      condition: await outcome([refused]),
    }).toEqual({
      written: { answer: 'written', attempts: 1 },
      afterTwoTransactions: { answer: 'written', attempts: 3 },
      transactionsEveryTime: { answer: 'TransactionConflictException', attempts: 6 },
      condition: { answer: 'ConditionalCheckFailedException', attempts: 1 },
    });
  });
});
