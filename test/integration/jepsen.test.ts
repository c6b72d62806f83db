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
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, apiClient } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { createWebhook, ingest, type Webhook } from '../support/webhooks.ts';

const env = inject('runtimeEnv');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  async function settle(expectedFailures: (failed: { message_id: string }[]) => boolean, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    let quietSince = Date.now();
    let last = '';
    for (;;) {
      const [files, failed] = await Promise.all([
        api.get<{ files: { num_records: number }[] }>(`/api/data-sets/${hook.dataSetId}/files`),
        failedDeliveries(),
      ]);
      const snapshot = `${files.body.files.reduce((sum, file) => sum + file.num_records, 0)}/${failed.length}`;
      if (snapshot !== last) {
        last = snapshot;
        quietSince = Date.now();
      }
      if ((expectedFailures(failed) && Date.now() - quietSince > 6000) || Date.now() > deadline) return;
      await sleep(500);
    }
  }

  it('drains, redrives, and reads every event back exactly once', { timeout: 300_000 }, async () => {
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

    await send(30);

    // The tenant's store fails long enough for some envelopes to exhaust their five deliveries.
    storeProxy.failWhen(() => true);
    await send(30);
    await sleep(16_000);
    storeProxy.failWhen(null);

    // Commits succeed but their acknowledgements are lost for a while.
    queueProxy.failWhen((request) => request.headers['x-amz-target'] === 'AmazonSQS.DeleteMessageBatch');
    await send(30);
    await sleep(4_000);
    queueProxy.failWhen(null);

    // A poison envelope: well-formed, but its claim-checked body does not exist.
    const sqs = new SQSClient({
      endpoint: env.AWS_ENDPOINT_URL_SQS,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const poisonId = randomUUID();
    const queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'jepsen-ingest' }))).QueueUrl;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
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
    await send(10);

    await settle((failed) => failed.some((delivery) => delivery.message_id === poisonId));
    const beforeRedrive = await failedDeliveries();
    expect(beforeRedrive.map((failed) => failed.message_id)).toContain(poisonId);

    const redriven = await api.post<{ redriven: number }>(
      `/api/connections/${hook.connectionId}/failed-deliveries/redrive`,
      { json: {} },
    );
    expect(redriven.body.redriven).toBe(beforeRedrive.length);
    await settle((failed) => failed.length === 1);

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
    expect(remaining[0]).toMatchObject({ message_id: poisonId, attempts: 5 });
    expect(remaining[0]?.last_error).toMatch(/Unreadable envelope|claim/i);
  });
});
