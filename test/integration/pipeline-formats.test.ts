/**
 * Pipelines over what webhooks really send, on the running service: XML, form and NDJSON bodies
 * posted with their content types, decoded by a deployed pipeline, filtered with where, written
 * to a Delta table that DuckDB reads back; column suggestions over the same bodies; and runs that
 * start by themselves when new rows arrive (on_new_data).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../support/api.ts';
import { readDeltaTable } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const api = apiClient();

interface Job {
  job_id: string;
  status: string;
  rows_in: number | null;
  rows_out: number | null;
  rows_rejected: number | null;
  rows_filtered: number | null;
  rejection_samples: { message_id: string; reason: string }[];
  payload: { trigger?: string } | null;
  error_message: string | null;
}

const finished = (job: Job) => ['Succeeded', 'Failed', 'Cancelled'].includes(job.status);

async function deployed(hook: Webhook, definition: Record<string, unknown>): Promise<string> {
  const created = await api.post<{ pipeline_id: string }>('/api/pipelines', {
    json: {
      tenant_id: hook.tenantId,
      name: 'decoding',
      definition: { source: { data_set_id: hook.dataSetId }, ...definition },
    },
  });
  expect(created.status, created.text).toBe(201);
  const deploy = await api.post(`/api/pipelines/${created.body.pipeline_id}/deploy`, { json: {} });
  expect(deploy.status, deploy.text).toBe(204);
  return created.body.pipeline_id;
}

async function runOnce(pipelineId: string): Promise<Job> {
  const started = await api.post<{ job_id: string }>(`/api/pipelines/${pipelineId}/trigger`, { json: {} });
  expect(started.status, started.text).toBe(201);
  return pollUntil(async () => (await api.get<Job>(`/api/jobs/${started.body.job_id}`)).body, finished, {
    what: `job ${started.body.job_id}`,
  });
}

/** The output table's rows as DuckDB reads them (each in the day partition it was received), sorted by their JSON text. */
async function outputRows(client: ApiClient, pipelineId: string, select: string) {
  const listed = await client.get<{ data_sets: { storage_location: string }[] }>(
    `/api/data-sets?pipeline_id=${pipelineId}`,
  );
  const location = listed.body.data_sets[0]?.storage_location as string;
  const rows = (await readDeltaTable(location, select)).rows.map(({ dt, ...row }) => {
    expect(dt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    return row;
  });
  return rows
    .map((row) => [JSON.stringify(row), row] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, row]) => row);
}

/** Posts each body with its content type; answers the message ids in order, once the source holds `total` rows. */
async function send(hook: Webhook, bodies: [string | Buffer, string][], total = bodies.length): Promise<string[]> {
  const ids: string[] = [];
  for (const [body, contentType] of bodies) {
    const accepted = await ingest(api, hook, body, { 'content-type': contentType });
    expect(accepted.status, accepted.text).toBe(202);
    ids.push(accepted.body.message_id);
  }
  await waitForRows(api, hook.dataSetId, total);
  return ids;
}

describe.concurrent('decoding formats on the running service', () => {
  it('XML: attributes, #text and repeated elements to typed columns; a billion-laughs body rejects only itself', async () => {
    const hook = await createWebhook(api);
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
      ']><order id="1">&lol9;</order>';
    const ids = await send(hook, [
      ['<order id="7"><total currency="EUR">7.50</total><item sku="a"/><item sku="b"/></order>', 'application/xml'],
      ['<order id="8"><total currency="USD">12</total><item sku="c"/></order>', 'text/xml'],
      [laughs, 'application/xml'],
      ['<order id="x"><total>1</total></order>', 'application/xml'],
    ]);
    const pipelineId = await deployed(hook, {
      decode: { format: 'xml' },
      columns: [
        { name: 'id', path: '$.order["@id"]', type: 'long' },
        { name: 'total', path: '$.order.total["#text"]', type: 'double' },
        { name: 'currency', path: '$.order.total["@currency"]', type: 'string' },
        { name: 'first_sku', path: '$.order.item[0]["@sku"]', type: 'string' },
      ],
      output: { name: 'orders' },
    });
    const job = await runOnce(pipelineId);
    expect(job).toMatchObject({ status: 'Succeeded', rows_in: 4, rows_out: 2, rows_rejected: 2, rows_filtered: 0 });
    const byReason = (a: { reason: string }, b: { reason: string }) => a.reason.localeCompare(b.reason);
    expect(job.rejection_samples.sort(byReason)).toEqual([
      { message_id: ids[3], reason: 'column id: "x" is not a long' },
      { message_id: ids[2], reason: 'XML with a DOCTYPE is not accepted (no DTDs, no entity declarations)' },
    ]);
    // The second order has one item: item[0] of a single element is no value (an element, not an array).
    expect(await outputRows(api, pipelineId, 'id, total, currency, first_sku')).toEqual([
      { id: '7', total: 7.5, currency: 'EUR', first_sku: 'a' },
      { id: '8', total: 12, currency: 'USD', first_sku: null },
    ]);
  });

  it('form: keys to values, + and percent-escapes decoded, filtered by where with the count apart', async () => {
    const hook = await createWebhook(api);
    const form = 'application/x-www-form-urlencoded';
    await send(hook, [
      ['txn_id=7&payer=F7+%26+Co&mc_gross=7.25&payment_status=Completed', form],
      ['txn_id=8&payer=K%C3%B6ln+GmbH&mc_gross=19.90&payment_status=Completed', `${form}; charset=UTF-8`],
      ['txn_id=9&payer=x&mc_gross=1&payment_status=Pending', form],
      ['txn_id=10&payer=y&mc_gross=lots&payment_status=Completed', form],
    ]);
    const pipelineId = await deployed(hook, {
      decode: { format: 'form' },
      where: { path: '$.payment_status', equals: 'Completed' },
      columns: [
        { name: 'txn_id', path: '$.txn_id', type: 'long' },
        { name: 'payer', path: '$.payer', type: 'string' },
        { name: 'gross', path: '$.mc_gross', type: 'double' },
      ],
      output: { name: 'payments' },
    });
    const job = await runOnce(pipelineId);
    expect(job).toMatchObject({ status: 'Succeeded', rows_in: 4, rows_out: 2, rows_rejected: 1, rows_filtered: 1 });
    expect(job.rejection_samples.map((sample) => sample.reason)).toEqual(['column gross: "lots" is not a double']);
    expect(await outputRows(api, pipelineId, 'txn_id, payer, gross')).toEqual([
      { txn_id: '7', payer: 'F7 & Co', gross: 7.25 },
      { txn_id: '8', payer: 'Köln GmbH', gross: 19.9 },
    ]);
  });

  it('NDJSON: one row per non-empty line, a bad line rejected alone', async () => {
    const hook = await createWebhook(api);
    await send(hook, [
      ['{"event":"view","n":1}\n{"event":"click","n":2}\n\n{"event":"view","n":3}\n', 'application/x-ndjson'],
      ['{"event":"view","n":4}\r\n{"event":\r\n', 'application/x-ndjson'],
    ]);
    const pipelineId = await deployed(hook, {
      decode: { format: 'ndjson' },
      columns: [
        { name: 'event', path: '$.event', type: 'string' },
        { name: 'n', path: '$.n', type: 'long' },
      ],
      output: { name: 'events' },
    });
    const job = await runOnce(pipelineId);
    expect(job).toMatchObject({ status: 'Succeeded', rows_in: 5, rows_out: 4, rows_rejected: 1, rows_filtered: 0 });
    expect(job.rejection_samples.map((sample) => sample.reason)).toEqual(['line 2 is not valid JSON']);
    expect(await outputRows(api, pipelineId, 'event, n')).toEqual([
      { event: 'click', n: '2' },
      { event: 'view', n: '1' },
      { event: 'view', n: '3' },
      { event: 'view', n: '4' },
    ]);
  });

  it('auto: each body by its content type, into one table; a query job previews the same rows', async () => {
    const hook = await createWebhook(api);
    await send(hook, [
      ['{"type":"invoice.paid","amount":700}', 'application/json; charset=utf-8'],
      ['<event><type>invoice.paid</type><amount>1250</amount></event>', 'application/xml'],
      ['type=invoice.paid&amount=99', 'application/x-www-form-urlencoded'],
      ['{"type":"invoice.paid","amount":1}\n{"type":"invoice.created","amount":2}', 'application/x-ndjson'],
      [Buffer.from([0x7b, 0xff, 0x7d]), 'application/json'],
    ]);
    const columns = [
      { name: 'type', path: '$.type', type: 'string' },
      { name: 'amount', path: '$.amount', type: 'long' },
      { name: 'xml_type', path: '$.event.type', type: 'string' },
      { name: 'xml_amount', path: '$.event.amount', type: 'long' },
    ];
    const pipelineId = await deployed(hook, { decode: { format: 'auto' }, columns, output: { name: 'invoices' } });
    const job = await runOnce(pipelineId);
    expect(job).toMatchObject({ status: 'Succeeded', rows_in: 6, rows_out: 5, rows_rejected: 1, rows_filtered: 0 });
    expect(job.rejection_samples.map((sample) => sample.reason)).toEqual(['payload is not valid UTF-8']);
    expect(await outputRows(api, pipelineId, 'type, amount, xml_type, xml_amount')).toEqual([
      { type: 'invoice.created', amount: '2', xml_type: null, xml_amount: null },
      { type: 'invoice.paid', amount: '1', xml_type: null, xml_amount: null },
      { type: 'invoice.paid', amount: '700', xml_type: null, xml_amount: null },
      { type: 'invoice.paid', amount: '99', xml_type: null, xml_amount: null },
      { type: null, amount: null, xml_type: 'invoice.paid', xml_amount: '1250' },
    ]);

    const query = await api.post<{ job_id: string }>('/api/jobs', {
      json: {
        type: 'query',
        tenant_id: hook.tenantId,
        query: {
          source: { data_set_id: hook.dataSetId },
          decode: { format: 'auto' },
          where: { path: '$.type', equals: 'invoice.created' },
          columns: columns.slice(0, 2),
        },
      },
    });
    expect(query.status, query.text).toBe(201);
    const preview = await pollUntil(async () => (await api.get<Job>(`/api/jobs/${query.body.job_id}`)).body, finished);
    expect(preview).toMatchObject({ status: 'Succeeded', rows_in: 6, rows_out: 1, rows_rejected: 1, rows_filtered: 4 });
    const result = await api.get<{ rows: unknown[][] }>(`/api/jobs/${query.body.job_id}/result`);
    expect(result.body.rows.map((row) => row.slice(1))).toEqual([['invoice.created', 2]]);
  });

  it('suggests columns from recent bodies, and refuses bad requests with 400 and unknown data sets with 404', async () => {
    const hook = await createWebhook(api);
    await send(hook, [
      ['<order id="7"><total currency="EUR">7.50</total><paid>true</paid></order>', 'application/xml'],
      ['<order id="8"><total currency="USD">12</total><paid>false</paid></order>', 'application/xml'],
    ]);
    const suggested = await api.post<{ columns: unknown[]; sampled_envelopes: number; formats: unknown }>(
      `/api/data-sets/${hook.dataSetId}/suggest-columns`,
      { json: {} },
    );
    expect(suggested.status, suggested.text).toBe(200);
    expect(suggested.body).toMatchObject({ sampled_envelopes: 2, formats: { xml: 2 } });
    expect(suggested.body.columns).toEqual([
      { name: 'id', path: '$.order["@id"]', type: 'long', seen: 2 },
      { name: 'currency', path: '$.order.total["@currency"]', type: 'string', seen: 2 },
      { name: 'total', path: '$.order.total["#text"]', type: 'double', seen: 2 },
      { name: 'paid', path: '$.order.paid', type: 'boolean', seen: 2 },
    ]);
    for (const body of [{ sample: 0 }, { sample: 1001 }, { format: 'yaml' }, { columns: [] }]) {
      const refused = await api.post(`/api/data-sets/${hook.dataSetId}/suggest-columns`, { json: body });
      expect({ body, status: refused.status }).toEqual({ body, status: 400 });
    }
    const missing = await api.post(`/api/data-sets/${crypto.randomUUID()}/suggest-columns`, { json: {} });
    expect(missing.status).toBe(404);
  });
});

describe('runs on new data', () => {
  async function automaticJobs(hook: Webhook, pipelineId: string): Promise<Job[]> {
    const listed = await api.get<{ jobs: (Job & { source: { pipeline_id?: string } })[] }>(
      `/api/jobs?tenant_id=${hook.tenantId}&job_type=Pipeline`,
    );
    return listed.body.jobs.filter(
      (job) => job.source.pipeline_id === pipelineId && job.payload?.trigger === 'on_new_data',
    );
  }

  it('runs within the schedule after new rows, once per batch of rows, never while disabled', async () => {
    const hook = await createWebhook(api);
    const definition = (name: string) => ({
      decode: { format: 'json' },
      on_new_data: true,
      columns: [{ name: 'n', path: '$.n', type: 'long' }],
      output: { name },
    });
    const pipelineId = await deployed(hook, definition('live'));
    // A second pipeline on the same source: once its run for some rows is done, the schedule has
    // been through that source, so the first pipeline's (missing) run is not merely late.
    const witnessId = await deployed(hook, definition('witness'));
    // A pipeline on another source: once it has run over a row sent after a moment, the schedule has
    // been through every source since that moment (and settled this one's first rows).
    const clock = await createWebhook(api);
    const clockId = await deployed(clock, definition('clock'));

    await send(hook, [
      ['{"n":1}', 'application/json'],
      ['{"n":2}', 'application/json'],
    ]);
    const rowsOut = (jobs: Job[]) => jobs.reduce((sum, job) => sum + (job.rows_out ?? 0), 0);
    const first = await pollUntil(
      () => automaticJobs(hook, pipelineId),
      (jobs) => rowsOut(jobs) === 2 && jobs.every(finished),
      { what: 'automatic runs over the first rows', timeoutMs: 60_000 },
    );
    expect(first.map((job) => job.status)).toEqual(first.map(() => 'Succeeded'));
    await send(clock, [['{"n":0}', 'application/json']]);
    await pollUntil(
      () => automaticJobs(clock, clockId),
      (jobs) => rowsOut(jobs) === 1 && jobs.every(finished),
      { what: "the clock pipeline's run", timeoutMs: 60_000 },
    );

    await send(hook, [['{"n":3}', 'application/json']], 3);
    await pollUntil(
      () => automaticJobs(hook, pipelineId),
      (jobs) => rowsOut(jobs) === 3 && jobs.every(finished),
      { what: 'an automatic run over the third row', timeoutMs: 60_000 },
    );
    expect(await outputRows(api, pipelineId, 'n')).toEqual([{ n: '1' }, { n: '2' }, { n: '3' }]);

    expect((await api.post(`/api/pipelines/${pipelineId}/disable`)).status).toBe(204);
    const before = (await automaticJobs(hook, pipelineId)).length;
    await send(hook, [['{"n":4}', 'application/json']], 4);
    await pollUntil(
      () => automaticJobs(hook, witnessId),
      (jobs) => rowsOut(jobs) === 4 && jobs.every(finished),
      { what: "the witness's run over the fourth row", timeoutMs: 60_000 },
    );
    expect((await automaticJobs(hook, pipelineId)).length).toBe(before);
    expect(await outputRows(api, pipelineId, 'n')).toEqual([{ n: '1' }, { n: '2' }, { n: '3' }]);
    expect(await outputRows(api, witnessId, 'n')).toEqual([{ n: '1' }, { n: '2' }, { n: '3' }, { n: '4' }]);
  }, 180_000);

  it('stops watching the source of a deleted pipeline: the schedule removes the watch once new rows come', async () => {
    useServiceEnvironment();
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const { sourceWatchKeys } = await import('#shared/adapters/dynamo/source-watches.ts');
    const watchOf = async (dataSetId: string) =>
      (
        await db.send(
          new GetCommand({ TableName: table(), Key: sourceWatchKeys.watch(dataSetId), ConsistentRead: true }),
        )
      ).Item ?? null;
    const hook = await createWebhook(api);
    const pipelineId = await deployed(hook, {
      decode: { format: 'json' },
      on_new_data: true,
      columns: [{ name: 'n', path: '$.n', type: 'long' }],
      output: { name: 'gone' },
    });
    expect(await watchOf(hook.dataSetId)).toMatchObject({ pipelines: new Set([pipelineId]) });
    expect((await api.delete(`/api/pipelines/${pipelineId}`)).status).toBe(204);
    // The commit marks the source; the schedule finds its watcher gone and removes the watch (a
    // write, then a delete of the item once nobody watches: its function's role must allow both).
    await send(hook, [['{"n":1}', 'application/json']]);
    await pollUntil(
      () => watchOf(hook.dataSetId),
      (watch) => watch === null,
      { what: "the deleted pipeline's watch to be removed", timeoutMs: 60_000 },
    );
  });
});
