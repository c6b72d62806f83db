/**
 * The deployment's edge, proven (shared/http/edge-origin.ts), in process through the handlers as
 * deployed: with the edge on, a request without CloudFront's origin secret is refused 403 FORBIDDEN
 * before any read (the ports count what they were asked), the secret is read once per cache window,
 * its previous value is accepted during a rotation; and the viewer's address is believed only from a
 * request that proved it came through the edge.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { acceptOver, ingestEdge } from '#functions/ingest/accept.ts';
import type { Source } from '#shared/domain/connections/model.ts';
import type { ApiKeyRecord } from '#shared/domain/identity/model.ts';
import type { IngestDeps } from '#shared/domain/ingest/accept.ts';
import { apiEdge, httpEdge } from '#shared/http/api-handler.ts';
import { clientAddress, type EdgeOriginOptions, edgeOriginCheck, viewerAddressOf } from '#shared/http/edge-origin.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { routes } from '#shared/routes.ts';
import { tenantRecord } from '../support/memory.ts';

const current = 'origin-secret-current-0123456789abcdef0123456789';
const previous = 'origin-secret-previous-0123456789abcdef012345678';
const context = { functionName: 'test', getRemainingTimeInMillis: () => 10_000 } as Context;

/** An origin secret whose reads are counted, with a clock the test moves. */
function countedSecret(values: string[]) {
  let reads = 0;
  let now = 1_000_000;
  const origin: EdgeOriginOptions = {
    secretValues: async () => {
      reads++;
      return values;
    },
    now: () => now,
    cacheMs: 60_000,
  };
  return { origin, reads: () => reads, advance: (ms: number) => (now += ms) };
}

function event(options: {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  sourceIp?: string;
  pathParameters?: Record<string, string>;
  body?: string;
}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${options.method ?? 'GET'} ${options.path}`,
    rawPath: options.path,
    rawQueryString: '',
    headers: options.headers ?? {},
    pathParameters: options.pathParameters,
    requestContext: {
      requestId: randomUUID(),
      domainName: 'api.example.com',
      http: { method: options.method ?? 'GET', path: options.path, sourceIp: options.sourceIp ?? '203.0.113.9' },
    },
    body: options.body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

const answerOf = (result: { statusCode?: number; body?: string }) => ({
  status: result.statusCode,
  body: JSON.parse(result.body ?? '{}') as Record<string, unknown>,
});

/** The contract's error body for a request that walked around the edge. */
const refused = {
  status: 403,
  body: {
    code: 'FORBIDDEN',
    message: 'Requests reach this API through its edge only',
    details: null,
    request_id: expect.any(String),
  },
};

describe('a management route with the edge on', () => {
  const adminKey = `trb_key_${'a'.repeat(43)}`;
  function tenantsRoute(origin: EdgeOriginOptions) {
    const lookups = { credentials: 0, handled: 0 };
    const apiHandler = apiEdge(async () => {
      lookups.credentials++;
      return {
        findApiKeyByHash: async (hash: string): Promise<ApiKeyRecord | null> =>
          hash === createHash('sha256').update(adminKey).digest('hex')
            ? {
                api_key_id: randomUUID(),
                user_id: null,
                role: 'PlatformAdmin',
                name: 'admin',
                prefix: adminKey.slice(0, 12),
                hash,
                created_at: '2026-01-01T00:00:00.000Z',
                last_used_at: '2999-01-01T00:00:00.000Z',
              }
            : null,
        getUser: async () => null,
        touchApiKey: async () => undefined,
      };
    }, origin);
    const handler = apiHandler(routes, 'GET /api/tenants', async () => {
      lookups.handled++;
      return { status: 200, body: { items: [] } };
    });
    return { handler, lookups };
  }

  it('refuses a request without the origin header, or with a wrong one, before any key is looked up', async () => {
    const secret = countedSecret([current]);
    const { handler, lookups } = tenantsRoute(secret.origin);
    const withoutHeader = await handler(event({ path: '/api/tenants', headers: { 'x-api-key': adminKey } }), context);
    expect(answerOf(withoutHeader)).toEqual(refused);
    const wrong = await handler(
      event({ path: '/api/tenants', headers: { 'x-api-key': adminKey, 'x-tributary-origin': `${current}x` } }),
      context,
    );
    expect(answerOf(wrong)).toEqual(refused);
    expect(lookups).toEqual({ credentials: 0, handled: 0 });
  });

  it('lets a request with the secret through to authentication and the route', async () => {
    const secret = countedSecret([current]);
    const { handler, lookups } = tenantsRoute(secret.origin);
    const result = await handler(
      event({ path: '/api/tenants', headers: { 'x-api-key': adminKey, 'x-tributary-origin': current } }),
      context,
    );
    expect(answerOf(result)).toEqual({ status: 200, body: { items: [] } });
    expect(lookups).toEqual({ credentials: 1, handled: 1 });
  });

  it('reads the secret once per cache window however many requests come, and accepts its previous value', async () => {
    const secret = countedSecret([current, previous]);
    const { handler } = tenantsRoute(secret.origin);
    const statuses: (number | undefined)[] = [];
    for (const value of [current, previous, 'nope', current, previous]) {
      const result = await handler(
        event({ path: '/api/tenants', headers: { 'x-api-key': adminKey, 'x-tributary-origin': value } }),
        context,
      );
      statuses.push(result.statusCode);
    }
    expect(statuses).toEqual([200, 200, 403, 200, 200]);
    expect(secret.reads()).toBe(1);
    secret.advance(60_001);
    await handler(
      event({ path: '/api/tenants', headers: { 'x-api-key': adminKey, 'x-tributary-origin': current } }),
      context,
    );
    expect(secret.reads()).toBe(2);
  });

  it('lets every request through when the deployment has no edge', async () => {
    const { handler, lookups } = tenantsRoute({});
    const result = await handler(event({ path: '/api/tenants', headers: { 'x-api-key': adminKey } }), context);
    expect(result.statusCode).toBe(200);
    expect(lookups).toEqual({ credentials: 1, handled: 1 });
  });
});

describe('the ingest route with the edge on', () => {
  const token = 'trb_ing_good-token-0000000000000000000000000000';
  const sourceId = randomUUID();
  const source = (allowlist: string[] | null): Source => ({
    source_id: sourceId,
    connection_id: 'conn-1',
    tenant_id: 'tenant-1',
    data_set_id: randomUUID(),
    token_hash: createHash('sha256').update(token).digest('hex'),
    source_status: 'Active',
    connection_status: 'Active',
    security: {
      auth_mode: 'bearer',
      signature: null,
      dedup_window_seconds: 0,
      rate_limit: null,
      ip_allowlist: allowlist,
    },
  });

  /** The route as deployed, over ports that count every read, rate token and queue send. */
  function ingestRoute(origin: EdgeOriginOptions, allowlist: string[] | null = null) {
    const calls = { findSource: 0, findTenant: 0, takeRateToken: 0, enqueue: 0 };
    const ports: IngestDeps = {
      findSource: async (id) => {
        calls.findSource++;
        return id === sourceId ? source(allowlist) : null;
      },
      findTenant: async () => {
        calls.findTenant++;
        return tenantRecord({ tenant_id: 'tenant-1', default_object_store_id: 'store-1' });
      },
      signingSecrets: async () => [],
      takeRateToken: async () => {
        calls.takeRateToken++;
        return { allowed: true, retryAfterSeconds: 0 };
      },
      releaseDedupKey: async () => undefined,
      claimDedupKey: async (_, __, messageId) => messageId,
      enqueue: async () => {
        calls.enqueue++;
      },
      maxBodyBytes: 1024 * 1024,
      countAccepted: () => ({ epoch: 'e', accepted: 1, duplicates: 0 }),
      withdrawAccepted: () => undefined,
      countRefused: () => undefined,
      recordRejection: async () => undefined,
      statusOf: (code) => statusOfCode[code],
    };
    const handler = httpEdge('POST /api/ingest/{source_id}', acceptOver(ports), { ...ingestEdge, origin });
    return { handler, calls };
  }

  const post = (headers: Record<string, string>, sourceIp?: string) =>
    event({
      path: `/api/ingest/${sourceId}`,
      method: 'POST',
      pathParameters: { source_id: sourceId },
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      sourceIp,
      body: '{"a":1}',
    });

  it('refuses a webhook sent around the edge before reading the source, taking a rate token or queueing', async () => {
    const { handler, calls } = ingestRoute(countedSecret([current]).origin);
    expect(answerOf(await handler(post({}), context))).toEqual(refused);
    expect(calls).toEqual({ findSource: 0, findTenant: 0, takeRateToken: 0, enqueue: 0 });
    const through = await handler(post({ 'x-tributary-origin': current }), context);
    expect(through.statusCode).toBe(202);
    expect(calls.enqueue).toBe(1);
  });

  it('checks the IP allowlist against the viewer’s address when the request came through the edge', async () => {
    const { handler } = ingestRoute(countedSecret([current]).origin, ['198.51.100.0/24']);
    // CloudFront's own address is API Gateway's sourceIp; the viewer's is in CloudFront-Viewer-Address.
    const viaEdge = (viewer: string) =>
      handler(post({ 'x-tributary-origin': current, 'cloudfront-viewer-address': viewer }, '130.176.0.1'), context);
    expect((await viaEdge('198.51.100.7:46532')).statusCode).toBe(202);
    expect(answerOf(await viaEdge('192.0.2.1:46532')).body.code).toBe('FORBIDDEN');
  });

  it('never believes a viewer address sent straight to the API: the allowlist sees API Gateway’s sourceIp', async () => {
    const { handler } = ingestRoute({}, ['198.51.100.0/24']);
    const claimed = { 'cloudfront-viewer-address': '198.51.100.7:46532' };
    expect(answerOf(await handler(post(claimed, '192.0.2.1'), context)).body.code).toBe('FORBIDDEN');
    expect((await handler(post({}, '198.51.100.8'), context)).statusCode).toBe(202);
  });
});

describe('the client address', () => {
  it('is the viewer’s for a request that proved it came through the edge, else sourceIp', async () => {
    const check = edgeOriginCheck(countedSecret([current]).origin);
    const viaEdge = event({
      path: '/x',
      headers: { 'x-tributary-origin': current, 'cloudfront-viewer-address': '2001:db8::8:46532' },
      sourceIp: '130.176.0.1',
    });
    expect(clientAddress(viaEdge)).toBe('130.176.0.1');
    await check(viaEdge);
    expect(clientAddress(viaEdge)).toBe('2001:db8::8');
    const direct = event({
      path: '/x',
      headers: { 'cloudfront-viewer-address': '198.51.100.7:1' },
      sourceIp: '192.0.2.1',
    });
    await edgeOriginCheck({})(direct);
    expect(clientAddress(direct)).toBe('192.0.2.1');
  });

  it.each([
    ['198.51.100.10:46532', '198.51.100.10'],
    ['2001:db8:3333:4444:5555:6666:7777:8888:443', '2001:db8:3333:4444:5555:6666:7777:8888'],
    ['198.51.100.10', undefined],
    ['not-an-address:80', undefined],
    ['', undefined],
  ])('reads CloudFront-Viewer-Address %j as %j', (value, address) => {
    expect(viewerAddressOf(value)).toBe(address);
  });
});

describe('A path no route matches', () => {
  it('is a 404 in the contract’s error shape, and under /iceberg in the catalog’s error model', async () => {
    // Prepare
    const { handler } = await import('#functions/status/not-found.ts');

    // Act
    const api = answerOf(await handler(event({ path: '/api/nothing-here' }), context));
    const catalog = answerOf(await handler(event({ path: '/iceberg/v2/namespaces' }), context));

    // Assess
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ code: 'NOT_FOUND', details: null });
    expect(catalog.status).toBe(404);
    expect(Object.keys(catalog.body)).toEqual(['error']);
    expect(catalog.body.error).toMatchObject({ code: 404, type: expect.stringMatching(/Exception$/) });
  });
});
