import { randomBytes } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { listKeys, localS3, readEnvelopeTable } from '../support/delta.ts';
import { createTenant } from '../support/fixtures.ts';
import { pollUntil } from '../support/poll.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const api = apiClient();

async function expectError(response: { status: number; body: unknown }, status: number, code: string) {
  expect({ status: response.status, code: (response.body as { code?: string }).code }).toEqual({ status, code });
}

describe('ingest gating, in the contract order', () => {
  let hook: Webhook;
  let other: Webhook;
  beforeAll(async () => {
    [hook, other] = await Promise.all([createWebhook(api), createWebhook(api)]);
  });

  it('1. no bearer token → 401, before anything else (even for an unknown source)', async () => {
    await expectError(await api.post(`/api/ingest/${hook.sourceId}`, { key: null, raw: '{}' }), 401, 'UNAUTHORIZED');
    await expectError(await api.post('/api/ingest/no-such-source', { key: null, raw: '{}' }), 401, 'UNAUTHORIZED');
    await expectError(
      await api.post(`/api/ingest/${hook.sourceId}`, {
        key: null,
        raw: '{}',
        headers: { authorization: `Basic ${hook.token}` },
      }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('2. unknown source → 404, even with a valid token of another source', async () => {
    await expectError(
      await ingest(api, { sourceId: '5f0c8c3e-0000-4000-8000-000000000000', token: hook.token }, '{}'),
      404,
      'NOT_FOUND',
    );
  });

  it('3. a token of another source → 401; tokens are bound to one source', async () => {
    await expectError(await ingest(api, { sourceId: hook.sourceId, token: other.token }, '{}'), 401, 'UNAUTHORIZED');
    await expectError(
      await ingest(api, { sourceId: hook.sourceId, token: 'trb_ing_wrong' }, '{}'),
      401,
      'UNAUTHORIZED',
    );
  });

  it('4. a malformed feed → 400 INVALID_FEED; a valid one is accepted and ignored', async () => {
    for (const feed of ['', '-x', 'a b', 'x'.repeat(65), 'a/b', 'a,b']) {
      await expectError(await ingest(api, hook, '{}', {}, `?feed=${encodeURIComponent(feed)}`), 400, 'INVALID_FEED');
    }
    expect((await ingest(api, hook, '{}', {}, '?feed=orders.v2_eu-1')).status).toBe(202);
  });

  it('5. a suspended tenant → 422 TENANT_SUSPENDED, before a paused source or inactive connection', async () => {
    const suspended = await createWebhook(api);
    await api.post(`/api/connections/${suspended.connectionId}/pause-source`);
    await api.post(`/api/connections/${suspended.connectionId}/deactivate`);
    await api.post(`/api/tenants/${suspended.tenantId}/suspend`);
    await expectError(await ingest(api, suspended, '{}', {}, '?feed=ok'), 422, 'TENANT_SUSPENDED');
    await expectError(await ingest(api, suspended, '{}', {}, '?feed=-bad'), 400, 'INVALID_FEED');
  });

  it('6. a paused source → 422 SOURCE_PAUSED, before an inactive connection; resuming restores ingest', async () => {
    const paused = await createWebhook(api);
    await api.post(`/api/connections/${paused.connectionId}/pause-source`);
    await api.post(`/api/connections/${paused.connectionId}/deactivate`);
    await expectError(await ingest(api, paused, '{}'), 422, 'SOURCE_PAUSED');
    await api.post(`/api/connections/${paused.connectionId}/resume-source`);
    await expectError(await ingest(api, paused, '{}'), 422, 'CONNECTION_NOT_ACTIVE');
    await api.post(`/api/connections/${paused.connectionId}/activate`);
    expect((await ingest(api, paused, '{}')).status).toBe(202);
  });

  it('7. an inactive connection → 422 CONNECTION_NOT_ACTIVE, before a missing object store', async () => {
    const bare = await createWebhook(api, { store: null });
    await api.post(`/api/connections/${bare.connectionId}/deactivate`);
    await expectError(await ingest(api, bare, '{}'), 422, 'CONNECTION_NOT_ACTIVE');
  });

  it('8. no object store → 422 OBJECT_STORE_NOT_CONFIGURED, before an oversized body', async () => {
    const bare = await createWebhook(api, { store: null });
    await expectError(await ingest(api, bare, '{}'), 422, 'OBJECT_STORE_NOT_CONFIGURED');
    await expectError(await ingest(api, bare, Buffer.alloc(1024 * 1024 + 1)), 422, 'OBJECT_STORE_NOT_CONFIGURED');
  });

  it('9. a body over 1 MiB → 413; exactly 1 MiB is accepted', async () => {
    await expectError(await ingest(api, hook, Buffer.alloc(1024 * 1024 + 1, 0x61)), 413, 'PAYLOAD_TOO_LARGE');
    expect((await ingest(api, hook, Buffer.alloc(1024 * 1024, 0x61))).status).toBe(202);
  });

  it('10. otherwise 202 with the message id', async () => {
    const response = await ingest(api, hook, '{"ok":true}', { 'content-type': 'application/json' });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ message_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });
});

describe('round trip through the Delta table', () => {
  it('stores JSON, XML, empty, binary and unlabelled bodies byte-exact with the envelope types', async () => {
    const hook = await createWebhook(api);
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const sent = [
      { body: Buffer.from('{"event":"push","ü":"✓"}'), contentType: 'application/json' as string | null },
      {
        body: Buffer.from('<?xml version="1.0"?><order id="1">é</order>'),
        contentType: 'application/xml; charset=utf-8',
      },
      { body: Buffer.alloc(0), contentType: 'text/plain' },
      { body: allBytes, contentType: 'application/octet-stream' },
      { body: allBytes, contentType: 'application/json' },
      { body: Buffer.from('no content type'), contentType: null },
      { body: Buffer.from('x'), contentType: 'Application/Weird+Thing ; Q=1' },
    ];
    const ids: string[] = [];
    for (const item of sent) {
      const response = await ingest(
        api,
        hook,
        item.body,
        item.contentType === null ? {} : { 'content-type': item.contentType },
      );
      expect(response.status).toBe(202);
      ids.push(response.body.message_id);
    }
    const location = await waitForRows(api, hook.dataSetId, sent.length);
    const table = await readEnvelopeTable(location);

    expect(table.types).toEqual({
      message_id: 'VARCHAR',
      ingested_at: 'TIMESTAMP WITH TIME ZONE',
      source_id: 'VARCHAR',
      tenant_id: 'VARCHAR',
      content_type: 'VARCHAR',
      payload_size: 'BIGINT',
      payload: 'VARCHAR',
      headers: 'VARCHAR',
    });
    const byId = new Map(table.rows.map((row) => [row.message_id, row]));
    sent.forEach((item, index) => {
      const row = byId.get(ids[index] as string);
      expect(row?.payload.equals(item.body), `payload ${index} is byte-exact`).toBe(true);
      expect(row?.content_type).toBe(item.contentType);
      expect(row?.payload_size).toBe(item.body.length);
      expect(row?.source_id).toBe(hook.sourceId);
      expect(row?.tenant_id).toBe(hook.tenantId);
      expect(row?.dt).toBe(row?.ingested_at.slice(0, 10));
      expect(row?.ingested_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    });
  });

  it('carries a body too large for a queue message by claim check, byte-exact, and cleans the claim up', async () => {
    const hook = await createWebhook(api);
    const body = randomBytes(700 * 1024);
    const response = await ingest(api, hook, body, { 'content-type': 'application/octet-stream' });
    expect(response.status).toBe(202);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 1));
    expect(table.rows[0]?.payload.equals(body)).toBe(true);
    // The claim goes once the commit is counted, a few steps after its log entry that the rows are read from.
    const claims = await pollUntil(
      () => listKeys(localS3(), 'tributary-platform', `claims/${hook.dataSetId}/`),
      (keys) => keys.length === 0,
      { what: 'the claim check removed after its commit' },
    );
    expect(claims).toEqual([]);
  });

  it('stores a replayed request again, as a new row with a new message id', async () => {
    const hook = await createWebhook(api);
    const first = await ingest(api, hook, '{"same":1}');
    const second = await ingest(api, hook, '{"same":1}');
    expect(first.body.message_id).not.toBe(second.body.message_id);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 2));
    expect(table.rows.map((row) => row.message_id).sort()).toEqual(
      [first.body.message_id, second.body.message_id].sort(),
    );
  });

  it('keeps a valid log over many commits: consecutive versions, every file present and counted', async () => {
    const hook = await createWebhook(api);
    for (let batch = 0; batch < 4; batch++) {
      await Promise.all(Array.from({ length: 15 }, (_, i) => ingest(api, hook, JSON.stringify({ batch, i }))));
      await waitForRows(api, hook.dataSetId, (batch + 1) * 15);
    }
    const table = await readEnvelopeTable(
      (await api.get<{ storage_location: string }>(`/api/data-sets/${hook.dataSetId}`)).body.storage_location,
    );
    expect(table.versions.length).toBeGreaterThanOrEqual(4);
    expect(new Set(table.rows.map((row) => row.message_id)).size).toBe(60);
    const dataSet = await api.get<{ version: number; status: string }>(`/api/data-sets/${hook.dataSetId}`);
    expect(dataSet.body).toMatchObject({ version: table.versions.length - 1, status: 'Active' });
  });
});

describe('a freshness target of seconds', () => {
  it('commits each wave of webhooks by its own commit trigger, 2 s after it arrives: 14 waves, each in commits of its own', {
    timeout: 180_000,
  }, async () => {
    // The service commits every table at once (TABLE_FRESHNESS_SECONDS 0); this one waits 2 s, which
    // the writer cannot wait for: its commit trigger, delayed until the table is due, brings a
    // committer. The table-commits schedule commits nothing (its backstop acts only a minute late).
    const hook = await createWebhook(api);
    const set = await api.put(`/api/data-sets/${hook.dataSetId}/table-properties`, {
      json: { properties: { 'tributary.freshness': '2 seconds' } },
    });
    expect(set.status).toBe(200);
    for (let wave = 0; wave < 14; wave++) {
      await Promise.all(Array.from({ length: 5 }, (_, i) => ingest(api, hook, JSON.stringify({ wave, i }))));
      await waitForRows(api, hook.dataSetId, (wave + 1) * 5);
    }
    const runs = await api.get<{ runs: { operation: string; rows: number; version: number }[] }>(
      `/api/data-sets/${hook.dataSetId}/runs?limit=100`,
    );
    const writes = runs.body.runs.filter((run) => run.rows > 0).sort((a, b) => a.version - b.version);
    // No commit holds two waves (each wave is sent once the one before is in the table), so the
    // rows committed so far pass through every wave's end. A wave's five requests take one commit
    // when they reach one writer batch; on a busy machine a straggler may take a second, 2 s later.
    const committedSoFar = writes.map((_, i) => writes.slice(0, i + 1).reduce((sum, run) => sum + run.rows, 0));
    expect(committedSoFar.filter((rows) => rows % 5 === 0)).toEqual(
      Array.from({ length: 14 }, (_, wave) => (wave + 1) * 5),
    );
    expect(writes.length).toBeLessThanOrEqual(28);
  });
});

describe('staged objects', () => {
  /** The staged objects of the platform bucket that hold this table's envelopes, each with the tables it holds. */
  async function stagedHolding(dataSetId: string) {
    const s3 = localS3();
    const found: { key: string; tables: string[] }[] = [];
    for (const { key } of await listKeys(s3, 'tributary-platform', 'staging/')) {
      const object = await s3.send(new GetObjectCommand({ Bucket: 'tributary-platform', Key: key })).catch(() => null);
      const text = (await object?.Body?.transformToString()) ?? '';
      const tables = [
        ...new Set(
          text
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => (JSON.parse(line) as { data_set_id: string }).data_set_id),
        ),
      ];
      if (tables.includes(dataSetId)) found.push({ key, tables });
    }
    return found;
  }

  it("are removed by the committer once they held only one table's envelopes and those are in the table", async () => {
    const hook = await createWebhook(api);
    await api.put(`/api/data-sets/${hook.dataSetId}/table-properties`, {
      json: { properties: { 'tributary.freshness': '2 seconds' } },
    });
    for (let i = 0; i < 3; i++) await ingest(api, hook, JSON.stringify({ i }));
    await waitForRows(api, hook.dataSetId, 3);
    // Objects that also hold other tables' envelopes (other tests' webhooks in the same batch) stay.
    await pollUntil(
      () => stagedHolding(hook.dataSetId),
      (found) => found.every((object) => object.tables.length > 1),
      { what: "this table's own staged objects to be removed" },
    );
  });
});

describe('connections', () => {
  it('creates a connection with its data set, shows it, and regenerates its token', async () => {
    const tenantId = await createTenant(api);
    const created = await api.post<{
      connection_id: string;
      source_id: string;
      data_set_id: string;
      ingest_token: string;
      ingest_url: string;
    }>(`/api/tenants/${tenantId}/connections`, { json: { type: 'Webhook', name: 'github' } });
    expect(created.status).toBe(201);
    expect(created.body.ingest_token).toMatch(/^trb_ing_/);
    expect(created.body.ingest_url).toBe(`${api.baseUrl}/api/ingest/${created.body.source_id}`);

    const connection = await api.get<Record<string, unknown>>(`/api/connections/${created.body.connection_id}`);
    expect(connection.body).toMatchObject({
      tenant_id: tenantId,
      type: 'Webhook',
      name: 'github',
      status: 'Active',
      source_status: 'Active',
      source_id: created.body.source_id,
      data_set_id: created.body.data_set_id,
      token_prefix: created.body.ingest_token.slice(0, 12),
      ingest_url: created.body.ingest_url,
    });
    expect(connection.text).not.toContain(created.body.ingest_token);
    const listed = await api.get<{ connections: { connection_id: string }[] }>(`/api/tenants/${tenantId}/connections`);
    expect(listed.body.connections.map((c) => c.connection_id)).toEqual([created.body.connection_id]);

    const dataSet = await api.get<Record<string, unknown>>(`/api/data-sets/${created.body.data_set_id}`);
    expect(Object.keys(dataSet.body).sort()).toEqual([
      'created_at',
      'data_set_id',
      'data_set_type',
      'iceberg',
      'name',
      'object_store_id',
      'origin',
      'partitioning',
      'schema_json',
      'status',
      'storage_location',
      'storage_tier',
      'tenant_id',
      'tenant_slug',
      'updated_at',
      'version',
    ]);
    expect(dataSet.body).toMatchObject({
      status: 'Pending',
      version: null,
      iceberg: null,
      storage_location: null,
      object_store_id: null,
      data_set_type: 'Delta',
      storage_tier: 'Tributary',
      origin: { type: 'Webhook', connection_id: created.body.connection_id, source_id: created.body.source_id },
      partitioning: { columns: ['dt'], granularity: 'day' },
    });

    const hook = { sourceId: created.body.source_id, token: created.body.ingest_token };
    const regenerated = await api.post<{ ingest_token: string }>(
      `/api/connections/${created.body.connection_id}/regenerate-token`,
    );
    expect(regenerated.status).toBe(200);
    await expectError(await ingest(api, hook, '{}'), 401, 'UNAUTHORIZED');
    await expectError(
      await ingest(api, { ...hook, token: regenerated.body.ingest_token }, '{}'),
      422,
      'OBJECT_STORE_NOT_CONFIGURED',
    );
  });

  it('answers 409 for a state the connection is already in, and 404 after deletion', async () => {
    const hook = await createWebhook(api);
    expect((await api.post(`/api/connections/${hook.connectionId}/activate`)).status).toBe(409);
    expect((await api.post(`/api/connections/${hook.connectionId}/resume-source`)).status).toBe(409);
    expect((await api.delete(`/api/connections/${hook.connectionId}`)).status).toBe(204);
    expect((await api.get(`/api/connections/${hook.connectionId}`)).status).toBe(404);
    await expectError(await ingest(api, hook, '{}'), 404, 'NOT_FOUND');
  });
});

describe('data sets', () => {
  it('lists by tenant, serves the files with working download URLs, and deletes only once nothing writes to it', async () => {
    const hook = await createWebhook(api);
    await ingest(api, hook, 'hello');
    const location = await waitForRows(api, hook.dataSetId, 1);

    const listed = await api.get<{ data_sets: { data_set_id: string }[] }>(`/api/data-sets?tenant_id=${hook.tenantId}`);
    expect(listed.body.data_sets.map((d) => d.data_set_id)).toEqual([hook.dataSetId]);

    const files = await api.get<{ version: number; files: { path: string; size: number; url: string }[] }>(
      `/api/data-sets/${hook.dataSetId}/files`,
    );
    const parsed = files.body;
    expect(parsed.version).toBe(0);
    expect(Object.keys(parsed.files[0] ?? {}).sort()).toEqual([
      'num_records',
      'partition_values',
      'path',
      'size',
      'url',
    ]);
    const download = await fetch(parsed.files[0]?.url as string);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBe(parsed.files[0]?.size);

    await expectError(await api.delete(`/api/data-sets/${hook.dataSetId}`), 409, 'CONFLICT');
    expect((await api.delete(`/api/connections/${hook.connectionId}`)).status).toBe(204);
    expect((await api.delete(`/api/data-sets/${hook.dataSetId}`)).status).toBe(204);
    expect((await api.get(`/api/data-sets/${hook.dataSetId}`)).status).toBe(404);
    const prefix = location.replace('s3://demo-bucket/', '');
    expect(await listKeys(localS3(), 'demo-bucket', prefix)).toEqual([]);
  });
});
