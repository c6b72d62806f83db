/**
 * Every queue consumer and schedule of the local runtime runs in a thread of its own, off the HTTP
 * front's event loop. A thread that dies is started again, and the records it held come back after
 * the visibility timeout, as when a Lambda invocation dies; a function that cannot load fails the
 * start. The threads here run a test consumer, bundled into an asset folder of its own as a deploy
 * bundles a function, against the shared SQS stand-in.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { esbuildSettings } from '#lib/bundling.ts';
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

/** The function's environment: a log of its own. */
const functionEnv = (log: string) => ({
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT_URL_SQS: runtimeEnv.AWS_ENDPOINT_URL_SQS as string,
  CRASHING_CONSUMER_LOG: log,
});

/** A test module bundled as a deploy bundles a function, into an asset folder of its own. */
async function assetOf(entry: string): Promise<string> {
  const folder = mkdtempSync(path.join(directory, 'asset-'));
  await esbuild.build({
    ...esbuildSettings,
    entryPoints: [path.resolve(import.meta.dirname, '..', '..', entry)],
    outfile: path.join(folder, 'index.js'),
    logLevel: 'error',
  });
  return folder;
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

async function consumer(
  entry: string,
  url: string,
  arn: string,
  log: string,
  settings: { timeoutSeconds?: number; env?: Record<string, string> } = {},
): Promise<HostedFunction> {
  return {
    kind: 'consumer',
    fn: {
      id: 'test/consumer',
      name: 'test-consumer',
      arn: 'arn:aws:lambda:us-east-1:000000000000:function:test-consumer',
      description: 'a test consumer',
      runtime: 'nodejs22.x',
      handler: 'index.handler',
      assetDirectory: await assetOf(entry),
      environment: {},
      memoryMb: 128,
      timeoutSeconds: settings.timeoutSeconds ?? 30,
      reservedConcurrency: null,
      logFormat: 'JSON',
      roleArn: null,
      declared: null,
    },
    env: { ...functionEnv(log), ...settings.env },
    // No identities: the test consumer's calls are not held to a role.
    iam: {
      addresses: {},
      identities: {},
      rolePolicies: {},
      resourcePolicies: {},
      roles: {},
      partitionKey: 'pk',
      secretArns: [],
    },
    queueUrl: url,
    queueArn: arn,
    batchSize: 1,
    batchingWindowSeconds: 0,
    concurrency: 1,
  };
}

const handled = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).sort() : []);

describe('the local runtime runs each function in a thread of its own', () => {
  it('starts a thread that died again, and the record it held is handled after the visibility timeout', async () => {
    const { url, arn } = await queue(1);
    const log = path.join(directory, 'handled');
    const lines: string[] = [];
    const running = await startFunctionThread(await consumer('test/support/crashing-consumer.ts', url, arn, log), {
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

  it('stops an invocation at its timeout as Lambda does: its batch comes back, and what it would still have done never happens', async () => {
    const { url, arn } = await queue(2);
    const echo = await queue(30);
    const log = path.join(directory, 'slow');
    const lines: string[] = [];
    const running = await startFunctionThread(
      await consumer('test/support/slow-consumer.ts', url, arn, log, {
        timeoutSeconds: 1,
        env: {
          SLOW_CONSUMER_LOG: log,
          ECHO_QUEUE_URL: echo.url,
          AWS_ENDPOINT_URL_SQS: runtimeEnv.AWS_ENDPOINT_URL_SQS as string,
        },
      }),
      { log: (line) => lines.push(line) },
    );
    try {
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: '0', MessageBody: 'slow-1' }] }));
      // Handled once, by its second delivery; the first one's echo, due a second after its
      // timeout, was never sent.
      const seen = await pollUntil(
        async () => ({
          handled: handled(log),
          queued: await queueDepth(sqs, url),
          echoed: await queueDepth(sqs, echo.url),
        }),
        (state) => state.handled.length === 1 && state.queued === 0,
        { what: 'the record handled after its timed-out delivery', timeoutMs: 60_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect({ ...seen, echoed: await queueDepth(sqs, echo.url) }).toEqual({
        handled: ['slow-1'],
        queued: 0,
        echoed: 1,
      });
      expect(lines).toEqual([expect.stringMatching(/^function test-consumer: Task timed out after 1\.00 seconds/)]);
    } finally {
      await running.stop();
    }
  });

  it('stops a thread for good: nothing is handled after its stop', async () => {
    const { url, arn } = await queue(1);
    const log = path.join(directory, 'stopped');
    const running = await startFunctionThread(await consumer('test/support/crashing-consumer.ts', url, arn, log));
    await running.stop();
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: '0', MessageBody: 'late' }] }));
    // The queue keeps the record: had any thread still polled, it would have taken it within its long poll.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect({ handled: handled(log), queued: await queueDepth(sqs, url) }).toEqual({ handled: [], queued: 1 });
  });

  it("hands on everything a schedule logged in its run at a stop, held to the stop run's own time limit, before the thread ends", async () => {
    const { url, arn } = await queue(30);
    // A function of 1 s whose run at a stop may take 30 (the table-commits schedule's commit of everything).
    const base = await consumer('test/support/logging-schedule.ts', url, arn, path.join(directory, 'logging'), {
      timeoutSeconds: 1,
    });
    // What the function's thread writes reaches this process's output, as a function's logs reach CloudWatch.
    const written: string[] = [];
    const output = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write);
    try {
      const running = await startFunctionThread({
        kind: 'schedule',
        fn: base.fn,
        env: base.env,
        iam: base.iam,
        intervalSeconds: 3600,
        runsAtStop: { timeoutSeconds: 30 },
      });
      // A graceful stop: the schedule runs once more, and the thread ends right after.
      await running.stop({ final: true });
    } finally {
      output.mockRestore();
    }
    const text = written.join('');
    expect(text.match(/time limit (\d+) s/)?.[1]).toBe('30');
    expect(text.match(/filler \d+ x+/g)).toHaveLength(200);
    expect(text).toContain('last line of the run');
  });

  it('fails the start when a function cannot load', async () => {
    const { url, arn } = await queue(1);
    await expect(
      startFunctionThread(await consumer('test/support/broken-consumer.ts', url, arn, path.join(directory, 'broken'))),
    ).rejects.toThrow(/^The test-consumer function could not start: Error: this module cannot load/);
  });
});
