import { randomUUID } from 'node:crypto';
import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.ts';
import { pollUntil } from '../support/poll.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const env = inject('runtimeEnv');

interface Rejection {
  at: string;
  status: number;
  code: string;
  content_type: string | null;
  payload_size: number;
  headers: Record<string, string>;
}

async function rejections(hook: Webhook, limit = 1000) {
  const response = await api.get<{ rejections: Rejection[]; next_cursor: string | null }>(
    `/api/connections/${hook.connectionId}/rejections?limit=${limit}`,
  );
  for (const rejection of response.body.rejections)
    expect(Object.keys(rejection).sort()).toEqual(['at', 'code', 'content_type', 'headers', 'payload_size', 'status']);
  return response.body;
}

describe('rejected requests', () => {
  it('records each refusal of an identified source with its code, type, size and safe headers', async () => {
    const hook = await createWebhook(api);
    const send = (options: { token?: string; query?: string; body?: string | Buffer } = {}) =>
      ingest(
        api,
        { sourceId: hook.sourceId, token: options.token ?? hook.token },
        options.body ?? '{"a":1}',
        {
          'content-type': 'application/vnd.test+json',
          'x-hub-signature-256': 'sha256=secret-signature',
          cookie: 'session=secret',
          'x-request-source': 'monitoring-test',
        },
        options.query ?? '',
      );
    expect((await send({ token: 'trb_ing_wrong' })).status).toBe(401);
    expect((await send({ query: '?feed=-bad' })).status).toBe(400);
    expect((await send({ body: Buffer.alloc(1024 * 1024 + 1) })).status).toBe(413);
    await api.post(`/api/connections/${hook.connectionId}/pause-source`);
    expect((await send()).status).toBe(422);
    await api.post(`/api/connections/${hook.connectionId}/resume-source`);
    await api.post(`/api/connections/${hook.connectionId}/deactivate`);
    expect((await send()).status).toBe(422);
    await api.post(`/api/connections/${hook.connectionId}/activate`);
    await api.post(`/api/tenants/${hook.tenantId}/suspend`);
    expect((await send()).status).toBe(422);
    await api.post(`/api/tenants/${hook.tenantId}/reactivate`);
    expect((await send()).status).toBe(202);
    expect(
      (
        await api.post('/api/ingest/no-such-source', {
          key: null,
          raw: '{}',
          headers: { authorization: `Bearer ${hook.token}` },
        })
      ).status,
    ).toBe(404);

    const recorded = (await rejections(hook)).rejections;
    expect(recorded.map((rejection) => [rejection.status, rejection.code])).toEqual([
      [422, 'TENANT_SUSPENDED'],
      [422, 'CONNECTION_NOT_ACTIVE'],
      [422, 'SOURCE_PAUSED'],
      [413, 'PAYLOAD_TOO_LARGE'],
      [400, 'INVALID_FEED'],
      [401, 'UNAUTHORIZED'],
    ]);
    for (const rejection of recorded) {
      expect(rejection.content_type).toBe('application/vnd.test+json');
      expect(rejection.headers['x-request-source']).toBe('monitoring-test');
      expect(Object.keys(rejection.headers).filter((name) => /authorization|signature|cookie/.test(name))).toEqual([]);
      expect(Date.parse(rejection.at)).toBeGreaterThan(Date.now() - 120_000);
    }
    expect(recorded.find((rejection) => rejection.code === 'PAYLOAD_TOO_LARGE')?.payload_size).toBe(1024 * 1024 + 1);
    expect(recorded.find((rejection) => rejection.code === 'UNAUTHORIZED')?.payload_size).toBe(7);
    expect(JSON.stringify(recorded)).not.toContain(hook.token);
  });

  it('records OBJECT_STORE_NOT_CONFIGURED for a tenant without a store', async () => {
    const hook = await createWebhook(api, { store: null });
    expect((await ingest(api, hook, 'x')).status).toBe(422);
    expect((await rejections(hook)).rejections.map((rejection) => rejection.code)).toEqual([
      'OBJECT_STORE_NOT_CONFIGURED',
    ]);
  });

  it('keeps only the newest 10 of a flood of bad requests (the ring per source), page by page', async () => {
    // The service runs with REJECTIONS_PER_SOURCE=10 (test/support/global-setup.ts).
    const hook = await createWebhook(api);
    for (let i = 0; i < 15; i++) {
      await ingest(api, { sourceId: hook.sourceId, token: 'trb_ing_flood' }, 'x', { 'x-attempt': String(i) });
    }
    const all = (await rejections(hook)).rejections;
    expect(all.map((rejection) => Number(rejection.headers['x-attempt']))).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
    const first = await rejections(hook, 4);
    expect(first.rejections).toHaveLength(4);
    const second = await api.get<{ rejections: Rejection[] }>(
      `/api/connections/${hook.connectionId}/rejections?limit=4&cursor=${first.next_cursor}`,
    );
    expect(second.body.rejections.map((rejection) => Number(rejection.headers['x-attempt']))).toEqual([10, 9, 8, 7]);
  });
});

describe('/metrics and connection stats', () => {
  function sampleOf(metrics: string, name: string, labels: Record<string, string>): number {
    const expected = Object.entries(labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, value]) => `${key}="${value}"`)
      .join(',');
    const series = expected ? `${name}{${expected}} ` : `${name} `;
    const line = metrics.split('\n').find((candidate) => candidate.startsWith(series));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  it('moves the counters by exactly what was sent, and stats agree', async () => {
    const hook = await createWebhook(api);
    // Each source's series in shards (here one), the platform's and all sources' at GET /metrics.
    const bySource = async () => (await api.get('/metrics?shards=1')).text;
    const platform = async () => (await api.get('/metrics')).text;
    expect(
      sampleOf(await bySource(), 'tributary_ingest_requests_total', {
        code: 'ACCEPTED',
        source_id: hook.sourceId,
        status: '202',
      }),
    ).toBe(0);
    const before = await platform();
    const allAccepted = (text: string) =>
      sampleOf(text, 'tributary_ingest_requests_total', { code: 'ACCEPTED', status: '202' });
    const batchesBefore = sampleOf(before, 'tributary_batches_committed_total', {});

    await Promise.all(Array.from({ length: 7 }, (_, i) => ingest(api, hook, JSON.stringify({ i }))));
    for (let i = 0; i < 3; i++) await ingest(api, { sourceId: hook.sourceId, token: 'trb_ing_wrong' }, 'x');
    await ingest(api, hook, '{}', {}, '?feed=.bad');
    await waitForRows(api, hook.dataSetId, 7);

    // Each figure is its own item, written one after the other and read one after the other: a
    // scrape may see the rows written before it sees the commit that wrote them counted.
    const after = await pollUntil(
      bySource,
      (text) =>
        sampleOf(text, 'tributary_ingest_requests_total', {
          code: 'ACCEPTED',
          source_id: hook.sourceId,
          status: '202',
        }) === 7 && sampleOf(text, 'tributary_envelopes_written_total', { source_id: hook.sourceId }) === 7,
    );
    // Other files send meanwhile: the figures of all sources moved by these at least.
    const platformAfter = await pollUntil(
      platform,
      (text) =>
        allAccepted(text) >= allAccepted(before) + 7 &&
        sampleOf(text, 'tributary_batches_committed_total', {}) > batchesBefore,
    );
    expect(platformAfter).not.toMatch(new RegExp(`source_id="${hook.sourceId}"`));
    expect(
      sampleOf(after, 'tributary_ingest_requests_total', { code: 'ACCEPTED', source_id: hook.sourceId, status: '202' }),
    ).toBe(7);
    expect(
      sampleOf(after, 'tributary_ingest_requests_total', {
        code: 'UNAUTHORIZED',
        source_id: hook.sourceId,
        status: '401',
      }),
    ).toBe(3);
    expect(
      sampleOf(after, 'tributary_ingest_requests_total', {
        code: 'INVALID_FEED',
        source_id: hook.sourceId,
        status: '400',
      }),
    ).toBe(1);
    expect(sampleOf(after, 'tributary_envelopes_written_total', { source_id: hook.sourceId })).toBe(7);

    const stats = await api.get<{ last_ingest_at: string; last_write_at: string }>(
      `/api/connections/${hook.connectionId}/stats`,
    );
    expect(stats.body).toEqual({
      accepted: 7,
      duplicates: 0,
      rejected: { UNAUTHORIZED: 3, INVALID_FEED: 1 },
      written_rows: 7,
      dead_lettered: 0,
      redriven: 0,
      deleted_dead_letters: 0,
      expired_rows: 0,
      lost_rows: 0,
      unaccounted: 0,
      staged_rows: 0,
      oldest_unwritten_age_seconds: null,
      commit_failure: null,
      last_ingest_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      last_write_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(stats.body.last_write_at >= stats.body.last_ingest_at).toBe(true);
    // The tenant's page of connections with their figures: the same figures, the connection beside them.
    const tenantStats = await api.get<{ connections: { connection: { connection_id: string }; stats: unknown }[] }>(
      `/api/tenants/${hook.tenantId}/stats`,
    );
    expect(tenantStats.status).toBe(200);
    expect(tenantStats.body).toEqual({
      connections: [{ connection: expect.objectContaining({ connection_id: hook.connectionId }), stats: stats.body }],
      next_cursor: null,
    });
  });

  it('serves the traffic of the last day per interval, for a connection and added up for its tenant', async () => {
    // Prepare: two connections of one tenant.
    const hook = await createWebhook(api);
    const second = await createWebhook(api, { tenantId: hook.tenantId });
    await Promise.all(Array.from({ length: 4 }, (_, i) => ingest(api, hook, JSON.stringify({ i }))));
    await ingest(api, { sourceId: hook.sourceId, token: 'trb_ing_wrong' }, 'x');
    await ingest(api, second, '{}');
    await waitForRows(api, hook.dataSetId, 4);
    await waitForRows(api, second.dataSetId, 1);

    // Act: the figures of every interval of the last day (the sends may straddle two).
    interface Interval {
      start: string;
      accepted: number;
      rejected: Record<string, number>;
      written_rows: number;
      dead_lettered: number;
    }
    const totalOf = (intervals: Interval[]) =>
      intervals.reduce(
        (sum, interval) => ({
          accepted: sum.accepted + interval.accepted,
          unauthorized: sum.unauthorized + (interval.rejected.UNAUTHORIZED ?? 0),
          written: sum.written + interval.written_rows,
          dead_lettered: sum.dead_lettered + interval.dead_lettered,
        }),
        { accepted: 0, unauthorized: 0, written: 0, dead_lettered: 0 },
      );
    const connection = await pollUntil(
      () =>
        api.get<{ from: string; to: string; step_seconds: number; intervals: Interval[] }>(
          `/api/connections/${hook.connectionId}/stats/history`,
        ),
      (response) => totalOf(response.body.intervals).accepted === 4 && totalOf(response.body.intervals).written === 4,
    );
    const tenant = await pollUntil(
      () =>
        api.get<{ connections: number; intervals: Interval[] }>(`/api/tenants/${hook.tenantId}/stats/history?step=1h`),
      // The door's count of accepted requests and the writer's of written rows are separate writes:
      // both figures must have arrived before the totals are read.
      (response) => totalOf(response.body.intervals).accepted === 5 && totalOf(response.body.intervals).written === 5,
    );

    // Assess
    expect(totalOf(connection.body.intervals)).toEqual({ accepted: 4, unauthorized: 1, written: 4, dead_lettered: 0 });
    expect(connection.body.step_seconds).toBe(900);
    // A day back from now, to the end of the current quarter hour, every interval listed.
    const [from, to] = [Date.parse(connection.body.from), Date.parse(connection.body.to)];
    expect(connection.body.intervals).toHaveLength((to - from) / 900_000);
    expect(Date.now() - from).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(Date.now() - from).toBeLessThan(24 * 3600_000 + 15 * 60_000 + 60_000);
    expect(to - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(tenant.body.connections).toBe(2);
    expect(totalOf(tenant.body.intervals)).toEqual({ accepted: 5, unauthorized: 1, written: 5, dead_lettered: 0 });
    const refused = await api.get<{ code: string }>(
      `/api/connections/${hook.connectionId}/stats/history?from=2026-01-02T00:00:00.000Z&to=2026-01-01T00:00:00.000Z`,
    );
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('lists each commit as a run, newest first, with its files, rows and bytes', async () => {
    const hook = await createWebhook(api);
    await ingest(api, hook, '1');
    await waitForRows(api, hook.dataSetId, 1);
    await Promise.all([ingest(api, hook, '2'), ingest(api, hook, '3')]);
    await waitForRows(api, hook.dataSetId, 3);
    const response = await api.get<{
      runs: { version: number; rows: number; files: number; bytes: number; duration_ms: number }[];
    }>(`/api/data-sets/${hook.dataSetId}/runs`);
    const runs = response.body.runs;
    for (const run of runs)
      expect(Object.keys(run).sort()).toEqual([
        'attempt',
        'bytes',
        'completed_at',
        'duration_ms',
        'files',
        'rows',
        'run_id',
        'started_at',
        'version',
      ]);
    expect(runs.map((run) => run.version)).toEqual([...runs.map((run) => run.version)].sort((a, b) => b - a));
    expect(runs.reduce((sum, run) => sum + run.rows, 0)).toBe(3);
    for (const run of runs) {
      expect(run.files).toBeGreaterThanOrEqual(1);
      expect(run.bytes).toBeGreaterThan(0);
      expect(run.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('searching events by what their bodies hold', () => {
  interface EventPage {
    events: { message_id: string; payload: string }[];
    next_cursor: string | null;
    files_read: number;
    bytes_read: number;
    events_scanned: number;
    files_left: number;
    scanned_back_to: string | null;
  }

  it('finds exactly the events whose raw body holds the text, across commits, in JSON, XML, other scripts and bytes', async () => {
    // Prepare: three commits, each waited for, of bodies of several kinds.
    const hook = await createWebhook(api);
    const send = async (body: string | Buffer, contentType: string) =>
      (await ingest(api, hook, body, { 'content-type': contentType })).body.message_id;
    const invoice = await send('{"type":"invoice.paid","data":{"object":{"id":"in_123"}}}', 'application/json');
    const other = await send('{"type":"invoice.paid","data":{"object":{"id":"in_124"}}}', 'application/json');
    await waitForRows(api, hook.dataSetId, 2);
    const xml = await send('<order id="in_123"><city>Zürich</city></order>', 'application/xml');
    const japanese = await send('{"message":"注文 in_123 を受け付けました"}', 'application/json; charset=utf-8');
    await waitForRows(api, hook.dataSetId, 4);
    const binary = await send(Buffer.from([0x00, 0xff, ...Buffer.from('in_123'), 0xfe]), 'application/octet-stream');
    const upper = await send('{"id":"IN_123"}', 'application/json');
    const location = await waitForRows(api, hook.dataSetId, 6);

    // Act
    const search = async (query: string) => {
      const response = await api.get<EventPage>(`/api/connections/${hook.connectionId}/events?${query}`);
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    const found = await search('contains=in_123');

    // Assess: against what was sent, and against the table as DuckDB reads it.
    expect(found.events.map((event) => event.message_id)).toEqual([binary, japanese, xml, invoice]);
    expect(found).toMatchObject({ next_cursor: null, files_left: 0, scanned_back_to: null, events_scanned: 6 });
    expect(found.files_read).toBeGreaterThanOrEqual(3);
    expect(found.bytes_read).toBeGreaterThan(0);
    const table = await readEnvelopeTable(location);
    expect(
      table.rows
        .filter((row) => row.payload.includes(Buffer.from('in_123')))
        .map((row) => row.message_id)
        .sort(),
    ).toEqual([binary, japanese, xml, invoice].sort());
    expect(Buffer.from(found.events[2]?.payload ?? '', 'base64').toString('utf8')).toBe(
      '<order id="in_123"><city>Zürich</city></order>',
    );

    const ids = async (query: string) => (await search(query)).events.map((event) => event.message_id);
    expect(await ids(`contains=${encodeURIComponent('Zürich')}`)).toEqual([xml]);
    expect(await ids(`contains=${encodeURIComponent('受け付け')}`)).toEqual([japanese]);
    expect(await ids('contains=IN_123')).toEqual([upper]);
    expect(await ids(`contains=${encodeURIComponent('in_123"}}}')}`)).toEqual([invoice]);
    expect(await ids(`json_path=${encodeURIComponent('$.data.object.id')}&json_equals=in_124`)).toEqual([other]);
    expect(await ids('contains=nowhere')).toEqual([]);

    for (const query of ['contains=', `contains=${encodeURIComponent('é'.repeat(501))}`, 'json_path=%24.a']) {
      const refused = await api.get<{ code: string }>(`/api/connections/${hook.connectionId}/events?${query}`);
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    }
  });
});

// The last three scenes wait on the queue (five receives, twice) or start a service of their own, each
// with its own connection and queues: they run side by side.
describe.concurrent('failed deliveries', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(env.AWS_ENDPOINT_URL_S3 as string);
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('lists envelopes that exhausted their deliveries with the reason, and redrives them into the table once', async () => {
    const hook = await createWebhook(api, { store: { endpoint: proxy.url } });
    proxy.failWhen(() => true);
    const sent = [
      (await ingest(api, hook, '{"n":1}')).body.message_id,
      (await ingest(api, hook, '{"n":2}')).body.message_id,
    ];

    // While their commits fail, the envelopes wait staged, and the stats say why.
    const waiting = await pollUntil(
      () =>
        api.get<{
          staged_rows: number;
          oldest_unwritten_age_seconds: number | null;
          commit_failure: { attempts: number; last_error: string } | null;
        }>(`/api/connections/${hook.connectionId}/stats`),
      (response) => response.body.commit_failure !== null && response.body.staged_rows === 2,
      { what: 'a failed commit in the stats', timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(waiting.body.oldest_unwritten_age_seconds).toEqual(expect.any(Number));
    expect(waiting.body.commit_failure?.last_error).toMatch(
      /^STORE_UNAVAILABLE: .*\(S3 error code ServiceUnavailable\)$/,
    );

    const listed = await pollUntil(
      () =>
        api.get<{
          failed_deliveries: { message_id: string; attempts: number; last_error: string; failed_at: string }[];
        }>(`/api/connections/${hook.connectionId}/failed-deliveries`),
      (response) => response.body.failed_deliveries.length === 2,
      // Five attempts a retry's wait apart: about 25 s on an idle machine, twice that on a loaded one.
      { what: 'two failed deliveries', timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(listed.body.failed_deliveries.map((failed) => failed.message_id).sort()).toEqual([...sent].sort());
    for (const failed of listed.body.failed_deliveries) {
      expect(failed.attempts).toBe(5);
      expect(failed.last_error).toMatch(/ServiceUnavailable|Injected fault|503/);
      expect(failed.last_error).toContain('store s3://demo-bucket/');
    }
    const stats = await pollUntil(
      () =>
        api.get<{
          dead_lettered: number;
          unaccounted: number;
          staged_rows: number;
          oldest_unwritten_age_seconds: number | null;
          commit_failure: unknown;
        }>(`/api/connections/${hook.connectionId}/stats`),
      (response) => response.body.dead_lettered === 2,
    );
    // Nothing waits for the table any more: the envelopes are failed deliveries now.
    expect(stats.body).toMatchObject({
      unaccounted: 0,
      staged_rows: 0,
      oldest_unwritten_age_seconds: null,
      commit_failure: null,
    });

    const unknown = await api.post(`/api/connections/${hook.connectionId}/failed-deliveries/redrive`, {
      json: { message_ids: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(unknown.status).toBe(404);

    proxy.failWhen(null);
    const redrive = (json: Record<string, unknown>) =>
      api.post<{ redriven: number; by_category: Record<string, number>; remaining: number }>(
        `/api/connections/${hook.connectionId}/failed-deliveries/redrive`,
        { json },
      );
    // Filters by the time of failure (to is exclusive) and by the category the error starts with.
    const [earliest] = listed.body.failed_deliveries.map((failed) => failed.failed_at).sort();
    const category = listed.body.failed_deliveries[0]?.last_error.split(':')[0];
    expect(category).toMatch(/^STORE_[A-Z]+$/);
    expect((await redrive({ to: earliest })).body).toEqual({ redriven: 0, by_category: {}, remaining: 0 });
    expect((await redrive({ error_category: 'ACCESS_DENIED' })).body).toEqual({
      redriven: 0,
      by_category: {},
      remaining: 0,
    });
    expect((await redrive({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' })).status).toBe(400);
    const one = await redrive({ message_ids: [sent[0]], error_category: category, from: earliest });
    expect(one.body).toEqual({ redriven: 1, by_category: { [category as string]: 1 }, remaining: 0 });
    const rest = await redrive({});
    expect(rest.body).toEqual({ redriven: 1, by_category: { [category as string]: 1 }, remaining: 0 });
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 2));
    expect(table.rows.map((row) => row.message_id).sort()).toEqual([...sent].sort());
    // Written after a redrive: accounted for again.
    expect(
      (
        await pollUntil(
          () =>
            api.get<{ written_rows: number; staged_rows: number; redriven: number; unaccounted: number }>(
              `/api/connections/${hook.connectionId}/stats`,
            ),
          (response) => response.body.written_rows === 2 && response.body.staged_rows === 0,
        )
      ).body,
    ).toMatchObject({ written_rows: 2, dead_lettered: 2, redriven: 2, unaccounted: 0 });
    expect(
      (await api.get<{ failed_deliveries: unknown[] }>(`/api/connections/${hook.connectionId}/failed-deliveries`)).body
        .failed_deliveries,
    ).toEqual([]);
    expect((await redrive({})).body).toEqual({ redriven: 0, by_category: {}, remaining: 0 });
  });
});

describe.concurrent('a message the writer cannot read as an envelope', () => {
  it("becomes a failed delivery of its connection with the writer's reason, and a redrive puts it back as it was", async () => {
    const hook = await createWebhook(api);
    const sqs = new SQSClient({
      endpoint: env.AWS_ENDPOINT_URL_SQS,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ingest' }));
    const messageId = randomUUID();
    // An envelope with a field this writer does not know (as a newer door would send it).
    const body = JSON.stringify({
      v: 1,
      message_id: messageId,
      data_set_id: hook.dataSetId,
      dt: new Date().toISOString().slice(0, 10),
      ingested_at_us: String(Date.now() * 1000),
      source_id: hook.sourceId,
      tenant_id: hook.tenantId,
      content_type: 'application/json',
      payload_size: 2,
      payload: 'e30=',
      priority: 'high',
    });
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
    sqs.destroy();
    const failedDeliveries = () =>
      api.get<{ failed_deliveries: { message_id: string; last_error: string; attempts: number }[] }>(
        `/api/connections/${hook.connectionId}/failed-deliveries`,
      );
    const listed = await pollUntil(failedDeliveries, (response) => response.body.failed_deliveries.length === 1, {
      what: 'the unreadable message as a failed delivery',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    expect(listed.body.failed_deliveries[0]).toMatchObject({
      message_id: messageId,
      attempts: 5,
      last_error: 'Unreadable envelope: envelope: Unrecognized key: "priority"',
    });
    const redriven = await api.post<{ redriven: number }>(
      `/api/connections/${hook.connectionId}/failed-deliveries/redrive`,
      { json: {} },
    );
    expect(redriven.body).toMatchObject({ redriven: 1 });
    // Still unread by this writer: back as a failed delivery, its body unchanged.
    const again = await pollUntil(failedDeliveries, (response) => response.body.failed_deliveries.length === 1, {
      what: 'the redriven message as a failed delivery again',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    expect(again.body.failed_deliveries[0]?.last_error).toBe(
      'Unreadable envelope: envelope: Unrecognized key: "priority"',
    );
  });
});

describe.concurrent('a loss between acceptance and the table', () => {
  let lossy: RuntimeProcess;
  beforeAll(async () => {
    // Its own queues and no consumers: what is accepted waits on the queue, where the test loses it.
    lossy = await startRuntimeProcess({
      ...env,
      LOCAL_QUEUE_PREFIX: 'lossy-',
      TABLE_NAME: 'lossy-tributary',
      LOCAL_POLLERS_PER_CONSUMER: '0',
      COUNTER_FLUSH_SECONDS: '1',
    });
  });
  afterAll(async () => {
    await lossy?.stop();
  });

  it('shows in the stats as accepted envelopes that stay unaccounted for with the queue idle', async () => {
    const local = apiClient(lossy.url);
    const hook = await createWebhook(local);
    for (let i = 0; i < 3; i++) expect((await ingest(local, hook, JSON.stringify({ i }))).status).toBe(202);

    const sqs = new SQSClient({
      endpoint: env.AWS_ENDPOINT_URL_SQS,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'lossy-ingest' }));
    let lost = 0;
    while (lost < 3) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      for (const message of Messages) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
        lost++;
      }
    }
    sqs.destroy();

    const stats = await pollUntil(
      () =>
        local.get<{ accepted: number; written_rows: number; unaccounted: number }>(
          `/api/connections/${hook.connectionId}/stats`,
        ),
      (response) => response.body.accepted === 3,
    );
    expect(stats.body).toMatchObject({ accepted: 3, written_rows: 0, dead_lettered: 0, unaccounted: 3 });
    // This service's table holds this test's counts alone: the figures of all sources are exactly its own.
    const metrics = await pollUntil(
      async () => (await local.get('/metrics')).text,
      (text) => /^tributary_envelopes_unaccounted 3$/m.test(text),
    );
    expect(
      metrics.split('\n').filter((line) => /^tributary_(ingest_requests|envelopes_written)_total/.test(line)),
    ).toEqual(['tributary_ingest_requests_total{code="ACCEPTED",status="202"} 3']);
  });
});
