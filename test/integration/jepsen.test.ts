/**
 * A Jepsen-style check of the promise "nothing accepted is ever lost in silence": unique events are
 * sent while faults are injected — the tenant store failing long enough for envelopes to exhaust
 * their deliveries, acknowledgements lost after commits, and a poison envelope that can never be
 * written — then the queues drain, the failed deliveries are redriven, and every Parquet file of
 * the table is read back. Every event must be there exactly once, and the one that cannot be
 * written must be listed as a failed delivery with its reason.
 */
import { randomUUID } from 'node:crypto';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { queueDepth } from '../../local/event-source-poller.ts';
import { type ApiClient, apiClient } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { pollUntil } from '../support/poll.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { createWebhook, ingest, type Webhook } from '../support/webhooks.ts';

const env = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: env.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const queueUrl = async (name: string) =>
  (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;

describe('nothing accepted is lost or duplicated under faults', () => {
  let storeProxy: FaultProxy;
  let queueProxy: FaultProxy;
  let runtime: RuntimeProcess;
  let api: ApiClient;
  let hook: Webhook;

  beforeAll(async () => {
    storeProxy = await startFaultProxy(env.AWS_ENDPOINT_URL_S3 as string);
    queueProxy = await startFaultProxy(env.AWS_ENDPOINT_URL_SQS as string);
    runtime = await startRuntimeProcess({
      ...env,
      AWS_ENDPOINT_URL_SQS: queueProxy.url,
      LOCAL_QUEUE_PREFIX: 'jepsen-',
      TABLE_NAME: 'jepsen-tributary',
    });
    api = apiClient(runtime.url);
    hook = await createWebhook(api, { store: { endpoint: storeProxy.url } });
  });
  afterAll(async () => {
    await runtime?.stop();
    await storeProxy?.close();
    await queueProxy?.close();
  });

  const failedDeliveries = async () =>
    (
      await api.get<{ failed_deliveries: { message_id: string; last_error: string; attempts: number }[] }>(
        `/api/connections/${hook.connectionId}/failed-deliveries?limit=1000`,
      )
    ).body.failed_deliveries;

  /**
   * Waits until nothing can change any more: the ingest queue and its dead-letter queues hold no
   * message, visible or in flight, nothing waits staged for the table, and the failed deliveries are
   * as expected. This runtime has a table of its own: no other service commits its staged tables.
   */
  async function settle(what: string, expectedFailures: (failedIds: string[]) => boolean) {
    const [ingestQueue, ...deadLetterQueues] = await Promise.all(['jepsen-ingest', 'jepsen-ingest-dlq'].map(queueUrl));
    return pollUntil(
      async () => {
        const [failed, queued, stats, ...deadLetters] = await Promise.all([
          failedDeliveries(),
          queueDepth(sqs, ingestQueue as string),
          api.get<{ staged_rows: number }>(`/api/connections/${hook.connectionId}/stats`),
          ...deadLetterQueues.map((url) => queueDepth(sqs, url)),
        ]);
        return {
          failed: failed.map((delivery) => delivery.message_id),
          queued,
          deadLettered: deadLetters.reduce((sum, depth) => sum + depth, 0),
          staged: stats.body.staged_rows,
        };
      },
      (state) => state.queued === 0 && state.deadLettered === 0 && state.staged === 0 && expectedFailures(state.failed),
      { what, timeoutMs: 120_000, intervalMs: 500 },
    );
  }

  it('drains, redrives, and reads every event back exactly once', { timeout: 300_000 }, async () => {
    onTestFailed(() => {
      process.stderr.write(`The service's log:\n${runtime.output()}\n`);
    });
    const events: { eventId: string; messageId: string }[] = [];
    const send = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const eventId = randomUUID();
        const response = await ingest(api, hook, JSON.stringify({ event_id: eventId }), {
          'content-type': 'application/json',
        });
        expect(response.status).toBe(202);
        events.push({ eventId, messageId: response.body.message_id });
      }
    };

    // A poison envelope, first: well-formed, but its claim-checked body does not exist. It can never
    // be written, so its commit leaves it out and dead-letters it at the first attempt.
    const poisonId = randomUUID();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: await queueUrl('jepsen-ingest'),
        MessageBody: JSON.stringify({
          v: 1,
          message_id: poisonId,
          data_set_id: hook.dataSetId,
          dt: new Date().toISOString().slice(0, 10),
          ingested_at_us: String(Date.now() * 1000),
          source_id: hook.sourceId,
          tenant_id: hook.tenantId,
          content_type: 'application/json',
          payload_size: 10,
          payload_ref: { bucket: 'tributary-platform', key: `claims/${hook.dataSetId}/${poisonId}` },
        }),
      }),
    );

    await send(30);

    // The tenant's store fails until envelopes have exhausted their five deliveries.
    storeProxy.failWhen(() => true);
    await send(30);
    await pollUntil(failedDeliveries, (failed) => failed.some((delivery) => delivery.message_id !== poisonId), {
      what: 'an envelope to exhaust its deliveries while the store is down',
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    storeProxy.failWhen(null);

    // Commits succeed but their acknowledgements are lost for a while.
    queueProxy.failWhen((request) => request.headers['x-amz-target'] === 'AmazonSQS.DeleteMessageBatch');
    await send(30);
    await pollUntil(
      async () => queueProxy.failed(),
      (lost) => lost >= 3,
      {
        what: 'three lost acknowledgements',
        timeoutMs: 60_000,
      },
    );
    queueProxy.failWhen(null);

    await send(10);

    const beforeRedrive = (
      await settle('the queues to drain with the poison envelope among the failed deliveries', (failedIds) =>
        failedIds.includes(poisonId),
      )
    ).failed;
    expect(beforeRedrive).toContain(poisonId);

    const redriven = await api.post<{ redriven: number; by_category: Record<string, number>; remaining: number }>(
      `/api/connections/${hook.connectionId}/failed-deliveries/redrive`,
      { json: {} },
    );
    expect({
      status: redriven.status,
      redriven: redriven.body.redriven,
      remaining: redriven.body.remaining,
      categorised: Object.values(redriven.body.by_category).reduce((sum, n) => sum + n, 0),
    }).toEqual({ status: 200, redriven: beforeRedrive.length, remaining: 0, categorised: beforeRedrive.length });
    await settle(
      'the redriven envelopes to drain, the poison one failing again',
      (failedIds) => failedIds.length === 1,
    );

    const table = await readEnvelopeTable(
      (await api.get<{ storage_location: string }>(`/api/data-sets/${hook.dataSetId}`)).body.storage_location,
    );
    const seen = new Map<string, number>();
    for (const row of table.rows) {
      const eventId = (JSON.parse(row.payload.toString('utf8')) as { event_id: string }).event_id;
      seen.set(eventId, (seen.get(eventId) ?? 0) + 1);
    }
    const lost = events.filter((event) => !seen.has(event.eventId));
    const duplicated = [...seen].filter(([, times]) => times > 1);
    expect({ sent: events.length, lost: lost.length, duplicated: duplicated.length }).toEqual({
      sent: 100,
      lost: 0,
      duplicated: 0,
    });
    expect(new Set(table.rows.map((row) => row.message_id))).toEqual(new Set(events.map((event) => event.messageId)));

    const remaining = await failedDeliveries();
    expect(remaining).toHaveLength(1);
    expect(remaining[0]).toMatchObject({ message_id: poisonId, attempts: 1 });
    expect(remaining[0]?.last_error).toMatch(/Unreadable envelope|claim/i);
  });
});
