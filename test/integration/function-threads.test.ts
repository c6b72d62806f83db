/**
 * Every queue consumer and schedule of the local runtime runs in a thread of its own, off the HTTP
 * front's event loop. A thread that dies is started again, and the records it held come back after
 * the visibility timeout, as when a Lambda invocation dies; a function that cannot load fails the
 * start. The threads here run a test consumer from the sources (the suite's build holds only the
 * service's own modules) against the shared SQS stand-in.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { queueDepth } from '../../local/event-source-poller.ts';
import type { HostedFunction } from '../../local/function-host.ts';
import { startFunctionThread } from '../../local/runtime.ts';
import { pollUntil } from '../support/poll.ts';

const runtimeEnv = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: runtimeEnv.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const directory = mkdtempSync(path.join(os.tmpdir(), 'function-threads-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The thread's environment: the sources (not the suite's build), the shared stand-ins, a log of its own. */
function threadEnv(log: string): NodeJS.ProcessEnv {
  const { TRIBUTARY_LOCAL_BUILD: _build, ...env } = process.env;
  return { ...env, ...runtimeEnv, CRASHING_CONSUMER_LOG: log };
}

async function queue(visibilityTimeoutSeconds: number) {
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: `threads-${randomUUID().slice(0, 8)}`,
      Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) },
    }),
  );
  const url = created.QueueUrl as string;
  const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: arn.Attributes?.QueueArn as string };
}

function consumer(entry: string, url: string, arn: string): HostedFunction {
  return {
    kind: 'consumer',
    name: 'test-consumer',
    entry,
    queueUrl: url,
    queueArn: arn,
    batchSize: 1,
    batchingWindowSeconds: 0,
    timeoutSeconds: 30,
    concurrency: 1,
  };
}

const handled = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).sort() : []);

describe('the local runtime runs each function in a thread of its own', () => {
  it('starts a thread that died again, and the record it held is handled after the visibility timeout', async () => {
    const { url, arn } = await queue(1);
    const log = path.join(directory, 'handled');
    const lines: string[] = [];
    const running = await startFunctionThread(consumer('test/support/crashing-consumer.ts', url, arn), {
      env: threadEnv(log),
      log: (line) => lines.push(line),
    });
    try {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: ['before', 'crash-1', 'after'].map((body, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
      const seen = await pollUntil(
        async () => ({ handled: handled(log), queued: await queueDepth(sqs, url) }),
        (state) => state.handled.length === 3 && state.queued === 0,
        { what: 'every record handled once the thread came back', timeoutMs: 60_000 },
      );
      expect(seen).toEqual({ handled: ['after', 'before', 'crash-1'], queued: 0 });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^function test-consumer ended unexpectedly \(Error: the consumer failed[\s\S]*\); starting it again in 1 s; the records it held come back after the visibility timeout$/,
      );
    } finally {
      await running.stop();
    }
  });

  it('stops a thread for good: nothing is handled after its stop', async () => {
    const { url, arn } = await queue(1);
    const log = path.join(directory, 'stopped');
    const running = await startFunctionThread(consumer('test/support/crashing-consumer.ts', url, arn), {
      env: threadEnv(log),
    });
    await running.stop();
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: '0', MessageBody: 'late' }] }));
    // The queue keeps the record: had any thread still polled, it would have taken it within its long poll.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect({ handled: handled(log), queued: await queueDepth(sqs, url) }).toEqual({ handled: [], queued: 1 });
  });

  it('fails the start when a function cannot load', async () => {
    const { url, arn } = await queue(1);
    await expect(
      startFunctionThread(consumer('test/support/broken-consumer.ts', url, arn), {
        env: threadEnv(path.join(directory, 'broken')),
      }),
    ).rejects.toThrow(/^The test-consumer function could not start: Error: this module cannot load/);
  });
});
