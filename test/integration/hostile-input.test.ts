/**
 * Hostile input against the running service: every operation of the served OpenAPI document is
 * fuzzed (test/support/fuzz.ts), and no request may answer 5xx or an error without the contract's
 * body. Then a tenant store pointed at a server that answers with secret-looking text: nothing of
 * that text, nor the store's address, reaches any response.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, seenBodies } from '../support/api.ts';
import { createTenant, createUser, registerStore, unique } from '../support/fixtures.ts';
import { type FuzzCase, fuzzCases, type OpenApi } from '../support/fuzz.ts';
import { createWebhook, ingest } from '../support/webhooks.ts';

const api = apiClient();
const baseUrl = inject('baseUrl');
const adminKey = inject('adminKey');
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

interface Answer {
  status: number;
  text: string;
}

function send(request: FuzzCase): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const outgoing = httpRequest(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: 30_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`No answer within 30 s: ${request.method} ${request.url}`)),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * What is wrong with an answer, or null: a 5xx, or an error without the body its route's protocol
 * gives one (CONTRACT §1; the Iceberg catalog's error model and, at its token endpoint, OAuth2's, §5a).
 * A HEAD answer has no body, whatever its status.
 */
function defectOf(answer: Answer, request: Pick<FuzzCase, 'method' | 'route'>): string | null {
  if (answer.status >= 500) return `${answer.status} ${answer.text.slice(0, 200)}`;
  if (answer.status < 400) return null;
  if (request.method === 'HEAD') return answer.text === '' ? null : `${answer.status} HEAD with a body`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `${answer.status} with a body that is not JSON: ${JSON.stringify(answer.text.slice(0, 80))}`;
  }
  const error = body as Record<string, unknown>;
  if (request.route === '/iceberg/v1/oauth/tokens') {
    const oauth =
      typeof error?.error === 'string' && /^[a-z_]+$/.test(error.error) && typeof error.error_description === 'string';
    return oauth ? null : `${answer.status} without OAuth2's error shape: ${answer.text.slice(0, 200)}`;
  }
  if (request.route.startsWith('/iceberg/')) {
    const inner = error?.error as Record<string, unknown> | undefined;
    const iceberg =
      Object.keys(error ?? {}).join(',') === 'error' &&
      typeof inner?.message === 'string' &&
      typeof inner.type === 'string' &&
      /Exception$/.test(inner.type) &&
      inner.code === answer.status;
    return iceberg ? null : `${answer.status} without Iceberg's error model: ${answer.text.slice(0, 200)}`;
  }
  const shaped =
    typeof error === 'object' &&
    error !== null &&
    Object.keys(error).sort().join(',') === 'code,details,message,request_id' &&
    typeof error.code === 'string' &&
    /^[A-Z_]+$/.test(error.code) &&
    typeof error.message === 'string' &&
    (error.details === null ||
      (Array.isArray(error.details) &&
        error.details.every((detail) => typeof detail?.path === 'string' && typeof detail?.message === 'string'))) &&
    typeof error.request_id === 'string' &&
    error.request_id.length > 0;
  return shaped ? null : `${answer.status} without the error shape: ${answer.text.slice(0, 200)}`;
}

async function runAll<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

/** A tenant with two of everything a list shows, so that every list has a second page (and a real cursor). */
async function fuzzWorld() {
  const tenantId = await createTenant(api);
  await createTenant(api);
  const storeId = await registerStore(api, tenantId, { endpoint: inject('runtimeEnv').AWS_ENDPOINT_URL_S3 as string });
  await registerStore(api, tenantId, { endpoint: inject('runtimeEnv').AWS_ENDPOINT_URL_S3 as string });
  const viewer = await createUser(api, tenantId, 'TenantViewer');
  const admin = await createUser(api, tenantId, 'TenantAdmin');
  const keys = await api.get<{ api_keys: { api_key_id: string }[] }>(`/api/users/${viewer.userId}/api-keys`);
  await api.post(`/api/users/${viewer.userId}/api-keys`, { json: { name: 'second' } });
  const hook = await createWebhook(api, { tenantId, store: null });
  await createWebhook(api, { tenantId, store: null });
  for (let i = 0; i < 2; i++) await ingest(api, { sourceId: hook.sourceId, token: 'trb_ing_wrong' }, '{}');
  const definition = {
    source: { data_set_id: hook.dataSetId },
    decode: { format: 'json' },
    columns: [{ name: 'a', path: '$.a', type: 'string' }],
    output: { name: unique('out') },
  };
  const pipelines: string[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await api.post<{ pipeline_id: string }>('/api/pipelines', {
      json: {
        tenant_id: tenantId,
        name: unique('pipeline'),
        definition: { ...definition, output: { name: unique('out') } },
      },
    });
    pipelines.push(created.body.pipeline_id);
  }
  const jobs: string[] = [];
  for (let i = 0; i < 2; i++) {
    const { output: _output, ...query } = definition;
    const created = await api.post<{ job_id: string }>('/api/jobs', {
      json: { type: 'query', tenant_id: tenantId, query },
    });
    jobs.push(created.body.job_id);
  }
  for (const path of ['fuzz/a', 'fuzz/b']) {
    await api.put(`/api/wiki-documents/${path}?tenant_id=${tenantId}`, { json: { content: 'fuzz' } });
  }
  return {
    tenantId,
    token: hook.token,
    tenantAdminKey: admin.key,
    known: {
      tenant_id: tenantId,
      object_store_id: storeId,
      user_id: viewer.userId,
      api_key_id: keys.body.api_keys[0]?.api_key_id ?? '',
      connection_id: hook.connectionId,
      data_set_id: hook.dataSetId,
      source_id: hook.sourceId,
      pipeline_id: pipelines[0] ?? '',
      job_id: jobs[0] ?? '',
      path: 'fuzz/a',
      // A place of the fuzz tenant's own: a store at the whole bucket would overlap every other tenant's there.
      base_url: `s3://demo-bucket/fuzz-${tenantId}`,
      name: 'fuzz',
      password: 'fuzz-password-0123456789',
    },
  };
}

describe('hostile input', () => {
  let document: OpenApi;
  let world: Awaited<ReturnType<typeof fuzzWorld>>;
  beforeAll(async () => {
    document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApi;
    world = await fuzzWorld();
  }, 120_000);

  it('answers every fuzzed request of every documented operation without a 5xx and in the error shape', async () => {
    const contextAs = (key: string) => ({
      known: world.known,
      scope: { tenant_id: world.tenantId },
      headersFor: (operation: { security?: Record<string, string[]>[] }): Record<string, string> =>
        operation.security?.some((scheme) => 'IngestToken' in scheme)
          ? { authorization: `Bearer ${world.token}` }
          : operation.security?.some((scheme) => 'CatalogToken' in scheme)
            ? { authorization: `Bearer ${key}` }
            : operation.security?.some((scheme) => 'ApiKey' in scheme)
              ? { 'x-api-key': key }
              : {},
    });
    // A real cursor from every list that has a second page: what tampered and foreign cursors start from.
    const cursors = new Map<string, string>();
    for (const probe of fuzzCases(document, contextAs(adminKey), new Map()).filter(
      (candidate) => candidate.variant === 'query: unknown parameter' && candidate.method === 'GET',
    )) {
      const answer = await send({ ...probe, url: probe.url.replace('unexpected_parameter=x', 'limit=1') });
      const next = answer.text.startsWith('{')
        ? (JSON.parse(answer.text) as { next_cursor?: unknown }).next_cursor
        : null;
      if (answer.status === 200 && typeof next === 'string') cursors.set(`get ${probe.route}`, next);
    }
    expect(cursors.size, 'lists with a second page').toBeGreaterThanOrEqual(10);

    // As the platform's administrator, and as the tenant's (whose requests reach the tenant checks; the
    // body fields are parsed before any of them, so the tenant's pass leaves their mutations out).
    const cases = [
      ...fuzzCases(document, contextAs(adminKey), cursors),
      ...fuzzCases(document, contextAs(world.tenantAdminKey), cursors).filter(
        (candidate) => !/^body \S+: /.test(candidate.variant),
      ),
    ];
    const order = ['GET', 'PUT', 'POST', 'DELETE'];
    cases.sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
    const started = Date.now();
    const answers = await runAll(cases, 8, send);
    const seconds = (Date.now() - started) / 1000;

    const defects = new Map<string, string[]>();
    answers.forEach((answer, i) => {
      const request = cases[i] as FuzzCase;
      const defect = defectOf(answer, request);
      if (!defect) return;
      const route = `${request.method} ${request.route}`;
      defects.set(route, [...(defects.get(route) ?? []), `${request.variant} → ${defect}`]);
    });
    const byRoute = Object.fromEntries([...defects].map(([route, found]) => [route, found.length]));
    process.stderr.write(
      `fuzz: ${cases.length} requests over ${Object.keys(document.paths).length} paths in ${seconds.toFixed(1)} s; defects by route: ${JSON.stringify(byRoute)}\n`,
    );
    expect([...defects].flatMap(([route, found]) => found.slice(0, 5).map((defect) => `${route}: ${defect}`))).toEqual(
      [],
    );
  }, 180_000);
});

/** Polls until `done`, or fails with what it saw last. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Still not done after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a tenant store whose endpoint answers with secrets', () => {
  const secretText = 'password=hunter2 AKIAINTERNALSECRET01 internal-db.corp:5432';
  const requests: IncomingHttpHeaders[] = [];
  const store = createServer((request, response) => {
    requests.push(request.headers);
    request.resume();
    response.writeHead(403, { 'content-type': 'application/xml' });
    response.end(
      `<Error><Code>AccessDenied</Code><Message>${secretText}</Message><Endpoint>${secretText}</Endpoint></Error>`,
    );
  });
  let endpoint = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(store.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    store.close();
  });

  it('shows the tenant a category and the S3 error code, never what the store said, nor its address', async () => {
    const hook = await createWebhook(api, { store: { endpoint } });
    const viewer = await createUser(api, hook.tenantId, 'TenantViewer');
    const sent = await ingest(api, hook, '{"n":1}');
    expect(sent.status).toBe(202);

    // Five attempts, a retry's wait apart (about 25 s on an idle machine): a loaded one takes twice that.
    const { failed } = await until(
      async () => ({
        failed: await api.get<{ failed_deliveries: { message_id: string; last_error: string }[] }>(
          `/api/connections/${hook.connectionId}/failed-deliveries`,
          { key: viewer.key },
        ),
        // The attempts so far, shown when the wait ends without the failed delivery.
        commitFailure: (await api.get<{ commit_failure: unknown }>(`/api/connections/${hook.connectionId}/stats`)).body
          .commit_failure,
      }),
      (seen) => seen.failed.body.failed_deliveries.length === 1,
      120_000,
    );
    const dataSet = await api.get<{ storage_location: string }>(`/api/data-sets/${hook.dataSetId}`);
    expect(failed.body.failed_deliveries[0]?.last_error).toBe(
      `ACCESS_DENIED: The object store refused the credentials or the access (S3 error code AccessDenied) (store ${dataSet.body.storage_location})`,
    );

    expect((await api.delete(`/api/connections/${hook.connectionId}`)).status).toBe(204);
    const deleted = await api.delete<{ code: string; details: unknown }>(`/api/data-sets/${hook.dataSetId}`);
    expect({ status: deleted.status, code: deleted.body.code, details: deleted.body.details }).toEqual({
      status: 422,
      code: 'OBJECT_STORE_FAILED',
      details: [
        { path: 'object_store.category', message: 'ACCESS_DENIED' },
        { path: 'object_store.s3_error_code', message: 'AccessDenied' },
      ],
    });

    const port = String((store.address() as AddressInfo).port);
    for (const body of seenBodies) {
      for (const leak of ['hunter2', 'AKIAINTERNALSECRET01', 'internal-db', `:${port}`])
        expect(body).not.toContain(leak);
    }
    // The store was reached without the platform's credentials: no signature at all.
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((headers) => headers.authorization !== undefined)).toEqual([]);
  }, 180_000);

  it('refuses at registration an endpoint the deployment does not accept', async () => {
    const tenantId = await createTenant(api);
    for (const target of ['http://169.254.169.254/latest', 'http://10.0.0.1:9000', 'http://0.0.0.0:8000']) {
      const refused = await api.post<{ code: string; details: { path: string }[] }>(
        `/api/tenants/${tenantId}/register-object-store`,
        { json: { base_url: 's3://demo-bucket', name: 'ssrf', options: { endpoint: target } } },
      );
      expect({ target, status: refused.status, paths: refused.body.details?.map((detail) => detail.path) }).toEqual({
        target,
        status: 400,
        paths: ['options.endpoint'],
      });
      expect(refused.text).not.toContain(new URL(target).hostname);
    }
    const stores = await api.get<{ object_stores: unknown[] }>(`/api/tenants/${tenantId}/object-stores`);
    expect(stores.body.object_stores).toEqual([]);
  });
});
