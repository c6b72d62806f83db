/**
 * Writes that bend under a slow dependency and never break: for two minutes every DynamoDB call of a
 * service answers past the SDK's 5 s request timeout (and, for the first of them, the platform bucket
 * answers 503), while webhooks keep coming. The writer cannot stage, the committer cannot commit; the
 * envelopes wait on the queue, each batch deferred longer at each receive, instead of spending their
 * five receives in seconds. Afterwards nothing is dead-lettered and every 202 is in the table once,
 * read back with DuckDB.
 */
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { queueDepth } from '../../local/event-source-poller.ts';
import { type ApiClient, apiClient } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { pollUntil } from '../support/poll.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const env = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: env.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const queueUrl = async (name: string) =>
  (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;

/** How long the dependencies stay slow: longer than five receives at the queue's own 4 s timeout. */
const slowMs = 120_000;
/** Past the SDK's request timeout (shared/adapters/aws-http.ts): every call times out, and is tried again. */
const lateByMs = 6_000;
const webhooks = 200;

describe('a slow table and a throttling bucket for two minutes', () => {
  let tableProxy: FaultProxy;
  let bucketProxy: FaultProxy;
  let runtime: RuntimeProcess;
  let api: ApiClient;
  let hook: Webhook;

  beforeAll(async () => {
    tableProxy = await startFaultProxy(env.AWS_ENDPOINT_URL_DYNAMODB as string);
    bucketProxy = await startFaultProxy(env.AWS_ENDPOINT_URL_S3 as string);
    runtime = await startRuntimeProcess(
      {
        ...env,
        AWS_ENDPOINT_URL_DYNAMODB: tableProxy.url,
        AWS_ENDPOINT_URL_S3: bucketProxy.url,
        LOCAL_QUEUE_PREFIX: 'bend-',
        TABLE_NAME: 'bend-tributary',
        // The same backoff as deployed, scaled down: 10, 20, 40, 80 s between the five receives.
        WRITER_BACKOFF_SECONDS: '10',
        // Ingest reads its source once, before the slowdown: a 202 needs only the queue.
        INGEST_CACHE_SECONDS: '3600',
        LOG_LEVEL: 'WARN',
      },
      undefined,
      // A second service on a machine the suite keeps busy.
      180_000,
    );
    api = apiClient(runtime.url);
    // The tenant's store is reached directly: only the platform's own dependencies are slow.
    hook = await createWebhook(api);
  }, 240_000);
  afterAll(async () => {
    await runtime?.stop();
    await tableProxy?.close();
    await bucketProxy?.close();
  });

  it('dead-letters nothing and writes every accepted webhook once', { timeout: 600_000 }, async () => {
    onTestFailed(() => {
      process.stderr.write(`The service's log:\n${runtime.output()}\n`);
    });
    const first = await ingest(api, hook, JSON.stringify({ before: true }));
    expect(first.status).toBe(202);
    const accepted = [first.body.message_id];

    const slowUntil = Date.now() + slowMs;
    tableProxy.delayWhen(() => true, lateByMs);
    bucketProxy.failWhen(() => true);
    // Webhooks spread over the slowdown, so that batches meet it at every stage of their backoff.
    const gapMs = (slowMs - 20_000) / webhooks;
    for (let i = 0; i < webhooks; i++) {
      const sent = Date.now();
      const response = await ingest(api, hook, JSON.stringify({ i }));
      expect(response.status).toBe(202);
      accepted.push(response.body.message_id);
      if (i === webhooks / 2) bucketProxy.failWhen(null);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, sent + gapMs - Date.now())));
    }
    // The writer met the slowdown and deferred its batches.
    await pollUntil(
      async () => runtime.output().split('The batch could not be staged').length - 1,
      (deferrals) => deferrals > 0,
      { what: 'the writer to defer a batch it could not stage', timeoutMs: slowMs },
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, slowUntil - Date.now())));
    tableProxy.delayWhen(null);
    bucketProxy.failWhen(null);
    const liftedAt = Date.now();

    const location = await waitForRows(api, hook.dataSetId, accepted.length, 300_000);
    const table = await readEnvelopeTable(location);
    const ids = table.rows.map((row) => row.message_id);
    expect({ rows: ids.length, distinct: new Set(ids).size }).toEqual({
      rows: accepted.length,
      distinct: accepted.length,
    });
    expect(ids.sort()).toEqual([...accepted].sort());

    const [ingestQueue, deadLetterQueue] = await Promise.all(['bend-ingest', 'bend-ingest-dlq'].map(queueUrl));
    const settled = await pollUntil(
      async () => ({
        queued: await queueDepth(sqs, ingestQueue as string),
        deadLetters: await queueDepth(sqs, deadLetterQueue as string),
        stats: (
          await api.get<{
            accepted: number;
            written_rows: number;
            staged_rows: number;
            dead_lettered: number;
            lost_rows: number;
          }>(`/api/connections/${hook.connectionId}/stats`)
        ).body,
      }),
      // staged_rows 0: the last commit has let its records go (until then they read written and staged).
      // accepted too: the door's count and the writer's arrive in separate writes.
      (state) =>
        state.queued === 0 &&
        state.stats.accepted === accepted.length &&
        state.stats.written_rows === accepted.length &&
        state.stats.staged_rows === 0,
      { what: 'the ingest queue to drain and the stats to count every row', timeoutMs: 120_000 },
    );
    expect({ deadLetters: settled.deadLetters, stats: settled.stats }).toMatchObject({
      deadLetters: 0,
      stats: { accepted: accepted.length, written_rows: accepted.length, dead_lettered: 0, lost_rows: 0 },
    });
    const failed = await api.get<{ failed_deliveries: unknown[] }>(
      `/api/connections/${hook.connectionId}/failed-deliveries`,
    );
    expect(failed.body.failed_deliveries).toEqual([]);
    process.stdout.write(
      `writer backoff: ${accepted.length} accepted, ${tableProxy.delayed()} table calls ${lateByMs / 1000} s late, ` +
        `${bucketProxy.failed()} bucket calls answered 503, ` +
        `${runtime.output().split('The batch could not be staged').length - 1} batches deferred, ` +
        `every row in the table ${Math.round((Date.now() - liftedAt) / 1000)} s after the slowdown ended, ` +
        `${table.versions.length} versions\n`,
    );
  });
});
