import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { hashToken } from '#shared/domain/tokens.ts';
import type { listObjectStoresResponse } from '#shared/http/schemas/object-stores.ts';
import type { listTenantsResponse } from '#shared/http/schemas/tenants.ts';
import type { createApiKeyResponse, listUsersResponse } from '#shared/http/schemas/users.ts';
import { apiClient, seenBodies } from '../support/api.ts';
import {
  createTenant,
  createTenantWithUsers,
  createUser,
  issuedKeys,
  neverShown,
  password,
  registerStore,
  type TestTenant,
  unique,
} from '../support/fixtures.ts';
import { pollUntil } from '../support/poll.ts';
import { createWebhook, ingest, waitForRows } from '../support/webhooks.ts';

const api = apiClient();

let acme: TestTenant;
beforeAll(async () => {
  acme = await createTenantWithUsers(api);
});

describe('tenants', () => {
  it('creates a tenant with a slug from its name and shows every field with its type', async () => {
    const name = `Acme ${unique('Corp')}`;
    const created = await api.post<{ tenant_id: string }>('/api/tenants', {
      json: { name, sites: [{ name: 'Berlin' }] },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['tenant_id']);

    const fetched = await api.get<Record<string, unknown>>(`/api/tenants/${created.body.tenant_id}`);
    expect(fetched.status).toBe(200);
    const body = fetched.body;
    expect(Object.keys(body).sort()).toEqual([
      'aws_external_id',
      'created_at',
      'default_object_store_id',
      'idp_org_id',
      'name',
      'sites',
      'slug',
      'status',
      'tenant_id',
      'updated_at',
    ]);
    expect(body).toMatchObject({
      name,
      slug: name.toLowerCase().replace(/ /g, '-'),
      status: 'Active',
      sites: [{ name: 'Berlin' }],
      default_object_store_id: null,
      idp_org_id: null,
      aws_external_id: expect.stringMatching(/^tributary-[0-9a-f]{32}$/),
    });
    expect(body.created_at).toBe(body.updated_at);
  });

  it('lists every tenant to a PlatformAdmin, page by page, and only its own to a tenant key', async () => {
    // Three at least, so that a page of two has a next one, whichever other files have run yet.
    await Promise.all([createTenant(api), createTenant(api)]);
    const first = await api.get<z.infer<typeof listTenantsResponse>>('/api/tenants?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.tenants).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await api.get<z.infer<typeof listTenantsResponse>>(
      `/api/tenants?limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.tenants.map((t) => t.tenant_id)).not.toContain(first.body.tenants[0]?.tenant_id);

    const own = await api.get<z.infer<typeof listTenantsResponse>>('/api/tenants', {
      key: acme.users.TenantViewer.key,
    });
    expect(own.body.tenants.map((t) => t.tenant_id)).toEqual([acme.tenantId]);
    expect(own.body.next_cursor).toBeNull();
  });

  it('refuses a cursor forged to reach another partition with 400', async () => {
    const forged = Buffer.from(
      JSON.stringify({ pk: 'USER#x', sk: 'USER', gsi1pk: `TENANT#${acme.tenantId}#USERS`, gsi1sk: 'x' }),
    ).toString('base64url');
    const response = await api.get(`/api/tenants?cursor=${forged}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('suspends a tenant: reads work, writes get 422, access can still be reduced; then reactivates', async () => {
    const t = await createTenantWithUsers(api);
    const spare = await createUser(api, t.tenantId, 'TenantViewer');
    expect((await api.post(`/api/tenants/${t.tenantId}/suspend`)).status).toBe(204);
    expect((await api.post(`/api/tenants/${t.tenantId}/suspend`)).status).toBe(409);

    const read = await api.get<{ status: string }>(`/api/tenants/${t.tenantId}`, { key: t.users.TenantViewer.key });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('Suspended');

    const write = await api.post('/api/users', {
      key: t.users.TenantAdmin.key,
      json: { email: `${unique('x')}@example.com`, password: password(), role: 'TenantViewer' },
    });
    expect(write.status).toBe(422);
    expect(write.body).toMatchObject({ code: 'TENANT_SUSPENDED' });
    expect((await registerStoreRaw(t.tenantId, t.users.TenantAdmin.key)).status).toBe(422);

    expect((await api.post(`/api/users/${spare.userId}/deactivate`, { key: t.users.TenantAdmin.key })).status).toBe(
      204,
    );

    expect((await api.post(`/api/tenants/${t.tenantId}/reactivate`)).status).toBe(204);
    expect((await api.post(`/api/tenants/${t.tenantId}/reactivate`)).status).toBe(409);
    expect((await registerStoreRaw(t.tenantId, t.users.TenantAdmin.key)).status).toBe(201);
  });
});

function registerStoreRaw(
  tenantId: string,
  key?: string,
  body: unknown = { base_url: `s3://demo-bucket/${unique('store')}`, name: 'store', options: { region: 'eu-west-1' } },
) {
  return api.post(`/api/tenants/${tenantId}/register-object-store`, { key, json: body });
}

describe('object stores', () => {
  it('registers stores, makes the first the default, and shows option keys but never their values', async () => {
    const tenantId = await createTenant(api);
    const secret = `secret-${unique('value')}`;
    const first = await registerStore(
      api,
      tenantId,
      { access_key_id: unique('AKIA'), secret_access_key: secret, region: 'eu-west-1' },
      's3://demo-bucket/raw/',
    );
    const second = await registerStore(api, tenantId, { endpoint: 'http://127.0.0.1:4569', force_path_style: 'true' });

    const listed = await api.get<z.infer<typeof listObjectStoresResponse>>(`/api/tenants/${tenantId}/object-stores`);
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.object_stores.map((store) => [store.object_store_id, store]));
    expect(byId.get(first)).toMatchObject({
      is_default: true,
      configuration: {
        base_url: 's3://demo-bucket/raw',
        option_keys: ['access_key_id', 'region', 'secret_access_key'],
      },
    });
    expect(byId.get(second)).toMatchObject({
      is_default: false,
      configuration: { option_keys: ['endpoint', 'force_path_style'] },
    });
    expect(listed.text).not.toContain(secret);

    expect(
      (await api.post(`/api/tenants/${tenantId}/select-default-object-store`, { json: { object_store_id: second } }))
        .status,
    ).toBe(204);
    const tenantNow = await api.get<{ default_object_store_id: string }>(`/api/tenants/${tenantId}`);
    expect(tenantNow.body.default_object_store_id).toBe(second);

    const replaced = await api.post(`/api/tenants/${tenantId}/update-object-store-options`, {
      json: { object_store_id: first, options: { region: 'us-east-2' } },
    });
    expect(replaced.status).toBe(204);
    const after = await api.get<z.infer<typeof listObjectStoresResponse>>(`/api/tenants/${tenantId}/object-stores`);
    expect(
      after.body.object_stores.find((store) => store.object_store_id === first)?.configuration.option_keys,
    ).toEqual(['region']);
  });

  it('keeps the place of a store that holds a table: another endpoint is 409 naming the data set, and nothing changes', async () => {
    // Arrange: a webhook's data set with a committed table in the tenant's store.
    const hook = await createWebhook(api);
    expect((await ingest(api, hook, JSON.stringify({ hello: 'place' }))).status).toBe(202);
    await waitForRows(api, hook.dataSetId, 1);
    const stores = await api.get<z.infer<typeof listObjectStoresResponse>>(
      `/api/tenants/${hook.tenantId}/object-stores`,
    );
    const [store] = stores.body.object_stores;
    // Act
    const moved = await api.post<{ code: string; message: string }>(
      `/api/tenants/${hook.tenantId}/update-object-store-options`,
      { json: { object_store_id: store?.object_store_id, options: { endpoint: 'http://127.0.0.1:9' } } },
    );
    // Assert
    expect([moved.status, moved.body.code]).toEqual([409, 'CONFLICT']);
    expect(moved.body.message).toContain(hook.dataSetId);
    const after = await api.get<z.infer<typeof listObjectStoresResponse>>(
      `/api/tenants/${hook.tenantId}/object-stores`,
    );
    expect(after.body.object_stores).toEqual(stores.body.object_stores);
  });

  // The other refusals of the validation rules are unit tests (test/unit/tenants-users.test.ts).
  it.each([
    [
      'an unknown option',
      { base_url: 's3://demo-bucket', name: 's', options: { password: 'x-secret-value' } },
      'options.password',
    ],
    [
      'an endpoint with credentials',
      { base_url: 's3://demo-bucket', name: 's', options: { endpoint: 'http://user:pa55word@h' } },
      'options.endpoint',
    ],
  ])('refuses %s with 400, names the field, never echoes the value, and stores nothing', async (_, body, path) => {
    const tenantId = await createTenant(api);
    const response = await registerStoreRaw(tenantId, undefined, body);
    expect(response.status).toBe(400);
    expect((response.body as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(path);
    for (const value of Object.values(body.options)) expect(response.text).not.toContain(value);
    const listed = await api.get<{ object_stores: unknown[] }>(`/api/tenants/${tenantId}/object-stores`);
    expect(listed.body.object_stores).toEqual([]);
  });
});

describe('users', () => {
  it('creates a user and shows it by id and by email in any case, with every field typed', async () => {
    const email = `${unique('Mixed.Case')}@Example.com`;
    const created = await api.post<{ user_id: string; email: string }>('/api/users', {
      json: { email, password: password(), role: 'TenantEditor', tenant_id: acme.tenantId },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['email', 'user_id']);
    expect(created.body.email).toBe(email);

    const byId = await api.get<{ tenant_slug: string }>(`/api/users/${created.body.user_id}`);
    const parsed = byId.body;
    expect(Object.keys(parsed).sort()).toEqual([
      'created_at',
      'email',
      'external_id',
      'role',
      'status',
      'tenant_id',
      'tenant_name',
      'tenant_slug',
      'updated_at',
      'user_id',
    ]);
    expect(parsed).toMatchObject({
      email,
      role: 'TenantEditor',
      status: 'Active',
      tenant_id: acme.tenantId,
      external_id: null,
    });
    expect(parsed.tenant_slug).toEqual(expect.any(String));
    expect(byId.text).not.toContain('password');

    const byEmail = await api.get<{ user_id: string }>(
      `/api/users/by-email?email=${encodeURIComponent(email.toUpperCase())}`,
    );
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.user_id).toBe(created.body.user_id);
  });

  it('lets a TenantAdmin create users in its own tenant without naming it, and not PlatformAdmins', async () => {
    const admin = acme.users.TenantAdmin.key;
    const own = await api.post<{ user_id: string }>('/api/users', {
      key: admin,
      json: { email: `${unique('own')}@example.com`, password: password(), role: 'TenantViewer' },
    });
    expect(own.status).toBe(201);
    const fetched = await api.get<{ tenant_id: string }>(`/api/users/${own.body.user_id}`);
    expect(fetched.body.tenant_id).toBe(acme.tenantId);

    const platform = await api.post('/api/users', {
      key: admin,
      json: { email: `${unique('p')}@example.com`, password: password(), role: 'PlatformAdmin' },
    });
    expect(platform.status).toBe(403);
  });

  it('filters the user list by tenant, role and status, page by page', async () => {
    const t = await createTenantWithUsers(api);
    const extraViewer = await createUser(api, t.tenantId, 'TenantViewer');
    await api.post(`/api/users/${extraViewer.userId}/deactivate`);

    const viewers = await api.get<z.infer<typeof listUsersResponse>>(
      `/api/users?tenant_id=${t.tenantId}&role=TenantViewer`,
    );
    expect(viewers.status).toBe(200);
    expect(viewers.body.users.map((u) => u.user_id).sort()).toEqual(
      [t.users.TenantViewer.userId, extraViewer.userId].sort(),
    );

    const deactivated = await api.get<z.infer<typeof listUsersResponse>>(
      `/api/users?tenant_id=${t.tenantId}&status=Deactivated`,
    );
    expect(deactivated.body.users.map((u) => u.user_id)).toEqual([extraViewer.userId]);

    const pageOne = await api.get<z.infer<typeof listUsersResponse>>(`/api/users?tenant_id=${t.tenantId}&limit=3`);
    expect(pageOne.body.users).toHaveLength(3);
    const pageTwo = await api.get<z.infer<typeof listUsersResponse>>(
      `/api/users?tenant_id=${t.tenantId}&limit=3&cursor=${pageOne.body.next_cursor}`,
    );
    expect(pageTwo.body.users).toHaveLength(1);
    expect(pageTwo.body.next_cursor).toBeNull();

    const fromTenantKey = await api.get<z.infer<typeof listUsersResponse>>('/api/users', {
      key: t.users.TenantViewer.key,
    });
    expect(fromTenantKey.body.users).toHaveLength(4);
  });

  it('keeps a tenant one active TenantAdmin: of two admins demoting (or deactivating) each other at once, one is refused 409', async () => {
    const t = await createTenantWithUsers(api);
    const first = t.users.TenantAdmin;
    const second = await createUser(api, t.tenantId, 'TenantAdmin');
    const activeAdmins = async (...users: { userId: string }[]) => {
      const read = await Promise.all(
        users.map((user) => api.get<{ role: string; status: string }>(`/api/users/${user.userId}`)),
      );
      return read.filter((user) => user.body.role === 'TenantAdmin' && user.body.status === 'Active').length;
    };

    const demotions = await Promise.all([
      api.post(`/api/users/${second.userId}/change-role`, { key: first.key, json: { role: 'TenantViewer' } }),
      api.post(`/api/users/${first.userId}/change-role`, { key: second.key, json: { role: 'TenantViewer' } }),
    ]);
    expect(demotions.map((answer) => answer.status).sort()).toEqual([204, 409]);
    expect(demotions.find((answer) => answer.status === 409)?.body).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('at least one active TenantAdmin'),
    });
    expect(await activeAdmins(first, second)).toBe(1);

    // The one left, even for a PlatformAdmin, neither demoted nor deactivated.
    const left = demotions[0]?.status === 204 ? first : second;
    expect((await api.post(`/api/users/${left.userId}/change-role`, { json: { role: 'TenantEditor' } })).status).toBe(
      409,
    );
    expect((await api.post(`/api/users/${left.userId}/deactivate`)).status).toBe(409);

    // Deactivating each other at once, likewise.
    const third = await createUser(api, t.tenantId, 'TenantAdmin');
    const deactivations = await Promise.all([
      api.post(`/api/users/${third.userId}/deactivate`, { key: left.key }),
      api.post(`/api/users/${left.userId}/deactivate`, { key: third.key }),
    ]);
    expect(deactivations.map((answer) => answer.status).sort()).toEqual([204, 409]);
    expect(await activeAdmins(left, third)).toBe(1);
  });

  it('stops the key of a deactivated user on the very next request, and restores it on reactivation', async () => {
    const target = await createUser(api, acme.tenantId, 'TenantViewer');
    expect((await api.get('/api/tenants', { key: target.key })).status).toBe(200);
    expect((await api.post(`/api/users/${target.userId}/deactivate`)).status).toBe(204);
    expect((await api.get('/api/tenants', { key: target.key })).status).toBe(401);
    expect((await api.post(`/api/users/${target.userId}/deactivate`)).status).toBe(409);
    expect((await api.post(`/api/users/${target.userId}/reactivate`)).status).toBe(204);
    expect((await api.get('/api/tenants', { key: target.key })).status).toBe(200);
  });
});

describe('API keys', () => {
  it('shows a key once, lists it by prefix only, and revokes it at once', async () => {
    const target = await createUser(api, acme.tenantId, 'TenantViewer');
    const created = await api.post<z.infer<typeof createApiKeyResponse>>(`/api/users/${target.userId}/api-keys`, {
      json: { name: 'ci' },
    });
    expect(created.status).toBe(201);
    const body = created.body;
    expect(Object.keys(body).sort()).toEqual(['api_key', 'api_key_id', 'created_at', 'prefix']);
    issuedKeys.push(body.api_key);
    expect(body.api_key.startsWith('trb_key_')).toBe(true);
    expect(body.api_key.startsWith(body.prefix)).toBe(true);
    expect(body.prefix.length).toBeLessThan(16);

    const listed = await api.get<{ api_keys: unknown[] }>(`/api/users/${target.userId}/api-keys`);
    expect(listed.status).toBe(200);
    for (const key of listed.body.api_keys)
      expect(Object.keys(key as object).sort()).toEqual(['api_key_id', 'created_at', 'last_used_at', 'name', 'prefix']);
    expect(listed.body.api_keys).toHaveLength(2);
    expect(listed.text).not.toContain(body.api_key);

    expect((await api.get('/api/tenants', { key: body.api_key })).status).toBe(200);
    expect((await api.delete(`/api/users/${target.userId}/api-keys/${body.api_key_id}`)).status).toBe(204);
    expect((await api.get('/api/tenants', { key: body.api_key })).status).toBe(401);
    expect((await api.delete(`/api/users/${target.userId}/api-keys/${body.api_key_id}`)).status).toBe(404);
    expect((await api.get('/api/tenants', { key: target.key })).status).toBe(200);
  });

  it('records when a key was last used', async () => {
    const target = await createUser(api, acme.tenantId, 'TenantViewer');
    await api.get('/api/tenants', { key: target.key });
    const listed = await api.get<{ api_keys: { last_used_at: string | null }[] }>(
      `/api/users/${target.userId}/api-keys`,
    );
    expect(listed.body.api_keys[0]?.last_used_at).toEqual(expect.any(String));
  });
});

describe('uniqueness under concurrency', () => {
  it('gives exactly one 201 among 20 parallel creations of one tenant slug', async () => {
    const name = unique('Race');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post('/api/tenants', { json: { name: i % 2 ? name : name.toUpperCase() } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
  });

  const createdUser = z.object({ user_id: z.string() });

  it('gives exactly one 201 among 20 parallel creations of one email in different cases', async () => {
    const email = `${unique('race')}@example.com`;
    // Locally the 20 invocations share one environment (docs/local-mode.md): their password hashes
    // (scrypt, about 50 ms of CPU each) and their DynamoDB transactions wait for each other. At a
    // load average of 37 on two cores, some passed the function's 10 s (API Gateway's own 500, outside
    // the service's contract: sent without the contract check) and all 20 passed the 5 s a DynamoDB
    // call has to begin its answer (500 INTERNAL), the winner's write landing all the same. So an
    // answer may be a 500 that a time limit gave; what must hold whatever the speed: the address is
    // one user's, at most one creation says 201 and it names that user, every other says 409.
    const responses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await fetch(`${api.baseUrl}/api/users`, {
          method: 'POST',
          headers: { 'x-api-key': inject('adminKey'), 'content-type': 'application/json' },
          body: JSON.stringify({
            email: i % 2 ? email : email.toUpperCase(),
            password: password(),
            role: 'TenantViewer',
            tenant_id: acme.tenantId,
          }),
        });
        const body: unknown = await response.json();
        return { status: response.status, body };
      }),
    );
    const statuses = responses.map((response) => response.status);
    const created = responses.flatMap((response) =>
      response.status === 201 ? [createdUser.parse(response.body).user_id] : [],
    );
    const holders = await api.get<z.infer<typeof listUsersResponse>>(`/api/users?tenant_id=${acme.tenantId}&limit=100`);
    const holding = holders.body.users.filter((user) => user.email.toLowerCase() === email).map((user) => user.user_id);
    const unanswered = statuses.filter((status) => status === 500).length;
    expect({
      holding: holding.length,
      created: created.length === 1 ? created[0] === holding[0] : created.length === 0 && unanswered > 0,
      conflicts: statuses.filter((status) => status === 409).length,
      others: statuses.filter((status) => status !== 201 && status !== 409 && status !== 500),
    }).toEqual({
      holding: 1,
      created: true,
      conflicts: 20 - created.length - unanswered,
      others: [],
    });
  });
});

describe('the dashboard connection', () => {
  // The service's dashboard tool is the stand-in test/support/global-setup.ts runs; a service
  // without one is a unit test (test/unit/data-sets-wiki-dashboard.test.ts).
  const deliveries = async (tenantId: string) =>
    ((await (await fetch(`${inject('dashboardTool')}/deliveries`)).json()) as { tenant_id: string; api_key: string }[])
      .filter((delivery) => delivery.tenant_id === tenantId)
      .map((delivery) => delivery.api_key);

  it('starts NotConfigured, hands the tool a read-only key, and a rotation replaces it and revokes the old one', async () => {
    const tenantId = await createTenant(api);
    const initial = await api.get(`/api/tenants/${tenantId}/dashboard-connection`);
    expect(initial.body).toEqual({ status: 'NotConfigured', last_error: null, rotated_at: null });
    const retried = await api.post<{ status: string }>(`/api/tenants/${tenantId}/dashboard-connection/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('Pending');
    const active = await pollUntil(
      () => api.get<{ status: string }>(`/api/tenants/${tenantId}/dashboard-connection`),
      (response) => response.body.status !== 'Pending',
      { what: 'the dashboard connection to be provisioned' },
    );
    expect(active.body.status).toBe('Active');
    const [credential] = await deliveries(tenantId);
    expect(credential).toMatch(/^trb_key_/);
    neverShown.add(credential as string);

    expect((await api.get(`/api/tenants/${tenantId}`, { key: credential })).status).toBe(200);
    const write = await api.post(`/api/tenants/${tenantId}/register-object-store`, {
      key: credential,
      json: { base_url: 's3://demo-bucket', name: 'x', options: { region: 'eu-west-1' } },
    });
    expect(write.status).toBe(403);

    expect((await api.post(`/api/tenants/${tenantId}/dashboard-connection/rotate`)).status).toBe(204);
    const keys = await pollUntil(
      () => deliveries(tenantId),
      (delivered) => delivered.length === 2,
      { what: 'a second credential at the dashboard tool' },
    );
    const second = keys[1] as string;
    neverShown.add(second);
    expect(second).not.toBe(credential);
    expect((await api.get(`/api/tenants/${tenantId}`, { key: credential })).status).toBe(401);
    expect((await api.get(`/api/tenants/${tenantId}`, { key: second })).status).toBe(200);
  });
});

describe('bad input changes nothing', () => {
  // Every route's edge refuses bad bodies in test/unit/api-edge.test.ts; here, that the service
  // answers them in the error shape and stores nothing.
  it('refuses a user with a field too many, of the wrong type or oversized, and stores none', async () => {
    const valid = {
      email: `${unique('u')}@example.com`,
      password: password(),
      role: 'TenantViewer',
      tenant_id: acme.tenantId,
    };
    const users = async () =>
      (await api.get<{ users: { email: string }[] }>(`/api/users?tenant_id=${acme.tenantId}&limit=1000`)).body.users;
    const before = await users();
    for (const body of [
      { ...valid, status: 'Active' },
      { ...valid, role: 12345 },
      { ...valid, email: 'x'.repeat(5000) },
    ]) {
      const response = await api.post('/api/users', { json: body });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR', request_id: expect.any(String) });
    }
    const malformed = await api.post('/api/users', { raw: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(malformed.body).toMatchObject({ code: 'INVALID_JSON' });
    expect(await users()).toEqual(before);
  });
});

describe('secrets in responses', () => {
  it('never shows a password, a key hash or an option value, and each API key only in its creation response', () => {
    expect(seenBodies.length).toBeGreaterThan(100);
    const all = seenBodies.join('\n');
    for (const secret of neverShown)
      expect(all.includes(secret), 'a password, option value or credential was shown').toBe(false);
    for (const key of issuedKeys) {
      expect(all.includes(hashToken(key)), 'a key hash was shown').toBe(false);
      expect(all.split(key).length - 1, 'an API key was shown more than once').toBe(1);
    }
    expect(all).not.toMatch(/password_hash|options_sealed|scrypt\$/);
  });
});
