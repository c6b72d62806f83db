/**
 * The ingest queue's own SQS client (shared/adapters/sqs/json-client.ts) against the SQS stand-in,
 * through a proxy that fails requests on demand: a batch sent is held by the queue, a call that
 * fails with a 5xx is tried again (three attempts in all), and a refusal is not.
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SqsJsonClient } from '#shared/adapters/sqs/json-client.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';

const runtimeEnv = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: runtimeEnv.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
let proxy: FaultProxy;
const saved = { ...process.env };

beforeAll(async () => {
  proxy = await startFaultProxy(runtimeEnv.AWS_ENDPOINT_URL_SQS as string);
  // The client reaches the queue at its URL's host (the proxy here), with credentials and region
  // from the environment, as on Lambda.
  delete process.env.AWS_ENDPOINT_URL_SQS;
  Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' });
});
afterAll(async () => {
  process.env = saved;
  await proxy.close();
});

/** A new queue, addressed through the proxy. */
async function queueBehindProxy(): Promise<{ direct: string; proxied: string }> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: `json-client-${randomUUID().slice(0, 8)}` }));
  const direct = created.QueueUrl as string;
  return { direct, proxied: `${proxy.url}${new URL(direct).pathname}` };
}

async function bodiesIn(queueUrl: string): Promise<string[]> {
  const received = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return (received.Messages ?? []).map((message) => message.Body ?? '').sort();
}

describe('the ingest queue client', () => {
  it('sends a batch the queue then holds, and answers each entry', async () => {
    const { direct, proxied } = await queueBehindProxy();
    const answer = await new SqsJsonClient().sendBatch({
      QueueUrl: proxied,
      Entries: [
        { Id: '0', MessageBody: '{"n":0}' },
        { Id: '1', MessageBody: '{"n":1,"text":"é ✓"}' },
      ],
    });
    expect({ ids: answer.Successful.map((entry) => entry.Id).sort(), failed: answer.Failed }).toEqual({
      ids: ['0', '1'],
      failed: [],
    });
    expect(await bodiesIn(direct)).toEqual(['{"n":0}', '{"n":1,"text":"é ✓"}']);
  });

  it('tries a call again after a 5xx, up to three attempts', async () => {
    const { direct, proxied } = await queueBehindProxy();
    let failures = 2;
    proxy.failWhen(() => failures-- > 0);
    const before = proxy.failed();
    await new SqsJsonClient().sendBatch({
      QueueUrl: proxied,
      Entries: [{ Id: '0', MessageBody: 'after two faults' }],
    });
    expect({ faults: proxy.failed() - before, held: await bodiesIn(direct) }).toEqual({
      faults: 2,
      held: ['after two faults'],
    });

    failures = 3;
    const again = proxy.failed();
    await expect(
      new SqsJsonClient().sendBatch({ QueueUrl: proxied, Entries: [{ Id: '0', MessageBody: 'never' }] }),
    ).rejects.toThrow(/^SQS answered 503/);
    expect({ faults: proxy.failed() - again, held: await bodiesIn(direct) }).toEqual({ faults: 3, held: [] });
    proxy.failWhen(null);
  });

  it('waits for a long poll as long as it asks SQS to wait, beyond the usual time for an answer', async () => {
    // An answer is waited for 3 s beyond the call's own wait: a 4 s poll of an empty queue is answered, not timed out.
    const { proxied } = await queueBehindProxy();
    const answer = await new SqsJsonClient().call<{ Messages?: unknown[] }>('ReceiveMessage', {
      QueueUrl: proxied,
      MaxNumberOfMessages: 1,
      WaitTimeSeconds: 4,
    });
    expect(answer.Messages ?? []).toEqual([]);
  });

  it('does not try a refusal again, and says what SQS said', async () => {
    const missing = `${proxy.url}/000000000000/no-such-queue-${randomUUID().slice(0, 8)}`;
    await expect(
      new SqsJsonClient().sendBatch({ QueueUrl: missing, Entries: [{ Id: '0', MessageBody: 'x' }] }),
    ).rejects.toThrow(/^SQS answered 400 QueueDoesNotExist/);
  });
});
