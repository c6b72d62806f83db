/**
 * The API edge (shared/http/api-handler.ts) in process, over an in-memory key store, for every
 * route of the table that takes a JSON body: bad input is refused in the contract's error shape
 * before the route's use case runs, so it changes nothing. The running service checks the same
 * edge on a few routes.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '#shared/domain/identity/model.ts';
import { apiEdge } from '#shared/http/api-handler.ts';
import { type RouteSpec, routeKeyParts, routes } from '#shared/routes.ts';

const adminKey = `trb_key_${'a'.repeat(43)}`;
const viewerKey = `trb_key_${'v'.repeat(43)}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const keyRecord = async (key: string, extra: Partial<ApiKeyRecord>): Promise<ApiKeyRecord> => ({
  api_key_id: randomUUID(),
  user_id: null,
  name: 'test',
  prefix: key.slice(0, 12),
  hash: sha256(key),
  created_at: '2026-01-01T00:00:00.000Z',
  last_used_at: '2999-01-01T00:00:00.000Z',
  ...extra,
});

const tenantId = randomUUID();
const keys = Promise.all([
  keyRecord(adminKey, { role: 'PlatformAdmin' }),
  keyRecord(viewerKey, { tenant_id: tenantId, role: 'TenantViewer' }),
]);
const apiHandler = apiEdge(async () => ({
  findApiKeyByHash: async (hash) => (await keys).find((key) => key.hash === hash) ?? null,
  getUser: async () => null,
  touchApiKey: async () => undefined,
}));

/** An API Gateway event for the route, its path parameters filled in with valid values. */
function eventFor(key: string, options: { apiKey?: string; body?: string; contentType?: string }) {
  const { method, path } = routeKeyParts(key);
  const pathParameters = Object.fromEntries(
    [...path.matchAll(/\{(\w+)\+?\}/g)].map(([, name]) => [name, name === 'path' ? 'docs/a' : randomUUID()]),
  );
  return {
    version: '2.0',
    routeKey: key,
    rawPath: path,
    rawQueryString: '',
    headers: {
      ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
      ...(options.contentType ? { 'content-type': options.contentType } : {}),
    },
    pathParameters,
    requestContext: { requestId: randomUUID(), http: { method, path, sourceIp: '127.0.0.1' } },
    body: options.body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

const withBody = (Object.entries(routes) as [string, RouteSpec][])
  .filter(([, spec]) => spec.auth === 'apiKey' && spec.body)
  .map(([key]) => key);

const definition = {
  source: { data_set_id: randomUUID() },
  decode: { format: 'json' },
  columns: [{ name: 'a', path: '$.a', type: 'string' }],
  output: { name: 'out' },
};

/** A valid body for every route that takes one: the edge lets it through, and refuses it with one field more. */
const validBodies: Record<string, Record<string, unknown>> = {
  'POST /api/tenants': { name: 'Acme' },
  'POST /api/tenants/{tenant_id}/register-object-store': {
    base_url: 's3://lake',
    name: 'lake',
    options: { region: 'eu-west-1' },
  },
  'POST /api/tenants/{tenant_id}/select-default-object-store': { object_store_id: randomUUID() },
  'POST /api/tenants/{tenant_id}/update-object-store-options': {
    object_store_id: randomUUID(),
    options: { region: 'eu-west-1' },
  },
  'POST /api/users': { email: 'a@example.com', password: 'x'.repeat(12), role: 'TenantViewer', tenant_id: tenantId },
  'POST /api/users/{user_id}/change-role': { role: 'TenantEditor' },
  'POST /api/users/{user_id}/link-external-id': { external_id: 'idp|1' },
  'POST /api/users/{user_id}/api-keys': { name: 'ci' },
  'POST /api/tenants/{tenant_id}/connections': { type: 'Webhook', name: 'hook' },
  'PUT /api/connections/{connection_id}/security': {
    auth_mode: 'bearer',
    signature: null,
    dedup_window_seconds: 0,
    rate_limit: null,
    ip_allowlist: null,
  },
  'POST /api/connections/{connection_id}/rotate-signing-secret': {},
  'POST /api/connections/{connection_id}/failed-deliveries/redrive': {},
  'POST /api/pipelines': { tenant_id: tenantId, name: 'p', definition },
  'POST /api/pipelines/{pipeline_id}/update-definition': { definition },
  'POST /api/pipelines/{pipeline_id}/deploy': {},
  'POST /api/pipelines/{pipeline_id}/rename': { name: 'renamed' },
  'POST /api/pipelines/{pipeline_id}/trigger': {},
  'POST /api/jobs': { type: 'pipeline', pipeline_id: randomUUID() },
  'PUT /api/wiki-documents/{path+}': { content: '# Title' },
  'POST /api/data-sets/{data_set_id}/optimize': {},
  'POST /api/data-sets/{data_set_id}/suggest-columns': { format: 'xml', sample: 10 },
  'PUT /api/data-sets/{data_set_id}/table-properties': { properties: { 'delta.checkpointInterval': '20' } },
};

describe.concurrent('the API edge', () => {
  it('has a valid body for every route that takes one', () => {
    expect(withBody.filter((key) => !(key in validBodies))).toEqual([]);
  });

  it.for(withBody)(
    'refuses bad input to %s before its use case runs, and lets a valid body through',
    async (key, { expect }) => {
      const group = { [key]: routes[key as keyof typeof routes] as RouteSpec };
      let ran = 0;
      const handler = apiHandler(group, key, async () => {
        ran++;
        return { status: 200, body: {} };
      });
      const answer = async (options: Parameters<typeof eventFor>[1]) => {
        const result = await handler(eventFor(key, { apiKey: adminKey, contentType: 'application/json', ...options }), {
          functionName: 'test',
        } as Context);
        const body = JSON.parse(result.body ?? '{}') as { code: string; details: { path: string }[] | null };
        return { status: result.statusCode, code: body.code, paths: (body.details ?? []).map((detail) => detail.path) };
      };
      expect(await answer({ body: '{"a":' })).toEqual({ status: 400, code: 'INVALID_JSON', paths: [] });
      expect(await answer({ body: '[]' })).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      expect(await answer({ body: '"text"' })).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      const valid = validBodies[key] ?? {};
      expect(await answer({ body: JSON.stringify({ ...valid, status: 'Active' }) })).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['status'],
      });
      expect(await answer({ body: 'name=x', contentType: 'text/plain' })).toMatchObject({
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
      expect(await answer({ body: `"${'x'.repeat(1024 * 1024)}"` })).toMatchObject({
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      });
      expect(await answer({ body: '{}', apiKey: '' })).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(await answer({ body: '{}', apiKey: `trb_key_${'x'.repeat(43)}` })).toMatchObject({
        status: 401,
        code: 'UNAUTHORIZED',
      });
      expect(ran).toBe(0);
      expect(await answer({ body: JSON.stringify(valid) })).toEqual({ status: 200, code: undefined, paths: [] });
      expect(ran).toBe(1);
    },
  );

  it.for([
    ['POST /api/tenants', ['name']],
    ['POST /api/users', ['email', 'password', 'role']],
    ['POST /api/tenants/{tenant_id}/register-object-store', ['base_url', 'name']],
    ['POST /api/users/{user_id}/change-role', ['role']],
    ['POST /api/users/{user_id}/link-external-id', ['external_id']],
    ['POST /api/users/{user_id}/api-keys', ['name']],
  ] as const)(
    'refuses to %s a field of the wrong type, a missing one and an oversized one',
    async ([key, fields], { expect }) => {
      let ran = 0;
      const handler = apiHandler({ [key]: routes[key] as RouteSpec }, key, async () => {
        ran++;
        return { status: 200, body: {} };
      });
      const valid = validBodies[key] ?? {};
      const refusals = [];
      for (const field of fields) {
        for (const [what, body] of [
          ['wrong type', { ...valid, [field]: 12345 }],
          ['missing', Object.fromEntries(Object.entries(valid).filter(([name]) => name !== field))],
          ['oversized', { ...valid, [field]: 'x'.repeat(5000) }],
        ] as const) {
          const result = await handler(
            eventFor(key, { apiKey: adminKey, body: JSON.stringify(body), contentType: 'application/json' }),
            { functionName: 'test' } as Context,
          );
          const answer = JSON.parse(result.body ?? '{}') as { code: string; details: { path: string }[] };
          refusals.push({
            field,
            what,
            status: result.statusCode,
            code: answer.code,
            names: answer.details.some((d) => d.path === field),
          });
        }
      }
      expect(refusals).toEqual(
        fields.flatMap((field) =>
          ['wrong type', 'missing', 'oversized'].map((what) => ({
            field,
            what,
            status: 400,
            code: 'VALIDATION_ERROR',
            names: true,
          })),
        ),
      );
      expect(ran).toBe(0);
    },
  );

  /**
   * Values kept on an item as given, each one DynamoDB would refuse (an item over 400 KB, nesting past
   * 32 levels, an empty map key, a number it cannot hold) or over the documented bound: 400 naming the
   * field, before the use case runs. Values at the bounds pass.
   */
  const nested = (levels: number): unknown => (levels === 0 ? 'x' : [nested(levels - 1)]);
  const deepText = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
  const withWhere = (equals: unknown) => ({ ...definition, where: { path: '$.type', equals } });
  /** 200 columns of 320-character paths: a definition of about 70 KB. */
  const wideColumns = Array.from({ length: 200 }, (_, i) => ({
    name: `c${i}`,
    path: `$.${'k'.repeat(318)}`,
    type: 'string',
  }));
  /** A string of exactly this many bytes of JSON: its quotes, and characters of 2 bytes of UTF-8 but one. */
  const exactly = (bytes: number) => `${'é'.repeat(Math.floor((bytes - 2) / 2))}${bytes % 2 === 1 ? 'x' : ''}`;
  it.for([
    ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { note: 'x'.repeat(600_000) } }, 'parameters'],
    ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { a: nested(40) } }, 'parameters'],
    ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { '': 1 } }, 'parameters'],
    ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { big: 1e20 } }, 'parameters'],
    ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { tiny: 1e-200 } }, 'parameters'],
    ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { a: 'x'.repeat(16 * 1024) } }, 'parameters'],
    [
      'POST /api/jobs',
      { type: 'pipeline', pipeline_id: randomUUID(), parameters: { note: 'x'.repeat(600_000) } },
      'parameters',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: withWhere('x'.repeat(600_000)) },
      'definition.where.equals',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: withWhere('x'.repeat(408_000)) },
      'definition.where.equals',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: withWhere(exactly(4097)) },
      'definition.where.equals',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: withWhere({ '': true }) },
      'definition.where.equals',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: withWhere(2 ** 53 + 2) },
      'definition.where.equals',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: withWhere(nested(17)) },
      'definition.where.equals',
    ],
    [
      'POST /api/pipelines',
      { tenant_id: tenantId, name: 'p', definition: { ...definition, columns: wideColumns } },
      'definition',
    ],
    [
      'POST /api/pipelines/{pipeline_id}/update-definition',
      { definition: withWhere('x'.repeat(600_000)) },
      'definition.where.equals',
    ],
    [
      'POST /api/jobs',
      { type: 'query', query: { ...withWhere('x'.repeat(600_000)), output: undefined } },
      'query.where.equals',
    ],
  ] as const)(
    'refuses to %s a value no item could hold or over its bound (%#)',
    async ([key, body, field], { expect }) => {
      let ran = 0;
      const handler = apiHandler({ [key]: routes[key] as RouteSpec }, key, async () => {
        ran++;
        return { status: 200, body: {} };
      });
      const result = await handler(
        eventFor(key, { apiKey: adminKey, body: JSON.stringify(body), contentType: 'application/json' }),
        {
          functionName: 'test',
        } as Context,
      );
      const answer = JSON.parse(result.body ?? '{}') as { code: string; details: { path: string; message: string }[] };
      expect({
        status: result.statusCode,
        code: answer.code,
        paths: answer.details.map((detail) => detail.path),
        ran,
      }).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: [field],
        ran: 0,
      });
    },
  );

  it.for([
    ['POST /api/pipelines', deepText(10_000)],
    ['POST /api/pipelines/{pipeline_id}/update-definition', deepText(100_000)],
  ] as const)(
    'refuses to %s a where value nested thousands deep with 400, not a stack overflow',
    async ([key, equals], { expect }) => {
      const handler = apiHandler({ [key]: routes[key] as RouteSpec }, key, async () => ({ status: 200, body: {} }));
      const body = JSON.stringify({ tenant_id: tenantId, name: 'p', definition: withWhere(0) }).replace(
        '"equals":0',
        `"equals":${equals}`,
      );
      const valid = key === 'POST /api/pipelines' ? body : body.replace(/"tenant_id":"[^"]*","name":"p",/, '');
      const result = await handler(eventFor(key, { apiKey: adminKey, body: valid, contentType: 'application/json' }), {
        functionName: 'test',
      } as Context);
      const answer = JSON.parse(result.body ?? '{}') as { code: string; details: { path: string }[] };
      expect({
        status: result.statusCode,
        code: answer.code,
        paths: answer.details.map((detail) => detail.path),
      }).toEqual({
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['definition.where.equals'],
      });
    },
  );

  it('lets through the largest values the bounds allow', async () => {
    const accepted = [];
    for (const [key, body] of [
      ['POST /api/pipelines/{pipeline_id}/trigger', { parameters: { a: exactly(16 * 1024 - 8) } }],
      ['POST /api/pipelines', { tenant_id: tenantId, name: 'p', definition: withWhere(exactly(4096)) }],
      ['POST /api/pipelines', { tenant_id: tenantId, name: 'p', definition: withWhere(nested(16)) }],
      [
        'POST /api/pipelines',
        { tenant_id: tenantId, name: 'p', definition: withWhere({ n: [Number.MAX_SAFE_INTEGER, 1e-130, -0.5] }) },
      ],
      [
        'POST /api/pipelines',
        { tenant_id: tenantId, name: 'p', definition: { ...definition, columns: wideColumns.slice(0, 180) } },
      ],
    ] as const) {
      const handler = apiHandler({ [key]: routes[key] as RouteSpec }, key, async () => ({ status: 200, body: {} }));
      const result = await handler(
        eventFor(key, { apiKey: adminKey, body: JSON.stringify(body), contentType: 'application/json' }),
        {
          functionName: 'test',
        } as Context,
      );
      accepted.push(result.statusCode);
    }
    expect(accepted).toEqual([200, 200, 200, 200, 200]);
  });

  it('refuses a role without the route’s permission with 403 before parsing anything', async () => {
    const key = 'POST /api/tenants';
    let ran = 0;
    const handler = apiHandler({ [key]: routes[key] }, key, async () => {
      ran++;
      return { status: 201, body: {} };
    });
    const result = await handler(eventFor(key, { apiKey: viewerKey, body: '{"a":', contentType: 'application/json' }), {
      functionName: 'test',
    } as Context);
    expect({ status: result.statusCode, code: JSON.parse(result.body ?? '{}').code, ran }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      ran: 0,
    });
  });

  it('hands a valid request to the use case with its principal and parsed body', async () => {
    const key = 'POST /api/tenants';
    const seen: unknown[] = [];
    const handler = apiHandler({ [key]: routes[key] }, key, async ({ principal, body }) => {
      seen.push({ role: principal?.role, body });
      return { status: 201, body: { tenant_id: 'x' } };
    });
    const result = await handler(
      eventFor(key, { apiKey: adminKey, body: '{"name":"Acme"}', contentType: 'application/json; charset=utf-8' }),
      { functionName: 'test' } as Context,
    );
    expect(result.statusCode).toBe(201);
    expect(seen).toEqual([{ role: 'PlatformAdmin', body: { name: 'Acme' } }]);
  });

  it('answers a dependency slow or throttled past its retries 503 with Retry-After, and anything else 500', async () => {
    const key = 'GET /api/tenants';
    // Errors shaped as the AWS SDK throws them once its own retries are spent.
    const sdkError = (name: string, fields: Record<string, unknown>) =>
      Object.assign(new Error(name), { name, ...fields });
    const failures: Record<string, Error> = {
      throttled: sdkError('ProvisionedThroughputExceededException', {
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
      timedOut: sdkError('TimeoutError', {}),
      reset: sdkError('Error', { code: 'ECONNRESET' }),
      awsFault: sdkError('InternalServerError', { $fault: 'server', $metadata: { httpStatusCode: 500 } }),
      refused: sdkError('ValidationException', { $fault: 'client', $metadata: { httpStatusCode: 400 } }),
      bug: new TypeError("Cannot read properties of undefined (reading 'x')"),
    };
    const answers: Record<string, unknown> = {};
    for (const [name, failure] of Object.entries(failures)) {
      const handler = apiHandler({ [key]: routes[key] }, key, async () => {
        throw failure;
      });
      const result = await handler(eventFor(key, { apiKey: adminKey }), { functionName: 'test' } as Context);
      const body = JSON.parse(result.body ?? '{}');
      answers[name] = [result.statusCode, body.code, result.headers?.['retry-after'] ?? null, body.message];
    }
    const busy = [503, 'SERVICE_UNAVAILABLE', '1', 'The service is busy; retry the request'];
    const failed = [500, 'INTERNAL', null, 'Internal error; the request id identifies it in the logs'];
    expect(answers).toEqual({
      throttled: busy,
      timedOut: busy,
      reset: busy,
      awsFault: busy,
      refused: failed,
      bug: failed,
    });
  });
});
