/**
 * The Iceberg REST catalog as a client the project did not write meets it: iceberg-js (an
 * implementation of the Apache Iceberg REST Catalog API), after the OAuth2 token exchange an Iceberg
 * engine makes. Every answer read through the suite's own client is also checked against the
 * OpenAPI document the service serves.
 *
 * A webhook's table is loaded after its first commit: its `metadata-location` is where
 * `version-hint.text` points, and the metadata's current snapshot mirrors the data set's Delta
 * version (`delta-version` in its summary). Where the service does not write Iceberg metadata for a
 * committed table (a deployment without the Iceberg writer), the test writes the minimal metadata
 * a file-system catalog holds into the table's prefix itself, so that the catalog's reading of a
 * table's metadata directory is what is checked.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { type IcebergError, IcebergRestCatalog } from 'iceberg-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ApiClient, apiClient } from '../support/api.ts';
import { localS3 } from '../support/delta.ts';
import { createTenantWithUsers, createUser, type TestTenant } from '../support/fixtures.ts';
import { createWebhook, ingest, type Webhook, waitForRows } from '../support/webhooks.ts';

const baseUrl = inject('baseUrl');
const api: ApiClient = apiClient(baseUrl, inject('adminKey'));
const catalogUri = `${baseUrl}/iceberg`;

interface World {
  tenant: TestTenant;
  slug: string;
  hook: Webhook;
  /** A second connection's data set, never written to. */
  pendingDataSetId: string;
}

async function world(): Promise<World> {
  const tenant = await createTenantWithUsers(api);
  const hook = await createWebhook(api, { tenantId: tenant.tenantId });
  const pending = await api.post<{ data_set_id: string }>(`/api/tenants/${tenant.tenantId}/connections`, {
    json: { type: 'Webhook', name: 'pending' },
  });
  const slug = (await api.get<{ slug: string }>(`/api/tenants/${tenant.tenantId}`)).body.slug;
  return { tenant, slug, hook, pendingDataSetId: pending.body.data_set_id };
}

/** The OAuth2 client-credentials exchange, as Spark, Trino or pyiceberg make it with `credential`. */
async function tokenFor(apiKey: string, clientId = 'tributary'): Promise<Response> {
  return fetch(`${catalogUri}/v1/oauth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: apiKey,
      scope: 'catalog',
    }).toString(),
  });
}

async function catalogFor(apiKey: string, accessDelegation?: 'vended-credentials'): Promise<IcebergRestCatalog> {
  const token = (await tokenFor(apiKey)).json() as Promise<{ access_token: string }>;
  return new IcebergRestCatalog({
    baseUrl: catalogUri,
    auth: { type: 'bearer', token: (await token).access_token },
    ...(accessDelegation ? { accessDelegation: [accessDelegation] } : {}),
  });
}

/** What a catalog call refused with: the status and the exception type of Iceberg's error model. */
async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { answered: await call() };
  } catch (error) {
    const { status, icebergType } = error as IcebergError;
    return { status, type: icebergType };
  }
}

/** The metadata a file-system catalog keeps for the table's Delta version: one snapshot that says which. */
function minimalMetadata(location: string, deltaVersion: number) {
  const now = Date.now();
  const fields = ['dt', 'message_id', 'source_id', 'tenant_id', 'payload'].map((name, index) => ({
    id: index + 1,
    name,
    required: true,
    type: 'string',
  }));
  return {
    'format-version': 2,
    'table-uuid': randomUUID(),
    location,
    'last-sequence-number': 1,
    'last-updated-ms': now,
    'last-column-id': fields.length,
    'current-schema-id': 0,
    schemas: [{ type: 'struct', 'schema-id': 0, fields }],
    'default-spec-id': 0,
    'partition-specs': [
      { 'spec-id': 0, fields: [{ name: 'dt', transform: 'identity', 'source-id': 1, 'field-id': 1000 }] },
    ],
    'last-partition-id': 1000,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: {},
    'current-snapshot-id': 1,
    refs: { main: { 'snapshot-id': 1, type: 'branch' } },
    snapshots: [
      {
        'snapshot-id': 1,
        'sequence-number': 1,
        'timestamp-ms': now,
        'manifest-list': `${location}/metadata/snap-1.avro`,
        summary: { operation: 'append', 'delta-version': String(deltaVersion) },
        'schema-id': 0,
      },
    ],
    'snapshot-log': [{ 'snapshot-id': 1, 'timestamp-ms': now }],
    'metadata-log': [],
  };
}

async function writeMinimalMetadata(location: string, deltaVersion: number): Promise<void> {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(location);
  if (!match) throw new Error(`Not an s3 location: ${location}`);
  const [, bucket, root] = match;
  const s3 = localS3();
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: `${root}/metadata/v1.metadata.json`,
      Body: JSON.stringify(minimalMetadata(location, deltaVersion)),
    }),
  );
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${root}/metadata/version-hint.text`, Body: '1' }));
}

let own: World;
let other: World;
let location: string;
let version: number;

beforeAll(async () => {
  [own, other] = await Promise.all([world(), world()]);
  for (const event of ['{"n":1}', '{"n":2}']) expect((await ingest(api, own.hook, event)).status).toBe(202);
  location = await waitForRows(api, own.hook.dataSetId, 2);
  const dataSet = await api.get<{ version: number }>(`/api/data-sets/${own.hook.dataSetId}`);
  version = dataSet.body.version;
  const viewer = await catalogFor(own.tenant.users.TenantViewer.key);
  const first = await refusal(() => viewer.loadTableResult({ namespace: [own.slug], name: own.hook.dataSetId }));
  if ((first as { type?: string }).type === 'NoSuchTableException') await writeMinimalMetadata(location, version);
}, 120_000);

describe('the Iceberg catalog through iceberg-js', () => {
  it('exchanges an API key for a bearer token that is the key, and refuses one that does not work', async () => {
    const key = own.tenant.users.TenantViewer.key;
    const granted = await tokenFor(key);
    expect({ status: granted.status, body: await granted.json() }).toEqual({
      status: 200,
      body: {
        access_token: key,
        token_type: 'bearer',
        expires_in: 3600,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        scope: 'catalog',
      },
    });
    const refused = await tokenFor(`trb_key_${'x'.repeat(43)}`);
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'The client secret is not a working Tributary API key' },
    });
  });

  it("shows a tenant's key its own namespace and tables, and nothing of another tenant's", async () => {
    const catalog = await catalogFor(own.tenant.users.TenantViewer.key);
    const config = await catalog.loadConfig();
    expect(config.endpoints).toContain('GET /v1/{prefix}/namespaces/{namespace}/tables/{table}');
    expect((await catalog.listNamespaces()).namespaces).toEqual([{ namespace: [own.slug] }]);
    // The pending data set has no commit: it is no table yet.
    expect((await catalog.listTables({ namespace: [own.slug] })).identifiers).toEqual([
      { namespace: [own.slug], name: own.hook.dataSetId },
    ]);
    expect({
      ownNamespace: await catalog.namespaceExists({ namespace: [own.slug] }),
      otherNamespace: await catalog.namespaceExists({ namespace: [other.slug] }),
      ownTable: await catalog.tableExists({ namespace: [own.slug], name: own.hook.dataSetId }),
      pendingTable: await catalog.tableExists({ namespace: [own.slug], name: own.pendingDataSetId }),
      otherTables: await refusal(() => catalog.listTables({ namespace: [other.slug] })),
      otherTable: await refusal(() => catalog.loadTableResult({ namespace: [other.slug], name: other.hook.dataSetId })),
      otherTableInOwnNamespace: await refusal(() =>
        catalog.loadTableResult({ namespace: [own.slug], name: other.hook.dataSetId }),
      ),
    }).toEqual({
      ownNamespace: true,
      otherNamespace: false,
      ownTable: true,
      pendingTable: false,
      otherTables: { status: 404, type: 'NoSuchNamespaceException' },
      otherTable: { status: 404, type: 'NoSuchNamespaceException' },
      otherTableInOwnNamespace: { status: 404, type: 'NoSuchTableException' },
    });
  });

  it('shows a PlatformAdmin every namespace', async () => {
    const catalog = await catalogFor(inject('adminKey'));
    const namespaces = (await catalog.listNamespaces()).namespaces.map((namespace) => namespace.namespace[0]);
    expect(namespaces).toEqual(expect.arrayContaining([own.slug, other.slug]));
  });

  it("loads a committed webhook table: its metadata location and the snapshot of the data set's Delta version", async () => {
    const catalog = await catalogFor(own.tenant.users.TenantViewer.key);
    const loaded = await catalog.loadTableResult({ namespace: [own.slug], name: own.hook.dataSetId });
    const hint = await api.get<{ iceberg?: { metadata_location: string } | null }>(
      `/api/data-sets/${own.hook.dataSetId}`,
    );
    const metadata = loaded?.metadata as
      | { 'current-snapshot-id'?: number; snapshots?: { 'snapshot-id': number; summary: Record<string, string> }[] }
      | undefined;
    const current = metadata?.snapshots?.find(
      (snapshot) => snapshot['snapshot-id'] === metadata['current-snapshot-id'],
    );
    expect({
      location: loaded?.['metadata-location'],
      deltaVersion: current?.summary['delta-version'],
    }).toEqual({
      location: expect.stringMatching(new RegExp(`^${location}/metadata/[^/]+\\.metadata\\.json$`)),
      deltaVersion: String(version),
    });
    // Where the data set says where its Iceberg metadata is, the catalog answers the same.
    if (hint.body.iceberg) expect(loaded?.['metadata-location']).toBe(hint.body.iceberg.metadata_location);
  });

  it('says no credentials are vended for a store reached without a role, and where the store is', async () => {
    const catalog = await catalogFor(own.tenant.users.TenantViewer.key, 'vended-credentials');
    const loaded = await catalog.loadTableResult({ namespace: [own.slug], name: own.hook.dataSetId });
    expect(loaded?.config).toEqual({
      's3.endpoint': inject('runtimeEnv').AWS_ENDPOINT_URL_S3,
      's3.path-style-access': 'true',
      'tributary.vended-credentials': 'none: the store is read without credentials',
    });
    // Nothing to refresh either: the refresh endpoint answers none, and only for the caller's own tables.
    const bearer = { key: null, headers: { authorization: `Bearer ${own.tenant.users.TenantViewer.key}` } };
    const [ownCredentials, otherCredentials] = await Promise.all([
      api.get(`/iceberg/v1/namespaces/${own.slug}/tables/${own.hook.dataSetId}/credentials`, bearer),
      api.get(`/iceberg/v1/namespaces/${other.slug}/tables/${other.hook.dataSetId}/credentials`, bearer),
    ]);
    expect([ownCredentials.status, ownCredentials.body, otherCredentials.status]).toEqual([
      200,
      { 'storage-credentials': [] },
      404,
    ]);
  });

  it('refuses every write in Iceberg’s error model, and changes nothing', async () => {
    const catalog = await catalogFor(own.tenant.users.TenantAdmin.key);
    const table = { namespace: [own.slug], name: own.hook.dataSetId };
    expect({
      createNamespace: await refusal(() => catalog.createNamespace({ namespace: ['new'] })),
      dropNamespace: await refusal(() => catalog.dropNamespace({ namespace: [own.slug] })),
      createTable: await refusal(() =>
        catalog.createTable(
          { namespace: [own.slug] },
          { name: 'x', schema: { type: 'struct', fields: [], 'schema-id': 0 } },
        ),
      ),
      dropTable: await refusal(() => catalog.dropTable(table)),
      renameTable: await refusal(() =>
        catalog.renameTable({ source: table, destination: { namespace: [own.slug], name: 'renamed' } }),
      ),
      commitTable: await refusal(() => catalog.commitTable(table, { requirements: [], updates: [] })),
    }).toEqual({
      createNamespace: { status: 403, type: 'ForbiddenException' },
      dropNamespace: { status: 403, type: 'ForbiddenException' },
      createTable: { status: 403, type: 'ForbiddenException' },
      dropTable: { status: 403, type: 'ForbiddenException' },
      renameTable: { status: 403, type: 'ForbiddenException' },
      commitTable: { status: 403, type: 'ForbiddenException' },
    });
    expect(await catalog.tableExists(table)).toBe(true);
  });

  it('answers no key, and a key revoked after its token was issued, with 401 NotAuthorizedException', async () => {
    const user = await createUser(api, own.tenant.tenantId, 'TenantViewer');
    const catalog = await catalogFor(user.key);
    expect((await catalog.listNamespaces()).namespaces).toEqual([{ namespace: [own.slug] }]);
    const keys = await api.get<{ api_keys: { api_key_id: string }[] }>(`/api/users/${user.userId}/api-keys`);
    for (const key of keys.body.api_keys)
      expect((await api.delete(`/api/users/${user.userId}/api-keys/${key.api_key_id}`)).status).toBe(204);
    const anonymous = new IcebergRestCatalog({ baseUrl: catalogUri, auth: { type: 'none' } });
    expect({
      revoked: await refusal(() => catalog.listNamespaces()),
      none: await refusal(() => anonymous.listNamespaces()),
    }).toEqual({
      revoked: { status: 401, type: 'NotAuthorizedException' },
      none: { status: 401, type: 'NotAuthorizedException' },
    });
  });

  it('answers as the OpenAPI document describes, success and refusal alike', async () => {
    const bearer = { key: null, headers: { authorization: `Bearer ${own.tenant.users.TenantViewer.key}` } };
    const path = `/iceberg/v1/namespaces/${own.slug}/tables/${own.hook.dataSetId}`;
    const answers = await Promise.all([
      api.get('/iceberg/v1/config', bearer),
      api.get(`/iceberg/v1/namespaces/${own.slug}`, bearer),
      api.call('HEAD', '/iceberg/v1/namespaces', bearer),
      api.get(path, bearer),
      api.call('HEAD', path, bearer),
      api.get(`/iceberg/v1/namespaces/${other.slug}/tables`, bearer),
      api.delete(path, bearer),
      api.get(path, { key: null }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 204, 200, 204, 404, 403, 401]);
  });
});
