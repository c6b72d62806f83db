/**
 * Tenant isolation and who may do what, against a permission matrix written out below (not taken
 * from shared/domain/authorization.ts): every API-key route is called by every role, against the
 * caller's own tenant and, for tenant routes, against another tenant.
 *   - own tenant: the status in the matrix;
 *   - another tenant (CONTRACT §1): a tenant role that may do this gets 404 (it learns nothing), one
 *     that may not gets 403; a PlatformAdmin gets what it gets on any tenant.
 * A route of the route table without a row in the matrix (or a fixture) fails the suite, so a new
 * route cannot be left out; a row for a route that no longer exists fails it too.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type RouteSpec, routeKeyParts, routes } from '#shared/routes.ts';
import { apiClient } from '../support/api.ts';
import {
  createTenant,
  createTenantWithUsers,
  createUser,
  password,
  registerStore,
  type TenantRole,
  type TestTenant,
  unique,
} from '../support/fixtures.ts';
import { isolationFixtures } from '../support/isolation-fixtures.ts';

const roles = ['PlatformAdmin', 'TenantAdmin', 'TenantEditor', 'TenantViewer'] as const;
type Role = (typeof roles)[number];

/**
 * The answer each role gets on its own tenant: [PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer].
 * PlatformAdmin may do everything; TenantAdmin everything inside its tenant (users, keys, object
 * stores, connections, the dashboard credential, deleting data sets); TenantEditor pipelines, jobs,
 * wiki, and operating connections (pause, resume, redrive); TenantViewer reads. Only a PlatformAdmin
 * creates and suspends tenants and reads /metrics. Cancelling the fixture's job (finished) is 422.
 */
const matrix: Record<string, readonly [number, number, number, number]> = {
  'GET /metrics': [200, 403, 403, 403],
  'GET /api/tenants': [200, 200, 200, 200],
  'POST /api/tenants': [201, 403, 403, 403],
  'GET /api/tenants/{tenant_id}': [200, 200, 200, 200],
  'POST /api/tenants/{tenant_id}/suspend': [204, 403, 403, 403],
  'POST /api/tenants/{tenant_id}/reactivate': [204, 403, 403, 403],
  'GET /api/tenants/{tenant_id}/object-stores': [200, 200, 200, 200],
  'POST /api/tenants/{tenant_id}/register-object-store': [201, 201, 403, 403],
  'POST /api/tenants/{tenant_id}/select-default-object-store': [204, 204, 403, 403],
  'POST /api/tenants/{tenant_id}/update-object-store-options': [204, 204, 403, 403],
  'GET /api/tenants/{tenant_id}/dashboard-connection': [200, 200, 200, 200],
  'POST /api/tenants/{tenant_id}/dashboard-connection/retry': [200, 200, 403, 403],
  'POST /api/tenants/{tenant_id}/dashboard-connection/rotate': [204, 204, 403, 403],
  'GET /api/users': [200, 200, 200, 200],
  'POST /api/users': [201, 201, 403, 403],
  'GET /api/users/by-email': [200, 200, 200, 200],
  'GET /api/users/{user_id}': [200, 200, 200, 200],
  'POST /api/users/{user_id}/change-role': [204, 204, 403, 403],
  'POST /api/users/{user_id}/deactivate': [204, 204, 403, 403],
  'POST /api/users/{user_id}/reactivate': [204, 204, 403, 403],
  'POST /api/users/{user_id}/link-external-id': [204, 204, 403, 403],
  'POST /api/users/{user_id}/api-keys': [201, 201, 403, 403],
  'GET /api/users/{user_id}/api-keys': [200, 200, 403, 403],
  'DELETE /api/users/{user_id}/api-keys/{api_key_id}': [204, 204, 403, 403],
  'POST /api/tenants/{tenant_id}/connections': [201, 201, 403, 403],
  'GET /api/tenants/{tenant_id}/connections': [200, 200, 200, 200],
  'GET /api/connections/{connection_id}': [200, 200, 200, 200],
  'POST /api/connections/{connection_id}/regenerate-token': [200, 200, 403, 403],
  'POST /api/connections/{connection_id}/activate': [204, 204, 403, 403],
  'POST /api/connections/{connection_id}/deactivate': [204, 204, 403, 403],
  'POST /api/connections/{connection_id}/pause-source': [204, 204, 204, 403],
  'POST /api/connections/{connection_id}/resume-source': [204, 204, 204, 403],
  'DELETE /api/connections/{connection_id}': [204, 204, 403, 403],
  'GET /api/connections/{connection_id}/security': [200, 200, 200, 200],
  'PUT /api/connections/{connection_id}/security': [200, 200, 403, 403],
  'POST /api/connections/{connection_id}/rotate-signing-secret': [200, 200, 403, 403],
  'GET /api/connections/{connection_id}/rejections': [200, 200, 200, 200],
  'GET /api/connections/{connection_id}/failed-deliveries': [200, 200, 200, 200],
  'POST /api/connections/{connection_id}/failed-deliveries/redrive': [200, 200, 200, 403],
  'GET /api/connections/{connection_id}/stats': [200, 200, 200, 200],
  'GET /api/connections/{connection_id}/events': [200, 200, 200, 200],
  'GET /api/connections/{connection_id}/stats/history': [200, 200, 200, 200],
  'GET /api/tenants/{tenant_id}/stats': [200, 200, 200, 200],
  'GET /api/tenants/{tenant_id}/stats/history': [200, 200, 200, 200],
  'GET /api/me': [200, 200, 200, 200],
  'GET /api/data-sets': [200, 200, 200, 200],
  'GET /api/data-sets/{data_set_id}': [200, 200, 200, 200],
  'GET /api/data-sets/{data_set_id}/files': [200, 200, 200, 200],
  'GET /api/data-sets/{data_set_id}/runs': [200, 200, 200, 200],
  'DELETE /api/data-sets/{data_set_id}': [204, 204, 403, 403],
  'POST /api/data-sets/{data_set_id}/optimize': [202, 202, 202, 403],
  // Reads payloads as the events view does: every role that reads data sets.
  'POST /api/data-sets/{data_set_id}/suggest-columns': [200, 200, 200, 200],
  // Every role that reads the data set: the defaults (version null) before its first commit, else its latest version's.
  'GET /api/data-sets/{data_set_id}/table-properties': [200, 200, 200, 200],
  // The fixture's data set has no commit yet: setting a property makes its first (metadata) commit.
  'PUT /api/data-sets/{data_set_id}/table-properties': [200, 200, 403, 403],
  'GET /api/pipelines': [200, 200, 200, 200],
  'POST /api/pipelines': [201, 201, 201, 403],
  'GET /api/pipelines/{pipeline_id}': [200, 200, 200, 200],
  'DELETE /api/pipelines/{pipeline_id}': [204, 204, 204, 403],
  'POST /api/pipelines/{pipeline_id}/update-definition': [204, 204, 204, 403],
  'POST /api/pipelines/{pipeline_id}/deploy': [204, 204, 204, 403],
  'POST /api/pipelines/{pipeline_id}/enable': [204, 204, 204, 403],
  'POST /api/pipelines/{pipeline_id}/disable': [204, 204, 204, 403],
  'POST /api/pipelines/{pipeline_id}/rename': [204, 204, 204, 403],
  'POST /api/pipelines/{pipeline_id}/trigger': [201, 201, 201, 403],
  'GET /api/jobs': [200, 200, 200, 200],
  'POST /api/jobs': [201, 201, 201, 403],
  'GET /api/jobs/{job_id}': [200, 200, 200, 200],
  'POST /api/jobs/{job_id}/cancel': [422, 422, 422, 403],
  'GET /api/jobs/{job_id}/result': [200, 200, 200, 200],
  'GET /api/wiki-documents': [200, 200, 200, 200],
  'GET /api/wiki-documents/{path+}': [200, 200, 200, 200],
  'PUT /api/wiki-documents/{path+}': [201, 201, 201, 403],
  'DELETE /api/wiki-documents/{path+}': [204, 204, 204, 403],
  // The Iceberg catalog: every role reads it, within its own tenant's namespace.
  'GET /iceberg/v1/config': [200, 200, 200, 200],
  'GET /iceberg/v1/namespaces': [200, 200, 200, 200],
  'HEAD /iceberg/v1/namespaces': [204, 204, 204, 204],
  'GET /iceberg/v1/namespaces/{namespace}': [200, 200, 200, 200],
  'HEAD /iceberg/v1/namespaces/{namespace}': [204, 204, 204, 204],
  'GET /iceberg/v1/namespaces/{namespace}/tables': [200, 200, 200, 200],
  // The fixture's data set has no commit yet, so it is no table (test/integration/iceberg-catalog.test.ts loads one).
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}': [404, 404, 404, 404],
  'HEAD /iceberg/v1/namespaces/{namespace}/tables/{table}': [404, 404, 404, 404],
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}/credentials': [404, 404, 404, 404],
  // The catalog is read-only: every write is refused, whatever the role.
  'ANY /iceberg/{path+}': [403, 403, 403, 403],
};

const api = apiClient();

interface World {
  tenant: TestTenant;
  storeId: string;
  subject: { userId: string; email: string };
  dataSetId: string;
}

async function world(): Promise<World> {
  const tenant = await createTenantWithUsers(api);
  const storeId = await registerStore(api, tenant.tenantId);
  const subject = await createUser(api, tenant.tenantId, 'TenantViewer');
  const connection = await api.post<{ data_set_id: string }>(`/api/tenants/${tenant.tenantId}/connections`, {
    json: { type: 'Webhook', name: 'isolation' },
  });
  return { tenant, storeId, subject, dataSetId: connection.body.data_set_id };
}

const apiKeyRoutes = (Object.entries(routes) as [string, RouteSpec][]).filter(([, spec]) => spec.auth === 'apiKey');

let own: World;
let other: World;
beforeAll(async () => {
  [own, other] = await Promise.all([world(), world()]);
});

/** What `role` gets from `key` on the target tenant, by the matrix and the contract's rule for other tenants. */
function expectedStatus(key: string, role: Role, target: 'own' | 'other'): number {
  const row = matrix[key];
  if (!row) throw new Error(`No row for ${key} in the permission matrix`);
  const onOwn = row[roles.indexOf(role)] as number;
  if (target === 'own' || role === 'PlatformAdmin' || onOwn === 403) return onOwn;
  return 404;
}

describe('the permission matrix', () => {
  it('has a row and a fixture for every API-key route of the route table, and no row for a route that is gone', () => {
    const keys = apiKeyRoutes.map(([key]) => key);
    expect({
      withoutRow: keys.filter((key) => !(key in matrix)),
      withoutFixture: keys.filter((key) => !(key in isolationFixtures)),
      stale: Object.keys(matrix).filter((key) => !keys.includes(key)),
    }).toEqual({ withoutRow: [], withoutFixture: [], stale: [] });
  });
});

describe.concurrent('every role on every route', () => {
  const cases = apiKeyRoutes.flatMap(([key]) =>
    roles.flatMap((role) =>
      (isolationFixtures[key]?.scope === 'global' ? (['own'] as const) : (['own', 'other'] as const)).map((target) => ({
        key,
        role,
        target,
      })),
    ),
  );

  it.for(cases)('$key as $role on $target tenant', async ({ key, role, target }, { expect }) => {
    const fixture = isolationFixtures[key];
    if (!fixture) throw new Error(`No fixture for ${key}`);
    const request = await fixture.build({
      api,
      world: target === 'own' ? own : other,
      role,
      helpers: { createTenant, createUser, password, unique },
    });
    const callerKey = role === 'PlatformAdmin' ? inject('adminKey') : own.tenant.users[role as TenantRole].key;
    const method = request.method ?? routeKeyParts(key).method;
    // The Iceberg catalog's routes take the key as a bearer token and answer in Iceberg's error model.
    const iceberg = (routes[key as keyof typeof routes] as RouteSpec).protocol === 'iceberg';
    const response = await api.call(
      method,
      request.path,
      iceberg
        ? { key: null, headers: { authorization: `Bearer ${callerKey}` } }
        : { key: callerKey, json: request.body },
    );

    const status = expectedStatus(key, role, target);
    const body = response.body as { code?: string; error?: { type?: string } } | undefined;
    const code = iceberg ? body?.error?.type : body?.code;
    const hidden = target === 'other' && role !== 'PlatformAdmin';
    const expected =
      method === 'HEAD'
        ? undefined // A HEAD answer has no body.
        : iceberg
          ? { 403: 'ForbiddenException', 404: hidden ? 'NoSuchNamespaceException' : 'NoSuchTableException' }[status]
          : { 403: 'FORBIDDEN', 404: 'NOT_FOUND' }[status];
    expect({ status: response.status, ...(expected ? { code } : {}) }).toEqual({
      status,
      ...(expected ? { code: expected } : {}),
    });
  });
});

describe('store boundaries', () => {
  /** Registers a store reached with the platform's credentials (local mode: the S3 stand-in's). */
  const register = (tenantId: string, baseUrl: string, key?: string) =>
    api.post<{ code?: string; details?: unknown }>(`/api/tenants/${tenantId}/register-object-store`, {
      key,
      json: { base_url: baseUrl, name: unique('store'), options: { region: 'eu-west-1' } },
    });
  const storesOf = async (tenantId: string) =>
    (await api.get<{ object_stores: unknown[] }>(`/api/tenants/${tenantId}/object-stores`)).body.object_stores.length;

  it("refuses another tenant's store at, inside or above a tenant's (409, nothing stored), and accepts a sibling", async () => {
    const place = `s3://demo-bucket/${unique('iso')}`;
    expect((await register(own.tenant.tenantId, `${place}/t-abc`)).status).toBe(201);
    const before = await storesOf(other.tenant.tenantId);
    const admin = other.tenant.users.TenantAdmin.key;
    const answers: Record<string, unknown> = {};
    for (const [name, baseUrl] of [
      ['same', `${place}/t-abc`],
      ['inside', `${place}/t-abc/raw`],
      ['above', place],
      ['bucket', 's3://demo-bucket'],
    ] as const) {
      const response = await register(other.tenant.tenantId, baseUrl, admin);
      answers[name] = { status: response.status, code: response.body.code };
    }
    expect(answers).toEqual({
      same: { status: 409, code: 'CONFLICT' },
      inside: { status: 409, code: 'CONFLICT' },
      above: { status: 409, code: 'CONFLICT' },
      bucket: { status: 409, code: 'CONFLICT' },
    });
    expect(await storesOf(other.tenant.tenantId)).toBe(before);
    expect((await register(other.tenant.tenantId, `${place}/t-abcx`, admin)).status).toBe(201);
  });

  it('lets exactly one of two overlapping registrations sent at the same moment succeed', async () => {
    const rounds = [];
    for (let round = 0; round < 5; round++) {
      const place = `s3://demo-bucket/${unique('race')}`;
      const [outer, inner] = await Promise.all([
        register(own.tenant.tenantId, place),
        register(other.tenant.tenantId, `${place}/inner`),
      ]);
      rounds.push([outer.status, inner.status].sort());
    }
    expect(rounds).toEqual(Array(5).fill([201, 409]));
  });

  it('shows each tenant the external id the service generated for it, and refuses one a tenant chooses', async () => {
    const ids = await Promise.all(
      [own, other].map(
        async (world) =>
          (await api.get<{ aws_external_id: string }>(`/api/tenants/${world.tenant.tenantId}`)).body.aws_external_id,
      ),
    );
    for (const id of ids) expect(id).toMatch(/^tributary-[0-9a-f]{32}$/);
    expect(ids[0]).not.toBe(ids[1]);
    const chosen = await api.post<{ code: string; details: { path: string }[] }>(
      `/api/tenants/${own.tenant.tenantId}/register-object-store`,
      {
        json: {
          base_url: `s3://demo-bucket/${unique('role')}`,
          name: 'role',
          options: {
            role_arn: 'arn:aws:iam::111122223333:role/lake-writer',
            external_id: ids[1],
            region: 'eu-west-1',
          },
        },
      },
    );
    expect({ status: chosen.status, code: chosen.body.code, paths: chosen.body.details.map((d) => d.path) }).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      paths: ['options.external_id'],
    });
  });
});
