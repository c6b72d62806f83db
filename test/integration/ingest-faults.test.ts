/**
 * Faults the ingest path must survive without losing or duplicating anything answered 202:
 * a tenant store that is down for a while, one that stays down, duplicate deliveries, lost
 * acknowledgements, and several writers committing to one table at once.
 */
import { randomUUID } from 'node:crypto';
import { GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { lambdaContext } from '../../local/lambda-context.ts';
import { apiClient } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const env = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: env.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function queueUrl(name: string): Promise<string> {
  return (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;
}

async function locationOf(dataSetId: string): Promise<string> {
  return (await api.get<{ storage_location: string }>(`/api/data-sets/${dataSetId}`)).body.storage_location;
}

function envelopeFor(hook: Webhook, body: string, messageId = randomUUID()): EnvelopeMessage {
  const micros = BigInt(Date.now()) * 1000n;
  return {
    v: 1,
    message_id: messageId,
    data_set_id: hook.dataSetId,
    dt: new Date().toISOString().slice(0, 10),
    ingested_at_us: micros.toString(),
    source_id: hook.sourceId,
    tenant_id: hook.tenantId,
    content_type: 'application/json',
    payload_size: Buffer.byteLength(body),
    payload: Buffer.from(body).toString('base64'),
  };
}

describe('a tenant store that fails', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(env.AWS_ENDPOINT_URL_S3 as string);
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('holds the envelopes while it is down and writes each exactly once after it recovers', async () => {
    const hook = await createWebhook(api, { store: { endpoint: proxy.url } });
    proxy.failWhen(() => true);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await ingest(api, hook, JSON.stringify({ i }))).body.message_id);
    await sleep(3500);
    expect(proxy.failed()).toBeGreaterThan(0);
    const during = await api.get<{ files: unknown[] }>(`/api/data-sets/${hook.dataSetId}/files`);
    expect(during.body.files).toEqual([]);

    proxy.failWhen(null);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 10));
    expect(table.rows.map((row) => row.message_id).sort()).toEqual(ids.sort());
  });

  it('moves envelopes that fail five times out of the queue, whole, as failed deliveries instead of dropping them', async () => {
    const down = await startFaultProxy(env.AWS_ENDPOINT_URL_S3 as string);
    const hook = await createWebhook(api, { store: { endpoint: down.url } });
    down.failWhen(() => true);
    const sent = (await ingest(api, hook, '{"doomed":true}')).body.message_id;
    const deadline = Date.now() + 45_000;
    let failed: { message_id: string }[] = [];
    while (failed.length === 0 && Date.now() < deadline) {
      failed = (
        await api.get<{ failed_deliveries: { message_id: string }[] }>(
          `/api/connections/${hook.connectionId}/failed-deliveries`,
        )
      ).body.failed_deliveries;
      if (failed.length === 0) await sleep(500);
    }
    expect(failed.map((delivery) => delivery.message_id)).toEqual([sent]);
    await down.close();
  });
});

describe('deliveries that repeat', () => {
  it('writes an envelope delivered three times as one row', async () => {
    const hook = await createWebhook(api);
    const queue = await queueUrl('ingest');
    const envelope = envelopeFor(hook, '{"dup":1}');
    for (let i = 0; i < 3; i++) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: JSON.stringify(envelope) }));
      if (i === 1) await waitForRows(api, hook.dataSetId, 1);
    }
    await ingest(api, hook, '{"marker":"after"}');
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 2));
    expect(table.rows.filter((row) => row.message_id === envelope.message_id)).toHaveLength(1);
  });

  describe('when acknowledgements are lost after the commit', () => {
    let proxy: FaultProxy;
    let chaos: RuntimeProcess;
    beforeAll(async () => {
      proxy = await startFaultProxy(env.AWS_ENDPOINT_URL_SQS as string);
      chaos = await startRuntimeProcess({ ...env, AWS_ENDPOINT_URL_SQS: proxy.url, LOCAL_QUEUE_PREFIX: 'acklost-' });
    });
    afterAll(async () => {
      await chaos?.stop();
      await proxy?.close();
    });

    it('recognises the redelivered envelopes as written: one row each', async () => {
      const local = apiClient(chaos.url);
      const hook = await createWebhook(local);
      proxy.failWhen((request) => request.headers['x-amz-target'] === 'AmazonSQS.DeleteMessageBatch');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await ingest(local, hook, JSON.stringify({ i }))).body.message_id);
      await waitForRows(local, hook.dataSetId, 5);
      await sleep(2500);
      expect(proxy.failed()).toBeGreaterThan(1);
      proxy.failWhen(null);
      await sleep(4000);

      const table = await readEnvelopeTable(await locationOf(hook.dataSetId));
      expect(table.rows.map((row) => row.message_id).sort()).toEqual(ids.sort());
      const depth = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: await queueUrl('acklost-ingest'), MaxNumberOfMessages: 10 }),
      );
      expect(depth.Messages ?? []).toEqual([]);
    });
  });
});

describe('writers committing to one table at once', () => {
  it('gives consecutive versions and every row exactly once with 4 concurrent writers', async () => {
    const hook = await createWebhook(api);
    useServiceEnvironment();
    const { handler } = await import('../../functions/ingest/write-batch.ts');

    const shared = Array.from({ length: 5 }, () => randomUUID());
    const batches = Array.from({ length: 4 }, (_, writer) => [
      ...Array.from({ length: 20 }, (_, i) => envelopeFor(hook, JSON.stringify({ writer, i }))),
      ...shared.map((id) => envelopeFor(hook, '{"shared":true}', id)),
    ]);
    const events: SQSEvent[] = batches.map((envelopes) => ({
      Records: envelopes.map((envelope) => ({
        messageId: randomUUID(),
        receiptHandle: 'r',
        body: JSON.stringify(envelope),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '0',
          SenderId: 's',
          ApproximateFirstReceiveTimestamp: '0',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ingest',
        awsRegion: 'us-east-1',
      })),
    }));
    const results = await Promise.all(events.map((event) => handler(event, lambdaContext('ingest-write-batch', 120))));
    expect(results.map((result) => result.batchItemFailures)).toEqual([[], [], [], []]);

    const expected = new Set(batches.flat().map((envelope) => envelope.message_id));
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, expected.size));
    expect(table.versions).toEqual([0, 1, 2, 3]);
    expect(table.rows.map((row) => row.message_id).sort()).toEqual([...expected].sort());
  });
});
