import { describe, expect, it } from 'vitest';
import { BatchingSender, NotSent } from '#shared/adapters/sqs/batching-sender.ts';
import type { SendMessageBatchInput, SendMessageBatchOutput } from '#shared/adapters/sqs/json-client.ts';

interface Call {
  entries: { Id: string; MessageBody: string }[];
  /** When the call is to be given up, as the sender asked. */
  answerBy: number | undefined;
  release: () => void;
}

/** A stand-in SQS client whose calls complete only when the test says so. */
function fakeSqs(options: { fail?: (body: string) => boolean; throwOnCall?: number } = {}) {
  const calls: Call[] = [];
  const client = {
    sendBatch: (input: SendMessageBatchInput, answerBy?: number) =>
      new Promise<SendMessageBatchOutput>((resolve, reject) => {
        const entries = input.Entries;
        const index = calls.length;
        calls.push({
          entries,
          answerBy,
          release: () => {
            if (options.throwOnCall === index) return reject(new Error('network down'));
            const failed = entries.filter((entry) => options.fail?.(entry.MessageBody));
            resolve({
              Successful: entries
                .filter((entry) => !failed.includes(entry))
                .map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}` })),
              Failed: failed.map((entry) => ({ Id: entry.Id, Code: 'InvalidMessageContents', SenderFault: true })),
              $metadata: {},
            });
          },
        });
      }),
  };
  return { client, calls };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the batching SQS sender', () => {
  it('sends a message at once when nothing is in flight', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    const sent = sender.send('a');
    expect(calls.map((call) => call.entries.map((entry) => entry.MessageBody))).toEqual([['a']]);
    calls[0]?.release();
    await expect(sent).resolves.toBeUndefined();
  });

  it('groups messages that arrive while calls are in flight, ten at most per call', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    const first = sender.send('first');
    const waiting = Array.from({ length: 15 }, (_, i) => sender.send(`m${i}`));
    calls[0]?.release();
    await first;
    await settle();
    expect(calls[1]?.entries).toHaveLength(10);
    calls[1]?.release();
    await settle();
    expect(calls[2]?.entries).toHaveLength(5);
    calls[2]?.release();
    await expect(Promise.all(waiting)).resolves.toHaveLength(15);
  });

  it('rejects only the caller whose entry SQS refused', async () => {
    const { client, calls } = fakeSqs({ fail: (body) => body === 'bad' });
    const sender = new BatchingSender(client, () => 'queue', 1);
    const blocker = sender.send('blocker');
    const good = sender.send('good');
    const bad = sender.send('bad');
    calls[0]?.release();
    await blocker;
    await settle();
    calls[1]?.release();
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow(/InvalidMessageContents/);
  });

  it('rejects every caller of a call that failed as a whole, and keeps serving after it', async () => {
    const { client, calls } = fakeSqs({ throwOnCall: 0 });
    const sender = new BatchingSender(client, () => 'queue', 1);
    const lost = sender.send('a');
    calls[0]?.release();
    await expect(lost).rejects.toThrow('network down');
    const next = sender.send('b');
    calls[1]?.release();
    await expect(next).resolves.toBeUndefined();
  });

  it('keeps each call under 256 KiB', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    const blocker = sender.send('x');
    const big = Array.from({ length: 3 }, () => sender.send('y'.repeat(100 * 1024)));
    calls[0]?.release();
    await blocker;
    await settle();
    expect(calls[1]?.entries).toHaveLength(2);
    calls[1]?.release();
    await settle();
    calls[2]?.release();
    await Promise.all(big);
    expect(calls.map((call) => call.entries.length)).toEqual([1, 2, 1]);
  });

  it('drops a message still waiting for a call at its deadline: it is never sent', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    const first = sender.send('first', Date.now() + 60_000);
    const late = sender.send('late', Date.now() + 50);
    await expect(late).rejects.toBeInstanceOf(NotSent);
    calls[0]?.release();
    await first;
    await settle();
    expect(calls.map((call) => call.entries.map((entry) => entry.MessageBody))).toEqual([['first']]);
  });

  it('settles a message already in a call by its answer, even past its deadline', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    const sent = sender.send('slow', Date.now() + 20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    calls[0]?.release();
    await expect(sent).resolves.toBeUndefined();
  });

  it('gives a call up at the earliest time its messages must be answered by, and no deadline without one', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    const now = Date.now();
    const first = sender.send('first', now + 60_000, now + 60_500);
    // These two wait for the first call, and go together in the next.
    const later = sender.send('later', now + 60_000, now + 90_000);
    const sooner = sender.send('sooner', now + 60_000, now + 70_000);
    calls[0]?.release();
    await first;
    await settle();
    calls[1]?.release();
    await Promise.all([later, sooner]);
    const unbounded = sender.send('redriven');
    await settle();
    calls[2]?.release();
    await unbounded;
    expect(
      calls.map((call) => ({ bodies: call.entries.map((entry) => entry.MessageBody), answerBy: call.answerBy })),
    ).toEqual([
      { bodies: ['first'], answerBy: now + 60_500 },
      { bodies: ['later', 'sooner'], answerBy: now + 70_000 },
      { bodies: ['redriven'], answerBy: Number.POSITIVE_INFINITY },
    ]);
  });

  it('refuses at once a message whose deadline has passed', async () => {
    const { client, calls } = fakeSqs();
    const sender = new BatchingSender(client, () => 'queue', 1);
    await expect(sender.send('too late', Date.now() - 1)).rejects.toBeInstanceOf(NotSent);
    expect(calls).toEqual([]);
  });
});
