/**
 * Faults the ingest path must survive without losing or duplicating anything answered 202:
 * a tenant store that is down for a while, one that stays down, duplicate deliveries, lost
 * acknowledgements, and several writers committing to one table at once.
 */
import { randomUUID } from 'node:crypto';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lambdaContext } from '../../local/lambda-context.ts';
import { apiClient } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { envelopeFor, sqsEvent } from '../support/sqs-event.ts';
import { createWebhook, ingest, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const env = inject('runtimeEnv');
const sqs = new SQSClient({
  endpoint: env.AWS_ENDPOINT_URL_SQS,
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});

async function queueUrl(name: string): Promise<string> {
  return (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;
}

/** The batch writer's handler, in this process, against the shared stand-ins. */
async function writerHandler() {
  useServiceEnvironment();
  return import('../../functions/ingest/write-batch.ts');
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
    await pollUntil(
      async () => proxy.failed(),
      (failed) => failed > 0,
      { what: 'the writer to meet the failing store' },
    );
    const during = await api.get<{ files: unknown[] }>(`/api/data-sets/${hook.dataSetId}/files`);
    expect(during.body.files).toEqual([]);

    proxy.failWhen(null);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 10));
    expect(table.rows.map((row) => row.message_id).sort()).toEqual(ids.sort());
  });
  // An envelope that fails five times becomes a failed delivery: monitoring.test.ts and the Jepsen test.
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

  it('recognises an envelope delivered again after a lost acknowledgement as written: one row, acknowledged', async () => {
    // The acknowledgement of a committed batch never reached the queue (a crash, a network fault):
    // the same records come back. The end-to-end version of this fault is the Jepsen test.
    const hook = await createWebhook(api);
    const { handler } = await writerHandler();
    const envelopes = Array.from({ length: 5 }, (_, i) => envelopeFor(hook, JSON.stringify({ i })));
    const first = await handler(sqsEvent(envelopes, 1), lambdaContext('ingest-write-batch', 120));
    const again = await handler(sqsEvent(envelopes, 2), lambdaContext('ingest-write-batch', 120));
    expect([first.batchItemFailures, again.batchItemFailures]).toEqual([[], []]);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 5));
    expect(table.rows.map((row) => row.message_id).sort()).toEqual(envelopes.map((e) => e.message_id).sort());
    expect(table.versions).toEqual([0]);
  });

  it('records the version of a writer that stopped between its commit and recording it, when the envelope comes again', async () => {
    // A writer's invocation ended right after its log entry was written (a timeout, a crash): the
    // table holds the row, the data set does not know of the version. The delivery that comes back
    // finds its row written; the data set must learn of it then, not at the table's next commit.
    const hook = await createWebhook(api);
    const { handler } = await writerHandler();
    const { getDataSet } = await import('../../shared/adapters/dynamo/data-sets.ts');
    const { fixStorage, tableCommitter } = await import('../../shared/adapters/table-storage.ts');
    const { envelopeOutput } = await import('../../shared/adapters/delta-tables.ts');
    const envelope = envelopeFor(hook, '{"stopped":"after its commit"}');
    const dataSet = await fixStorage(
      (await getDataSet(hook.dataSetId)) as NonNullable<Awaited<ReturnType<typeof getDataSet>>>,
    );
    const stopped = envelopeOutput(
      {
        ...(await tableCommitter(dataSet)),
        hooks: {
          onCompleted: async () => {
            throw new Error('The invocation ended');
          },
        },
      },
      { ids: (await import('../../shared/adapters/dynamo/delta-log.ts')).commitRecords, defaultRetentionMs: null },
    );
    await expect(
      stopped(dataSet, [{ batch: 'b', message: envelope }], { attempt: 1, keeps: () => () => true }),
    ).rejects.toThrow('The invocation ended');
    const before = await api.get<{ version: number | null; files: unknown[] }>(
      `/api/data-sets/${hook.dataSetId}/files`,
    );
    expect(before.body).toMatchObject({ version: null, files: [] });

    const again = await handler(sqsEvent([envelope], 2), lambdaContext('ingest-write-batch', 120));
    expect(again.batchItemFailures).toEqual([]);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 1));
    expect({ ids: table.rows.map((row) => row.message_id), versions: table.versions }).toEqual({
      ids: [envelope.message_id],
      versions: [0],
    });
    expect((await api.get<{ version: number | null }>(`/api/data-sets/${hook.dataSetId}`)).body.version).toBe(0);
  });
});

describe('writers committing to one table at once', () => {
  it('gives consecutive versions and every row exactly once with 4 concurrent writers', async () => {
    const hook = await createWebhook(api);
    const { handler } = await writerHandler();

    const shared = Array.from({ length: 5 }, () => randomUUID());
    const batches = Array.from({ length: 4 }, (_, writer) => [
      ...Array.from({ length: 20 }, (_, i) => envelopeFor(hook, JSON.stringify({ writer, i }))),
      ...shared.map((id) => envelopeFor(hook, '{"shared":true}', id)),
    ]);
    const events = batches.map((envelopes) => sqsEvent(envelopes, 1));
    const results = await Promise.all(events.map((event) => handler(event, lambdaContext('ingest-write-batch', 120))));
    expect(results.map((result) => result.batchItemFailures)).toEqual([[], [], [], []]);

    const expected = new Set(batches.flat().map((envelope) => envelope.message_id));
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, expected.size));
    // A commit holds everything staged for the table, whichever writer staged it: one to four of them.
    const made = table.versions.length;
    expect({ versions: table.versions, between1and4: made >= 1 && made <= 4 }).toEqual({
      versions: Array.from({ length: made }, (_, version) => version),
      between1and4: true,
    });
    expect(table.rows.map((row) => row.message_id).sort()).toEqual([...expected].sort());
  });
});
