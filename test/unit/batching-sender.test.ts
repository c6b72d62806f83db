import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { BatchingSender } from '#shared/adapters/sqs/batching-sender.ts';

interface Call {
  entries: { Id: string; MessageBody: string }[];
  release: () => void;
}

/** A stand-in SQS client whose calls complete only when the test says so. */
function fakeSqs(options: { fail?: (body: string) => boolean; throwOnCall?: number } = {}) {
  const calls: Call[] = [];
  const client = {
    send: (command: { input: { Entries: { Id: string; MessageBody: string }[] } }) =>
      new Promise((resolve, reject) => {
        const entries = command.input.Entries;
        const index = calls.length;
        calls.push({
          entries,
          release: () => {
            if (options.throwOnCall === index) return reject(new Error('network down'));
            const failed = entries.filter((entry) => options.fail?.(entry.MessageBody));
            resolve({
              Successful: entries.filter((entry) => !failed.includes(entry)).map((entry) => ({ Id: entry.Id })),
              Failed: failed.map((entry) => ({ Id: entry.Id, Code: 'InvalidMessageContents', SenderFault: true })),
            });
          },
        });
      }),
  };
  return { client: client as unknown as SQSClient, calls };
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
});
