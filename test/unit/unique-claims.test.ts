/**
 * A unique claim (a tenant's slug, a user's email) is answered "taken" only when DynamoDB cancelled its
 * transaction for the claim's condition. A cancellation for TransactionConflict (another transaction
 * held the item at that moment: nobody may have won) is tried again. The answers are DynamoDB's
 * documented shape: TransactionCanceledException with one CancellationReason per item.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { putWithUniqueClaim } from '#shared/adapters/dynamo/table.ts';

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
