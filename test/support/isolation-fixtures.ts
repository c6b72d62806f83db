/**
 * One request per API-key route for the isolation suite (test/integration/isolation.test.ts).
 * `build` aims the request at the target tenant's resources; routes that change or remove
 * something build a fresh resource each time, so that every case starts from the same state.
 * A `global` route acts on the platform, not on one tenant.
 */
import type { Role } from '#shared/domain/authorization.ts';
import type { ApiClient } from './api.ts';
import type { createTenant, createUser, password, unique } from './fixtures.ts';
import { pollUntil } from './poll.ts';

export interface FixtureContext {
  api: ApiClient;
  world: {
    tenant: { tenantId: string };
    storeId: string;
    subject: { userId: string; email: string };
    dataSetId: string;
  };
  role: Role;
  helpers: {
    createTenant: typeof createTenant;
    createUser: typeof createUser;
    password: typeof password;
    unique: typeof unique;
  };
}

export interface IsolationFixture {
  scope: 'global' | 'tenant';
  /** `method`: for a route of any method (`ANY`), the one to send. */
  build(context: FixtureContext): Promise<{ path: string; body?: unknown; method?: string }>;
}

/** One resource per target tenant for the routes that only read it, built by the first case that needs it. */
function shared<T>(make: (context: FixtureContext) => Promise<T>): (context: FixtureContext) => Promise<T> {
  const built = new WeakMap<object, Promise<T>>();
  return (context) => {
    let resource = built.get(context.world);
    if (!resource) {
      resource = make(context);
      built.set(context.world, resource);
    }
    return resource;
  };
}

/** The target tenant's slug: its namespace in the Iceberg catalog. */
const slugOf = shared(
  async ({ api, world }: FixtureContext) =>
    (await api.get<{ slug: string }>(`/api/tenants/${world.tenant.tenantId}`)).body.slug,
);

const freshUser = async ({ api, world, helpers }: FixtureContext) =>
  helpers.createUser(api, world.tenant.tenantId, 'TenantViewer');

/** A new connection in the target tenant, optionally moved to a state first (as the bootstrap key). */
async function freshConnection({ api, world }: FixtureContext, ...moves: string[]) {
  const created = await api.post<{ connection_id: string; data_set_id: string }>(
    `/api/tenants/${world.tenant.tenantId}/connections`,
    {
      json: { type: 'Webhook', name: 'isolation' },
    },
  );
  for (const move of moves) await api.post(`/api/connections/${created.body.connection_id}/${move}`);
  return created.body;
}

const definitionFor = (dataSetId: string) => ({
  source: { data_set_id: dataSetId },
  decode: { format: 'json' },
  columns: [{ name: 'a', path: '$.a', type: 'string' }],
  output: { name: 'isolation' },
});

/** A new pipeline in the target tenant (deployed, or first moved to a state), made with the bootstrap key. */
async function freshPipeline({ api, world }: FixtureContext, ...steps: string[]) {
  const created = await api.post<{ pipeline_id: string }>('/api/pipelines', {
    json: { tenant_id: world.tenant.tenantId, name: 'isolation', definition: definitionFor(world.dataSetId) },
  });
  for (const step of steps)
    await api.post(`/api/pipelines/${created.body.pipeline_id}/${step}`, { json: step === 'deploy' ? {} : undefined });
  return created.body.pipeline_id;
}

/** A finished query job in the target tenant (reading it, its result, or cancelling it changes nothing). */
const finishedJob = shared(async ({ api, world }: FixtureContext) => {
  const { output: _output, ...query } = definitionFor(world.dataSetId);
  const started = await api.post<{ job_id: string }>('/api/jobs', {
    json: { type: 'query', tenant_id: world.tenant.tenantId, query },
  });
  await pollUntil(
    () => api.get<{ status: string }>(`/api/jobs/${started.body.job_id}`),
    (job) => job.body.status === 'Succeeded',
    { what: 'the isolation query job to succeed' },
  );
  return started.body.job_id;
});

/** A connection and a pipeline for the routes that only read them. */
const readConnection = shared((context) => freshConnection(context));
const readPipeline = shared((context) => freshPipeline(context));

const scopeOf = (world: FixtureContext['world']) => `tenant_id=${world.tenant.tenantId}`;

/** A wiki document of the target tenant, for the route that reads one: its path and scope. */
const readDocument = shared(async ({ api, world }: FixtureContext) => {
  await api.put(`/api/wiki-documents/isolation/read?${scopeOf(world)}`, { json: { content: 'x' } });
  return `isolation/read?${scopeOf(world)}`;
});

const connectionRoute = (action: string, ...moves: string[]): IsolationFixture => ({
  scope: 'tenant',
  build: async (context) => ({
    path: `/api/connections/${(await freshConnection(context, ...moves)).connection_id}/${action}`,
  }),
});

/** A route that only reads a connection. */
const connectionRead = (action: string): IsolationFixture => ({
  scope: 'tenant',
  build: async (context) => ({ path: `/api/connections/${(await readConnection(context)).connection_id}/${action}` }),
});

export const isolationFixtures: Record<string, IsolationFixture> = {
  'GET /api/connections/{connection_id}/security': connectionRead('security'),
  'PUT /api/connections/{connection_id}/security': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/api/connections/${(await freshConnection(context)).connection_id}/security`,
      body: {
        auth_mode: 'signature',
        signature: { scheme: 'github' },
        dedup_window_seconds: 60,
        rate_limit: null,
        ip_allowlist: null,
      },
    }),
  },
  'POST /api/connections/{connection_id}/rotate-signing-secret': {
    scope: 'tenant',
    build: async (context) => {
      const connection = await freshConnection(context);
      await context.api.put(`/api/connections/${connection.connection_id}/security`, {
        json: {
          auth_mode: 'signature',
          signature: { scheme: 'standard-webhooks' },
          dedup_window_seconds: 0,
          rate_limit: null,
          ip_allowlist: null,
        },
      });
      return { path: `/api/connections/${connection.connection_id}/rotate-signing-secret`, body: {} };
    },
  },
  'GET /api/connections/{connection_id}/rejections': connectionRead('rejections'),
  'GET /api/connections/{connection_id}/failed-deliveries': connectionRead('failed-deliveries'),
  'POST /api/connections/{connection_id}/failed-deliveries/redrive': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/api/connections/${(await freshConnection(context)).connection_id}/failed-deliveries/redrive`,
      body: {},
    }),
  },
  'GET /api/connections/{connection_id}/stats': connectionRead('stats'),
  'GET /api/connections/{connection_id}/events': connectionRead('events'),
  'GET /api/connections/{connection_id}/stats/history': connectionRead('stats/history'),
  'GET /api/tenants/{tenant_id}/stats': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/stats` }),
  },
  'GET /api/tenants/{tenant_id}/stats/history': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/stats/history` }),
  },
  'GET /api/data-sets/{data_set_id}/runs': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/data-sets/${world.dataSetId}/runs` }),
  },
  'GET /api/pipelines': { scope: 'tenant', build: async ({ world }) => ({ path: `/api/pipelines?${scopeOf(world)}` }) },
  'POST /api/pipelines': {
    scope: 'tenant',
    build: async ({ world }) => ({
      path: '/api/pipelines',
      body: { tenant_id: world.tenant.tenantId, name: 'isolation' },
    }),
  },
  'GET /api/pipelines/{pipeline_id}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/pipelines/${await readPipeline(context)}` }),
  },
  'DELETE /api/pipelines/{pipeline_id}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/pipelines/${await freshPipeline(context)}` }),
  },
  'POST /api/pipelines/{pipeline_id}/update-definition': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/api/pipelines/${await freshPipeline(context)}/update-definition`,
      body: { definition: definitionFor(context.world.dataSetId) },
    }),
  },
  'POST /api/pipelines/{pipeline_id}/deploy': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/pipelines/${await freshPipeline(context)}/deploy`, body: {} }),
  },
  'POST /api/pipelines/{pipeline_id}/enable': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/pipelines/${await freshPipeline(context, 'disable')}/enable` }),
  },
  'POST /api/pipelines/{pipeline_id}/disable': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/pipelines/${await freshPipeline(context)}/disable` }),
  },
  'POST /api/pipelines/{pipeline_id}/rename': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/api/pipelines/${await freshPipeline(context)}/rename`,
      body: { name: 'renamed' },
    }),
  },
  'POST /api/pipelines/{pipeline_id}/trigger': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/pipelines/${await freshPipeline(context, 'deploy')}/trigger`, body: {} }),
  },
  'GET /api/jobs': { scope: 'tenant', build: async ({ world }) => ({ path: `/api/jobs?${scopeOf(world)}` }) },
  'POST /api/jobs': {
    scope: 'tenant',
    build: async ({ world }) => {
      const { output: _output, ...query } = definitionFor(world.dataSetId);
      return { path: '/api/jobs', body: { type: 'query', tenant_id: world.tenant.tenantId, query } };
    },
  },
  'GET /api/jobs/{job_id}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/jobs/${await finishedJob(context)}` }),
  },
  'GET /api/jobs/{job_id}/result': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/jobs/${await finishedJob(context)}/result` }),
  },
  'POST /api/jobs/{job_id}/cancel': {
    scope: 'tenant',
    // A finished job is the one state every run reaches deterministically; its authorised answer is 422.
    build: async (context) => ({ path: `/api/jobs/${await finishedJob(context)}/cancel` }),
  },
  'GET /api/wiki-documents': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/wiki-documents?${scopeOf(world)}` }),
  },
  'GET /api/wiki-documents/{path+}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/wiki-documents/${await readDocument(context)}` }),
  },
  'PUT /api/wiki-documents/{path+}': {
    scope: 'tenant',
    build: async ({ world, helpers }) => ({
      path: `/api/wiki-documents/isolation/${helpers.unique('doc')}?${scopeOf(world)}`,
      body: { content: 'x' },
    }),
  },
  'DELETE /api/wiki-documents/{path+}': {
    scope: 'tenant',
    build: async ({ api, world, helpers }) => {
      const path = `/api/wiki-documents/isolation/${helpers.unique('doc')}?${scopeOf(world)}`;
      await api.put(path, { json: { content: 'x' } });
      return { path };
    },
  },
  'POST /api/tenants/{tenant_id}/connections': {
    scope: 'tenant',
    build: async ({ world }) => ({
      path: `/api/tenants/${world.tenant.tenantId}/connections`,
      body: { type: 'Webhook', name: 'isolation' },
    }),
  },
  'GET /api/tenants/{tenant_id}/connections': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/connections` }),
  },
  'GET /api/connections/{connection_id}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/connections/${(await readConnection(context)).connection_id}` }),
  },
  'POST /api/connections/{connection_id}/regenerate-token': connectionRoute('regenerate-token'),
  'POST /api/connections/{connection_id}/activate': connectionRoute('activate', 'deactivate'),
  'POST /api/connections/{connection_id}/deactivate': connectionRoute('deactivate'),
  'POST /api/connections/{connection_id}/pause-source': connectionRoute('pause-source'),
  'POST /api/connections/{connection_id}/resume-source': connectionRoute('resume-source', 'pause-source'),
  'DELETE /api/connections/{connection_id}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/connections/${(await freshConnection(context)).connection_id}` }),
  },
  'GET /api/data-sets': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/data-sets?tenant_id=${world.tenant.tenantId}` }),
  },
  'GET /api/data-sets/{data_set_id}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/data-sets/${(await readConnection(context)).data_set_id}` }),
  },
  'GET /api/data-sets/{data_set_id}/files': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/data-sets/${(await readConnection(context)).data_set_id}/files` }),
  },
  'DELETE /api/data-sets/{data_set_id}': {
    scope: 'tenant',
    build: async (context) => {
      const connection = await freshConnection(context);
      await context.api.delete(`/api/connections/${connection.connection_id}`);
      return { path: `/api/data-sets/${connection.data_set_id}` };
    },
  },
  'POST /api/data-sets/{data_set_id}/optimize': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/data-sets/${world.dataSetId}/optimize`, body: {} }),
  },
  'POST /api/data-sets/{data_set_id}/suggest-columns': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/data-sets/${world.dataSetId}/suggest-columns`, body: {} }),
  },
  'GET /api/data-sets/{data_set_id}/table-properties': {
    scope: 'tenant',
    // Answered alike before the world's data set has a commit (the defaults) and after the PUT's row made one.
    build: async ({ world }) => ({ path: `/api/data-sets/${world.dataSetId}/table-properties` }),
  },
  'PUT /api/data-sets/{data_set_id}/table-properties': {
    scope: 'tenant',
    // The world's data set has no commit yet: an authorised caller's properties make its first commit.
    build: async ({ world }) => ({
      path: `/api/data-sets/${world.dataSetId}/table-properties`,
      body: { properties: { 'delta.checkpointInterval': '20' } },
    }),
  },
  'GET /metrics': { scope: 'global', build: async () => ({ path: '/metrics' }) },
  'GET /api/tenants': { scope: 'global', build: async () => ({ path: '/api/tenants' }) },
  'GET /api/me': { scope: 'global', build: async () => ({ path: '/api/me' }) },
  'POST /api/tenants': {
    scope: 'global',
    build: async ({ helpers }) => ({ path: '/api/tenants', body: { name: helpers.unique('isolation') } }),
  },
  'GET /api/tenants/{tenant_id}': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}` }),
  },
  'POST /api/tenants/{tenant_id}/suspend': {
    scope: 'tenant',
    // Only a PlatformAdmin may suspend; it gets a tenant of its own so the shared ones stay active.
    build: async ({ api, world, role, helpers }) => ({
      path: `/api/tenants/${role === 'PlatformAdmin' ? await helpers.createTenant(api) : world.tenant.tenantId}/suspend`,
    }),
  },
  'POST /api/tenants/{tenant_id}/reactivate': {
    scope: 'tenant',
    build: async ({ api, world, role, helpers }) => {
      if (role !== 'PlatformAdmin') return { path: `/api/tenants/${world.tenant.tenantId}/reactivate` };
      const tenantId = await helpers.createTenant(api);
      await api.post(`/api/tenants/${tenantId}/suspend`);
      return { path: `/api/tenants/${tenantId}/reactivate` };
    },
  },
  'GET /api/tenants/{tenant_id}/object-stores': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/object-stores` }),
  },
  'POST /api/tenants/{tenant_id}/register-object-store': {
    scope: 'tenant',
    build: async ({ world }) => ({
      path: `/api/tenants/${world.tenant.tenantId}/register-object-store`,
      body: {
        // A place of the tenant's own: another tenant's store there would overlap it (409).
        base_url: `s3://demo-bucket/isolation-${world.tenant.tenantId}`,
        name: 'isolation',
        options: { region: 'eu-west-1' },
      },
    }),
  },
  'POST /api/tenants/{tenant_id}/select-default-object-store': {
    scope: 'tenant',
    build: async ({ world }) => ({
      path: `/api/tenants/${world.tenant.tenantId}/select-default-object-store`,
      body: { object_store_id: world.storeId },
    }),
  },
  'POST /api/tenants/{tenant_id}/update-object-store-options': {
    scope: 'tenant',
    build: async ({ world }) => ({
      path: `/api/tenants/${world.tenant.tenantId}/update-object-store-options`,
      // The store's own region again: its place may not change once the world's data set has a table in it (409).
      body: { object_store_id: world.storeId, options: { region: 'eu-west-1' } },
    }),
  },
  'GET /api/tenants/{tenant_id}/dashboard-connection': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/dashboard-connection` }),
  },
  'POST /api/tenants/{tenant_id}/dashboard-connection/retry': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/dashboard-connection/retry` }),
  },
  'POST /api/tenants/{tenant_id}/dashboard-connection/rotate': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/tenants/${world.tenant.tenantId}/dashboard-connection/rotate` }),
  },
  'GET /api/users': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/users?tenant_id=${world.tenant.tenantId}` }),
  },
  'POST /api/users': {
    scope: 'tenant',
    build: async ({ world, helpers }) => ({
      path: '/api/users',
      body: {
        email: `${helpers.unique('isolation')}@example.com`,
        password: helpers.password(),
        role: 'TenantViewer',
        tenant_id: world.tenant.tenantId,
      },
    }),
  },
  'GET /api/users/by-email': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/users/by-email?email=${encodeURIComponent(world.subject.email)}` }),
  },
  'GET /api/users/{user_id}': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/users/${world.subject.userId}` }),
  },
  'POST /api/users/{user_id}/change-role': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/api/users/${(await freshUser(context)).userId}/change-role`,
      body: { role: 'TenantEditor' },
    }),
  },
  'POST /api/users/{user_id}/deactivate': {
    scope: 'tenant',
    build: async (context) => ({ path: `/api/users/${(await freshUser(context)).userId}/deactivate` }),
  },
  'POST /api/users/{user_id}/reactivate': {
    scope: 'tenant',
    build: async (context) => {
      const user = await freshUser(context);
      await context.api.post(`/api/users/${user.userId}/deactivate`);
      return { path: `/api/users/${user.userId}/reactivate` };
    },
  },
  'POST /api/users/{user_id}/link-external-id': {
    scope: 'tenant',
    build: async ({ world }) => ({
      path: `/api/users/${world.subject.userId}/link-external-id`,
      body: { external_id: 'idp|1' },
    }),
  },
  'POST /api/users/{user_id}/api-keys': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/api/users/${(await freshUser(context)).userId}/api-keys`,
      body: { name: 'isolation' },
    }),
  },
  'GET /api/users/{user_id}/api-keys': {
    scope: 'tenant',
    build: async ({ world }) => ({ path: `/api/users/${world.subject.userId}/api-keys` }),
  },
  'DELETE /api/users/{user_id}/api-keys/{api_key_id}': {
    scope: 'tenant',
    build: async (context) => {
      const user = await freshUser(context);
      const listed = await context.api.get<{ api_keys: { api_key_id: string }[] }>(
        `/api/users/${user.userId}/api-keys`,
      );
      return { path: `/api/users/${user.userId}/api-keys/${listed.body.api_keys[0]?.api_key_id}` };
    },
  },
  'GET /iceberg/v1/config': { scope: 'global', build: async () => ({ path: '/iceberg/v1/config' }) },
  'GET /iceberg/v1/namespaces': { scope: 'global', build: async () => ({ path: '/iceberg/v1/namespaces' }) },
  'HEAD /iceberg/v1/namespaces': { scope: 'global', build: async () => ({ path: '/iceberg/v1/namespaces' }) },
  'GET /iceberg/v1/namespaces/{namespace}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/iceberg/v1/namespaces/${await slugOf(context)}` }),
  },
  'HEAD /iceberg/v1/namespaces/{namespace}': {
    scope: 'tenant',
    build: async (context) => ({ path: `/iceberg/v1/namespaces/${await slugOf(context)}` }),
  },
  'GET /iceberg/v1/namespaces/{namespace}/tables': {
    scope: 'tenant',
    build: async (context) => ({ path: `/iceberg/v1/namespaces/${await slugOf(context)}/tables` }),
  },
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/iceberg/v1/namespaces/${await slugOf(context)}/tables/${(await readConnection(context)).data_set_id}`,
    }),
  },
  'HEAD /iceberg/v1/namespaces/{namespace}/tables/{table}': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/iceberg/v1/namespaces/${await slugOf(context)}/tables/${(await readConnection(context)).data_set_id}`,
    }),
  },
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}/credentials': {
    scope: 'tenant',
    build: async (context) => ({
      path: `/iceberg/v1/namespaces/${await slugOf(context)}/tables/${(await readConnection(context)).data_set_id}/credentials`,
    }),
  },
  'ANY /iceberg/{path+}': {
    scope: 'tenant',
    build: async (context) => ({
      method: 'DELETE',
      path: `/iceberg/v1/namespaces/${await slugOf(context)}/tables/${(await readConnection(context)).data_set_id}`,
    }),
  },
};
