/**
 * The Iceberg catalog (shared/domain/iceberg/catalog.ts) through in-memory ports: who sees which
 * namespace and table, written out below as a matrix; which tables exist (a data set from its first
 * commit); what loading answers; which stores vend credentials; the token exchange. Then the edge:
 * routes of the catalog's protocol take the key as a bearer token and answer every error in
 * Iceberg's error model (or OAuth2's at the token endpoint), against literal bodies.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { syncFailure } from '#shared/adapters/iceberg-tables.ts';
import { type DataSet, envelopeSchema, newDataSet } from '#shared/domain/datasets/model.ts';
import { unauthorized } from '#shared/domain/errors.ts';
import {
  type CatalogDeps,
  catalogConfig,
  exchangeToken,
  getNamespace,
  listNamespaces,
  listTables,
  loadCredentials,
  loadTable,
  refuseCatalogRequest,
  requireTable,
  storageConfig,
  type TableReadAccess,
} from '#shared/domain/iceberg/catalog.ts';
import { vendedCredentialsOf } from '#shared/domain/iceberg/read-access.ts';
import type { ApiKeyRecord } from '#shared/domain/identity/model.ts';
import type { Principal } from '#shared/domain/principal.ts';
import { apiEdge } from '#shared/http/api-handler.ts';
import type { RouteSpec } from '#shared/http/route-spec.ts';
import { icebergRoutes } from '#shared/routes/iceberg.ts';
import { platformAdmin, tenantPrincipal, tenantRecord } from '../support/memory.ts';

const acme = tenantRecord({ tenant_id: randomUUID(), slug: 'acme', name: 'Acme' });
const globex = tenantRecord({ tenant_id: randomUUID(), slug: 'globex', name: 'Globex' });

function dataSetOf(tenant: typeof acme, version: number | null): DataSet {
  const dataSetId = randomUUID();
  const dataSet = newDataSet(
    {
      data_set_id: dataSetId,
      tenant_id: tenant.tenant_id,
      tenant_slug: tenant.slug,
      name: 'hook',
      origin: { type: 'Webhook', connection_id: randomUUID(), source_id: randomUUID() },
      schema_json: envelopeSchema,
    },
    '2026-01-01T00:00:00.000Z',
  );
  if (version === null) return dataSet;
  return {
    ...dataSet,
    version,
    status: 'Active',
    object_store_id: randomUUID(),
    storage_location: `s3://lake/${tenant.slug}/datasets/${dataSetId}`,
  };
}

const acmeTable = dataSetOf(acme, 3);
const acmePending = dataSetOf(acme, null);
/** Committed, but its Iceberg metadata is not there (yet). */
const acmeWithoutMetadata = dataSetOf(acme, 1);
const globexTable = dataSetOf(globex, 0);
/** Committed, but another writer gave it a feature Iceberg cannot express: no table of the catalog's. */
const acmeUnsupported: DataSet = {
  ...dataSetOf(acme, 4),
  iceberg: {
    metadata_location: null,
    delta_version: null,
    status: 'Unsupported',
    reason: 'deletion vectors',
    synced_at: '2026-01-01T00:00:00.000Z',
  },
};
const dataSets = [acmeTable, acmePending, acmeWithoutMetadata, acmeUnsupported, globexTable];

const metadataOf = (dataSet: DataSet) => ({
  'format-version': 2,
  'table-uuid': dataSet.data_set_id,
  'current-snapshot-id': 1,
});

const noAccess: TableReadAccess = {
  region: 'eu-west-1',
  endpoint: null,
  pathStyle: null,
  credentials: null,
  withoutCredentials: 'the store is read without credentials',
};

function catalog(readAccess: TableReadAccess = noAccess): CatalogDeps & { accessAsked: string[] } {
  const accessAsked: string[] = [];
  return {
    accessAsked,
    findTenantBySlug: async (slug) => [acme, globex].find((tenant) => tenant.slug === slug) ?? null,
    getTenant: async (tenantId) => [acme, globex].find((tenant) => tenant.tenant_id === tenantId) ?? null,
    everyTenant: async () => [acme, globex],
    everyDataSetOfTenant: async (tenantId) => dataSets.filter((dataSet) => dataSet.tenant_id === tenantId),
    getDataSet: async (dataSetId) => dataSets.find((dataSet) => dataSet.data_set_id === dataSetId) ?? null,
    loadTable: async (dataSet) =>
      dataSet === acmeWithoutMetadata || dataSet.storage_location === null || dataSet.iceberg?.status === 'Unsupported'
        ? null
        : {
            metadata_location: `${dataSet.storage_location}/metadata/v2.metadata.json`,
            metadata: metadataOf(dataSet),
          },
    readAccess: async (dataSet) => {
      accessAsked.push(dataSet.data_set_id);
      return readAccess;
    },
  };
}

/** What a call answers: its value, or the status and Iceberg type of its refusal. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    const { code, type } = error as { code: string; type?: string };
    return { refused: code, type };
  }
}

const noSuchNamespace = { refused: 'NOT_FOUND', type: 'NoSuchNamespaceException' };
const noSuchTable = { refused: 'NOT_FOUND', type: 'NoSuchTableException' };

const callers: Record<string, Principal> = {
  PlatformAdmin: platformAdmin,
  'acme TenantAdmin': tenantPrincipal(acme.tenant_id, 'TenantAdmin'),
  'acme TenantEditor': tenantPrincipal(acme.tenant_id, 'TenantEditor'),
  'acme TenantViewer': tenantPrincipal(acme.tenant_id, 'TenantViewer'),
};

describe('who sees what in the catalog', () => {
  const acmeNamespace = { namespace: ['acme'], properties: {} };
  // Listed from its first commit: loading brings its metadata up to date (here the port has none to give).
  const acmeTables = {
    identifiers: [
      { namespace: ['acme'], name: acmeTable.data_set_id },
      { namespace: ['acme'], name: acmeWithoutMetadata.data_set_id },
    ],
    'next-page-token': null,
  };
  const loaded = {
    'metadata-location': `${acmeTable.storage_location}/metadata/v2.metadata.json`,
    metadata: metadataOf(acmeTable),
    config: {},
  };
  /** Every caller × operation, written out: a tenant's keys see their namespace only, whatever the role. */
  const matrix: Record<string, Record<string, unknown>> = {
    PlatformAdmin: {
      namespaces: { namespaces: [['acme'], ['globex']], 'next-page-token': null },
      'namespace acme': acmeNamespace,
      'namespace globex': { namespace: ['globex'], properties: {} },
      'tables of acme': acmeTables,
      'tables of globex': {
        identifiers: [{ namespace: ['globex'], name: globexTable.data_set_id }],
        'next-page-token': null,
      },
      'load acme table': loaded,
      'load globex table': {
        'metadata-location': `${globexTable.storage_location}/metadata/v2.metadata.json`,
        metadata: metadataOf(globexTable),
        config: {},
      },
    },
  };
  for (const role of ['acme TenantAdmin', 'acme TenantEditor', 'acme TenantViewer'])
    matrix[role] = {
      namespaces: { namespaces: [['acme']], 'next-page-token': null },
      'namespace acme': acmeNamespace,
      'namespace globex': noSuchNamespace,
      'tables of acme': acmeTables,
      'tables of globex': noSuchNamespace,
      'load acme table': loaded,
      'load globex table': noSuchNamespace,
    };

  it.for(Object.keys(callers))('answers %s as the matrix says', async (caller, { expect }) => {
    const principal = callers[caller] as Principal;
    const deps = catalog();
    const load = (namespace: string, table: string) =>
      outcome(() => loadTable(deps, principal, { namespace, table, vendCredentials: false }));
    expect({
      namespaces: await outcome(() => listNamespaces(deps, principal, undefined)),
      'namespace acme': await outcome(() => getNamespace(deps, principal, 'acme')),
      'namespace globex': await outcome(() => getNamespace(deps, principal, 'globex')),
      'tables of acme': await outcome(() => listTables(deps, principal, 'acme')),
      'tables of globex': await outcome(() => listTables(deps, principal, 'globex')),
      'load acme table': await load('acme', acmeTable.data_set_id),
      'load globex table': await load('globex', globexTable.data_set_id),
    }).toEqual(matrix[caller]);
  });

  it('has no table before its first commit, nor without metadata, nor one Iceberg cannot express, nor one named under another namespace', async () => {
    const deps = catalog();
    const load = (namespace: string, table: string) =>
      outcome(() => loadTable(deps, platformAdmin, { namespace, table, vendCredentials: false }));
    expect({
      pending: await load('acme', acmePending.data_set_id),
      withoutMetadata: await load('acme', acmeWithoutMetadata.data_set_id),
      unsupported: await load('acme', acmeUnsupported.data_set_id),
      headUnsupported: await outcome(() => requireTable(deps, platformAdmin, 'acme', acmeUnsupported.data_set_id)),
      otherNamespace: await load('acme', globexTable.data_set_id),
      notAnId: await load('acme', 'events'),
      unknown: await load('acme', randomUUID()),
      unknownNamespace: await load('initech', acmeTable.data_set_id),
      multiLevel: await load('acme\u001fraw', acmeTable.data_set_id),
      head: await outcome(() => requireTable(deps, platformAdmin, 'acme', acmePending.data_set_id)),
    }).toEqual({
      pending: noSuchTable,
      withoutMetadata: noSuchTable,
      unsupported: noSuchTable,
      headUnsupported: noSuchTable,
      otherNamespace: noSuchTable,
      notAnId: noSuchTable,
      unknown: noSuchTable,
      unknownNamespace: noSuchNamespace,
      multiLevel: noSuchNamespace,
      head: noSuchTable,
    });
  });

  it('lists no children of a namespace, and refuses a parent the caller does not see', async () => {
    const acmeViewer = callers['acme TenantViewer'] as Principal;
    expect(await listNamespaces(catalog(), acmeViewer, 'acme')).toEqual({ namespaces: [], 'next-page-token': null });
    expect(await outcome(() => listNamespaces(catalog(), acmeViewer, 'globex'))).toEqual(noSuchNamespace);
  });

  it('refuses every write (403 ForbiddenException) and answers reads of anything else 404', async () => {
    const answers = await Promise.all(
      ['POST', 'PUT', 'DELETE', 'GET'].map((method) =>
        outcome(() => refuseCatalogRequest(method, '/iceberg/v1/namespaces/acme/tables/x')),
      ),
    );
    expect(answers).toEqual([
      { refused: 'FORBIDDEN', type: 'ForbiddenException' },
      { refused: 'FORBIDDEN', type: 'ForbiddenException' },
      { refused: 'FORBIDDEN', type: 'ForbiddenException' },
      { refused: 'NOT_FOUND', type: 'NotFoundException' },
    ]);
  });

  it('names the endpoints it serves in its config, and nothing it refuses', () => {
    expect(catalogConfig()).toEqual({
      defaults: {},
      overrides: {},
      endpoints: [
        'GET /v1/{prefix}/namespaces',
        'GET /v1/{prefix}/namespaces/{namespace}',
        'HEAD /v1/{prefix}/namespaces/{namespace}',
        'GET /v1/{prefix}/namespaces/{namespace}/tables',
        'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
        'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
        'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
      ],
    });
  });
});

describe('vended credentials', () => {
  const vended: TableReadAccess = {
    region: 'eu-west-1',
    endpoint: null,
    pathStyle: null,
    credentials: {
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
      expiresAt: new Date('2026-12-04T12:15:00.000Z'),
    },
    withoutCredentials: null,
  };

  it('asks for read access only when the client asks for vended credentials, and answers it as Iceberg config', async () => {
    const deps = catalog(vended);
    const request = { namespace: 'acme', table: acmeTable.data_set_id };
    const plain = await loadTable(deps, platformAdmin, { ...request, vendCredentials: false });
    expect(deps.accessAsked).toEqual([]);
    const delegated = await loadTable(deps, platformAdmin, { ...request, vendCredentials: true });
    expect(deps.accessAsked).toEqual([acmeTable.data_set_id]);
    const config = {
      'client.region': 'eu-west-1',
      's3.access-key-id': 'ASIAEXAMPLE',
      's3.secret-access-key': 'secret',
      's3.session-token': 'token',
      's3.session-token-expires-at-ms': String(Date.parse('2026-12-04T12:15:00.000Z')),
    };
    expect({ plain: plain.config, delegated }).toEqual({
      plain: {},
      delegated: {
        'metadata-location': `${acmeTable.storage_location}/metadata/v2.metadata.json`,
        metadata: metadataOf(acmeTable),
        config: {
          ...config,
          'client.refresh-credentials-endpoint': `v1/namespaces/acme/tables/${acmeTable.data_set_id}/credentials`,
        },
        'storage-credentials': [{ prefix: acmeTable.storage_location, config }],
      },
    });
  });

  it('answers fresh credentials at the refresh endpoint, to callers who may load the table only', async () => {
    const acmeViewer = callers['acme TenantViewer'] as Principal;
    const globexAdmin = tenantPrincipal(globex.tenant_id, 'TenantAdmin');
    const deps = catalog(vended);
    expect(await loadCredentials(deps, acmeViewer, 'acme', acmeTable.data_set_id)).toEqual({
      'storage-credentials': [
        {
          prefix: acmeTable.storage_location,
          config: {
            'client.region': 'eu-west-1',
            's3.access-key-id': 'ASIAEXAMPLE',
            's3.secret-access-key': 'secret',
            's3.session-token': 'token',
            's3.session-token-expires-at-ms': String(Date.parse('2026-12-04T12:15:00.000Z')),
          },
        },
      ],
    });
    expect({
      noneVended: await loadCredentials(catalog(noAccess), acmeViewer, 'acme', acmeTable.data_set_id),
      otherTenant: await outcome(() => loadCredentials(deps, globexAdmin, 'acme', acmeTable.data_set_id)),
      pending: await outcome(() => loadCredentials(deps, acmeViewer, 'acme', acmePending.data_set_id)),
    }).toEqual({
      noneVended: { 'storage-credentials': [] },
      otherTenant: noSuchNamespace,
      pending: noSuchTable,
    });
    expect(deps.accessAsked).toEqual([acmeTable.data_set_id]);
  });

  it('says why none are vended, with where the store is', () => {
    expect(
      storageConfig({
        region: null,
        endpoint: 'http://127.0.0.1:4569',
        pathStyle: true,
        credentials: null,
        withoutCredentials: 'the store is read without credentials',
      }),
    ).toEqual({
      's3.endpoint': 'http://127.0.0.1:4569',
      's3.path-style-access': 'true',
      'tributary.vended-credentials': 'none: the store is read without credentials',
    });
  });

  it('vends only for a store reached through the tenant’s role, never the platform’s access or a tenant’s keys', () => {
    expect({
      tenantRole: vendedCredentialsOf({ kind: 'tenantRole', roleArn: 'arn:aws:iam::1:role/lake', externalId: 'x' }),
      keys: vendedCredentialsOf({ kind: 'keys', accessKeyId: 'AKIA', secretAccessKey: 's', sessionToken: undefined })
        .kind,
      platform: vendedCredentialsOf({ kind: 'platform' }).kind,
      anonymous: vendedCredentialsOf({ kind: 'anonymous' }).kind,
    }).toEqual({
      tenantRole: { kind: 'tenantRole', roleArn: 'arn:aws:iam::1:role/lake', externalId: 'x' },
      keys: 'none',
      platform: 'none',
      anonymous: 'none',
    });
  });
});

describe('the token exchange', () => {
  const goodKey = `trb_key_${'g'.repeat(43)}`;
  const authenticate = async (apiKey: string): Promise<Principal> => {
    if (apiKey !== goodKey) throw unauthorized();
    return platformAdmin;
  };

  it('hands out the API key itself as the access token, for client credentials and for token exchange', async () => {
    const answer = {
      access_token: goodKey,
      token_type: 'bearer',
      expires_in: 3600,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    };
    expect(
      await exchangeToken(authenticate, { grant_type: 'client_credentials', client_id: 'x', client_secret: goodKey }),
    ).toEqual(answer);
    expect(
      await exchangeToken(authenticate, {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: goodKey,
        scope: 'catalog',
      }),
    ).toEqual({ ...answer, scope: 'catalog' });
  });

  it('refuses a secret that is no working key, a missing one and another grant, in OAuth2’s words', async () => {
    const refusal = (form: Parameters<typeof exchangeToken>[1]) =>
      exchangeToken(authenticate, form).then(
        () => 'granted',
        (error: { error: string; code: string }) => ({ error: error.error, code: error.code }),
      );
    expect({
      wrong: await refusal({ grant_type: 'client_credentials', client_secret: `trb_key_${'w'.repeat(43)}` }),
      missing: await refusal({ grant_type: 'client_credentials' }),
      password: await refusal({ grant_type: 'password', client_secret: goodKey }),
    }).toEqual({
      wrong: { error: 'invalid_client', code: 'UNAUTHORIZED' },
      missing: { error: 'invalid_request', code: 'VALIDATION_ERROR' },
      password: { error: 'unsupported_grant_type', code: 'VALIDATION_ERROR' },
    });
  });
});

describe('the edge of the catalog’s routes', () => {
  const viewerKey = `trb_key_${'v'.repeat(43)}`;
  const record: ApiKeyRecord = {
    api_key_id: randomUUID(),
    user_id: null,
    tenant_id: acme.tenant_id,
    role: 'TenantViewer',
    name: 'test',
    prefix: viewerKey.slice(0, 12),
    hash: createHash('sha256').update(viewerKey).digest('hex'),
    created_at: '2026-01-01T00:00:00.000Z',
    last_used_at: '2999-01-01T00:00:00.000Z',
  };
  const apiHandler = apiEdge(async () => ({
    findApiKeyByHash: async (hash) => (hash === record.hash ? record : null),
    getUser: async () => null,
    touchApiKey: async () => undefined,
  }));

  function call(
    key: keyof typeof icebergRoutes,
    handle: (request: { principal: Principal | null; body: unknown }) => Promise<unknown>,
    request: { method?: string; headers?: Record<string, string>; body?: string; path?: string },
  ) {
    const group: Record<string, RouteSpec> = { [key]: icebergRoutes[key] };
    const handler = apiHandler(group, key, async ({ principal, body }) => ({
      status: 200,
      body: await handle({ principal, body }),
    }));
    const path = request.path ?? '/iceberg/v1/namespaces/acme';
    const event = {
      version: '2.0',
      routeKey: key,
      rawPath: path,
      rawQueryString: '',
      headers: request.headers ?? {},
      pathParameters: key.includes('{path+}')
        ? { path: path.slice('/iceberg/'.length) }
        : key.includes('{namespace}')
          ? { namespace: 'acme' }
          : {},
      requestContext: {
        requestId: 'r1',
        http: { method: request.method ?? key.split(' ')[0], path, sourceIp: '127.0.0.1' },
      },
      body: request.body,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    return handler(event, { functionName: 'test' } as Context).then((result) => ({
      status: result.statusCode,
      body: result.body ? JSON.parse(result.body) : null,
    }));
  }

  const namespaceOf = async ({ principal }: { principal: Principal | null }) =>
    getNamespace(catalog(), principal ?? platformAdmin, 'acme');

  it('takes the API key as a bearer token, and no other way', async () => {
    const route = 'GET /iceberg/v1/namespaces/{namespace}';
    expect({
      bearer: await call(route, namespaceOf, { headers: { authorization: `Bearer ${viewerKey}` } }),
      lowercase: (await call(route, namespaceOf, { headers: { authorization: `bearer ${viewerKey}` } })).status,
      none: await call(route, namespaceOf, {}),
      xApiKey: await call(route, namespaceOf, { headers: { 'x-api-key': viewerKey } }),
    }).toEqual({
      bearer: { status: 200, body: { namespace: ['acme'], properties: {} } },
      lowercase: 200,
      none: {
        status: 401,
        body: { error: { message: 'Missing or invalid credentials', type: 'NotAuthorizedException', code: 401 } },
      },
      xApiKey: {
        status: 401,
        body: { error: { message: 'Missing or invalid credentials', type: 'NotAuthorizedException', code: 401 } },
      },
    });
  });

  it('answers refusals in Iceberg’s error model, a write with any body included', async () => {
    const bearer = { authorization: `Bearer ${viewerKey}` };
    const otherNamespace = async ({ principal }: { principal: Principal | null }) =>
      getNamespace(catalog(), principal ?? platformAdmin, 'globex');
    expect({
      hidden: await call('GET /iceberg/v1/namespaces/{namespace}', otherNamespace, { headers: bearer }),
      write: await call('ANY /iceberg/{path+}', () => refuseCatalogRequest('POST', '/iceberg/v1/namespaces'), {
        method: 'POST',
        path: '/iceberg/v1/namespaces',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: '{"namespace":["x"]}',
      }),
      writeWithoutKey: (
        await call('ANY /iceberg/{path+}', () => refuseCatalogRequest('DELETE', '/iceberg/v1/namespaces/acme'), {
          method: 'DELETE',
          path: '/iceberg/v1/namespaces/acme',
        })
      ).status,
    }).toEqual({
      hidden: {
        status: 404,
        body: { error: { message: 'Namespace does not exist: globex', type: 'NoSuchNamespaceException', code: 404 } },
      },
      write: {
        status: 403,
        body: {
          error: {
            message: 'The Tributary catalog is read-only: its tables change only through Tributary',
            type: 'ForbiddenException',
            code: 403,
          },
        },
      },
      writeWithoutKey: 401,
    });
  });

  it('answers a sync the tenant’s store failed 422 with the store’s category, and one of ours 500', async () => {
    const headers = { authorization: `Bearer ${viewerKey}` };
    const route = 'GET /iceberg/v1/namespaces/{namespace}';
    const store = await call(route, async () => Promise.reject(syncFailure('NO_SUCH_BUCKET')), { headers });
    const ours = await call(route, async () => Promise.reject(syncFailure('TypeError')), { headers });
    expect({ store, ours: { status: ours.status, type: ours.body.error.type } }).toEqual({
      store: {
        status: 422,
        body: {
          error: {
            message: 'NO_SUCH_BUCKET: The bucket does not exist',
            type: 'BadRequestException',
            code: 422,
          },
        },
      },
      ours: { status: 500, type: 'ServiceFailureException' },
    });
  });

  it('reads the token endpoint’s form and answers its refusals in OAuth2’s error shape', async () => {
    const exchange = ({ body }: { body: unknown }) =>
      exchangeToken(
        async (apiKey) => {
          if (apiKey !== viewerKey) throw unauthorized();
          return platformAdmin;
        },
        body as Parameters<typeof exchangeToken>[1],
      );
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const route = 'POST /iceberg/v1/oauth/tokens';
    expect({
      granted: await call(
        route,
        exchange,
        form({
          grant_type: 'client_credentials',
          client_id: 'trb_key_vvvv',
          client_secret: viewerKey,
          scope: 'catalog',
        }),
      ),
      wrongKey: await call(route, exchange, form({ grant_type: 'client_credentials', client_secret: 'trb_key_x' })),
      json: await call(route, exchange, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_secret: viewerKey }),
      }),
      noGrant: (await call(route, exchange, form({ client_secret: viewerKey }))).body.error,
    }).toEqual({
      granted: {
        status: 200,
        body: {
          access_token: viewerKey,
          token_type: 'bearer',
          expires_in: 3600,
          issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          scope: 'catalog',
        },
      },
      wrongKey: {
        status: 401,
        body: {
          error: 'invalid_client',
          error_description: 'The client secret is not a working Tributary API key',
        },
      },
      json: {
        status: 415,
        body: {
          error: 'invalid_request',
          error_description: 'The body must be a form (application/x-www-form-urlencoded)',
        },
      },
      noGrant: 'invalid_request',
    });
  });
});
