/**
 * Reading an item checks its shape: a well-formed item reads as the domain value (the table's own
 * attributes left behind, absent nullable fields as null), and a malformed one fails, naming the
 * entity, the field and the item's key, instead of handing `undefined` on. The table's client
 * answers with literal items written out here.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobs, leases } from '#shared/adapters/dynamo/jobs.ts';
import { getSource } from '#shared/adapters/dynamo/sources.ts';
import { stagedRecords } from '#shared/adapters/dynamo/staging-heads.ts';
import { MalformedItemError } from '#shared/adapters/dynamo/stored-items.ts';
import { db } from '#shared/adapters/dynamo/table.ts';
import { getTenant } from '#shared/adapters/dynamo/tenants.ts';
import { findUserIdByEmail, getUser } from '#shared/adapters/dynamo/users.ts';
import { addBySource } from '#shared/domain/ingest/staging.ts';

const saved = { ...process.env };
beforeAll(() => {
  process.env.TABLE_NAME = 'tributary';
});
afterAll(() => {
  process.env = saved;
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The table answers every request with `answer`. */
function tableAnswers(answer: Record<string, unknown>) {
  return vi.spyOn(db, 'send').mockResolvedValue(answer as never);
}

async function failure(promise: Promise<unknown>): Promise<MalformedItemError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MalformedItemError);
  return error as MalformedItemError;
}

const tenantItem = {
  pk: 'TENANT#t-1',
  sk: 'TENANT',
  entity: 'Tenant',
  gsi1pk: 'TENANTS',
  gsi1sk: '2026-01-02T03:04:05.000Z#t-1',
  tenant_id: 't-1',
  name: 'Acme',
  slug: 'acme',
  status: 'Active',
  aws_external_id: 'tributary-external-id-1',
  created_at: '2026-01-02T03:04:05.000Z',
  updated_at: '2026-01-02T03:04:05.000Z',
};

const sourceItem = {
  pk: 'SOURCE#s-1',
  sk: 'SOURCE',
  entity: 'Source',
  source_id: 's-1',
  connection_id: 'c-1',
  tenant_id: 't-1',
  data_set_id: 'd-1',
  token_hash: 'f'.repeat(64),
  source_status: 'Active',
  connection_status: 'Active',
};

describe('reading a tenant item', () => {
  it('gives the tenant alone, with the nullable fields an older item lacks as null', async () => {
    tableAnswers({ Item: tenantItem });
    expect(await getTenant('t-1')).toEqual({
      tenant_id: 't-1',
      name: 'Acme',
      slug: 'acme',
      status: 'Active',
      sites: null,
      default_object_store_id: null,
      idp_org_id: null,
      aws_external_id: 'tributary-external-id-1',
      created_at: '2026-01-02T03:04:05.000Z',
      updated_at: '2026-01-02T03:04:05.000Z',
    });
  });

  it('fails on a status the service does not know, naming the entity, the field and the key', async () => {
    tableAnswers({ Item: { ...tenantItem, status: 'Archived' } });
    const error = await failure(getTenant('t-1'));
    expect([error.entity, error.field, error.key]).toEqual(['Tenant', 'status', 'TENANT#t-1 / TENANT']);
    expect(error.message).toMatch(/^A stored Tenant item \(TENANT#t-1 \/ TENANT\) is malformed: status: /);
  });

  it('gives a tenant written before external ids were generated the one derived from its id', async () => {
    const { aws_external_id: _, ...earlier } = tenantItem;
    tableAnswers({ Item: { ...earlier, tenant_id: '0b9f6c2e-3f4a-4d7b-9c1e-5a6b7c8d9e0f' } });
    expect((await getTenant('0b9f6c2e-3f4a-4d7b-9c1e-5a6b7c8d9e0f'))?.aws_external_id).toBe(
      'tributary-0b9f6c2e3f4a4d7b9c1e5a6b7c8d9e0f',
    );
  });

  it('fails on a missing name instead of reading it as undefined', async () => {
    const { name: _, ...nameless } = tenantItem;
    tableAnswers({ Item: nameless });
    const error = await failure(getTenant('t-1'));
    expect([error.entity, error.field]).toEqual(['Tenant', 'name']);
  });
});

describe('reading a source item (what ingest reads on every webhook)', () => {
  it('gives a source made before security settings existed the default settings', async () => {
    tableAnswers({ Item: sourceItem });
    expect((await getSource('s-1'))?.security).toEqual({
      auth_mode: 'bearer',
      signature: null,
      dedup_window_seconds: 0,
      dedup_key: null,
      rate_limit: null,
      ip_allowlist: null,
    });
  });

  it('fails on settings whose signing secret lost its sealed value, naming the path inside the item', async () => {
    tableAnswers({
      Item: {
        ...sourceItem,
        security: {
          auth_mode: 'signature',
          signature: {
            scheme: 'github',
            header: null,
            encoding: null,
            tolerance_seconds: null,
            secrets: [{ created_at: '2026-01-02T03:04:05.000Z', expires_at: null }],
          },
          dedup_window_seconds: 0,
          rate_limit: null,
          ip_allowlist: null,
        },
      },
    });
    const error = await failure(getSource('s-1'));
    expect([error.entity, error.field, error.key]).toEqual([
      'Source',
      'security.signature.secrets.0.sealed',
      'SOURCE#s-1 / SOURCE',
    ]);
  });
});

describe('reading other entities', () => {
  it('fails on a job in a list whose row count is text', async () => {
    const job = {
      pk: 'JOB#j-1',
      sk: 'JOB',
      job_id: 'j-1',
      tenant_id: 't-1',
      job_type: 'Query',
      status: 'Succeeded',
      partition_key: 'j-1',
      payload: { limit: 10 },
      source: { data_set_id: 'd-1' },
      rows_in: '12',
      created_at: '2026-01-02T03:04:05.000Z',
      updated_at: '2026-01-02T03:04:05.000Z',
    };
    tableAnswers({ Items: [job] });
    const error = await failure(jobs.listJobsByTenant('t-1', {}, { limit: 10 }));
    expect([error.entity, error.field, error.key]).toEqual(['Job', 'rows_in', 'JOB#j-1 / JOB']);
  });

  it('never shows the value it found: a password hash of the wrong type is named, not printed', async () => {
    tableAnswers({
      Item: {
        pk: 'USER#u-1',
        sk: 'USER',
        user_id: 'u-1',
        email: 'ada@example.org',
        role: 'TenantAdmin',
        status: 'Active',
        tenant_id: 't-1',
        password_hash: 987654321,
        created_at: '2026-01-02T03:04:05.000Z',
        updated_at: '2026-01-02T03:04:05.000Z',
      },
    });
    const error = await failure(getUser('u-1'));
    expect([error.entity, error.field]).toEqual(['User', 'password_hash']);
    expect(error.message).not.toContain('987654321');
  });

  it('reads the jobs waiting behind a lease as the string set DynamoDB keeps, and fails on a list', async () => {
    const lease = { pk: 'JOB_LEASES', sk: 'pipeline-1', entity: 'JobLease', job_id: 'j-1', runner_id: 'r-1' };
    tableAnswers({ Attributes: { ...lease, waiting_job_ids: new Set(['j-3', 'j-2']) } });
    expect((await leases.releaseLease('pipeline-1', 'j-1', 'r-1')).sort()).toEqual(['j-2', 'j-3']);
    tableAnswers({ Attributes: { ...lease, waiting_job_ids: ['j-2'] } });
    const error = await failure(leases.releaseLease('pipeline-1', 'j-1', 'r-1'));
    expect([error.entity, error.field, error.key]).toEqual(['JobLease', 'waiting_job_ids', 'JOB_LEASES / pipeline-1']);
  });

  it('fails on an email claim that names no user', async () => {
    tableAnswers({ Item: { pk: 'USER_EMAIL#ada@example.org', sk: 'USER_EMAIL', entity: 'UserEmail' } });
    const error = await failure(findUserIdByEmail('Ada@example.org'));
    expect([error.entity, error.field]).toEqual(['UserEmail', 'user_id']);
  });

  it("reads a staging head's leases of runs of records, and a lease written before them as one of every record", async () => {
    const head = { pk: 'STAGE#ds-1', sk: 'HEAD', entity: 'StagingHead', data_set_id: 'ds-1', v: 7 };
    const run = {
      holder: 'committer-2',
      until: 1_800_000_060_000,
      first: '1800000000000-aaaa0001',
      last: '1800000000500-aaaa0002',
    };
    tableAnswers({ Item: { ...head, leases: [run] } });
    expect((await stagedRecords.head('ds-1')).leases).toEqual([run]);
    tableAnswers({ Item: { ...head, lease_holder: 'committer-1', lease_until: 1_800_000_060_000 } });
    const [old] = (await stagedRecords.head('ds-1')).leases;
    expect(old).toMatchObject({ holder: 'committer-1', until: 1_800_000_060_000 });
    // Every record id there can be sorts within it: the oldest and newest a 13-digit time can give.
    for (const id of ['0000000000000-00000000', '9999999999999-ffffffff'])
      expect((old?.first ?? 'z') <= id && id <= (old?.last ?? '')).toBe(true);
    // Written back as the leases of now, the single lease's fields gone.
    const { version, ...rest } = await stagedRecords.head('ds-1');
    const send = tableAnswers({});
    expect(await stagedRecords.replaceHead('ds-1', version, rest)).toBe(true);
    const [put] = (send.mock.lastCall ?? []) as unknown as [{ input: { Item: Record<string, unknown> } }?];
    const item = put?.input.Item ?? {};
    expect(item.leases).toEqual([
      { holder: 'committer-1', until: 1_800_000_060_000, first: old?.first, last: old?.last },
    ]);
    expect(item).not.toHaveProperty('lease_holder');
    tableAnswers({ Item: { ...head, leases: [{ holder: 'c' }] } });
    const error = await failure(stagedRecords.head('ds-1'));
    expect([error.entity, error.field]).toEqual(['StagingHead', 'leases.0.until']);
  });

  it("keeps a staged record's rows by source, and reads a record staged before them as rows of no source", async () => {
    const record = {
      id: '1800000000000-aaaa0001',
      key: 'staging/2027-01-15/03/1800000000000-aaaa0001.ndjson',
      objectSize: 4096,
      offset: 0,
      length: 1024,
      rows: 3,
      oldest: 1_800_000_000_000,
      bytes: 900,
      sources: { '5a9e3c1d-0000-4000-8000-000000000001': 3 },
    };
    const send = tableAnswers({});
    await stagedRecords.write([{ tableId: 'ds-1', record }], Number.POSITIVE_INFINITY);
    const [batch] = (send.mock.lastCall ?? []) as unknown as [
      { input: { RequestItems: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> } }?,
    ];
    // Whatever the table's name (another file of the same worker may have set TABLE_NAME first).
    const item = Object.values(batch?.input.RequestItems ?? {})[0]?.[0]?.PutRequest.Item ?? {};
    expect(item.sources).toEqual({ '5a9e3c1d-0000-4000-8000-000000000001': 3 });
    // One source's record stays well under a write unit (1 KB).
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(512);
    const { id, objectSize, sources, ...fields } = record;
    const stored = { pk: 'STAGE#ds-1', entity: 'StagedSlice', object_size: objectSize, ...fields };
    tableAnswers({
      Items: [
        { ...stored, sk: `B#${id}`, sources },
        { ...stored, sk: 'B#1800000000001-aaaa0002', rows: 2 },
      ],
    });
    const read = await stagedRecords.pending('ds-1', null);
    expect(read[0]).toEqual(record);
    expect(read[1]).not.toHaveProperty('sources');
    expect(addBySource({ bySource: new Map(), unattributed: 0 }, read)).toEqual({
      bySource: new Map([['5a9e3c1d-0000-4000-8000-000000000001', 3]]),
      unattributed: 2,
    });
  });
});
