/**
 * The OpenAPI document, checked against the route table's own words (its keys, the schemas it
 * names), literal expectations and an independent linter, never against the generator's helpers.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { apiReferencePage } from '#shared/http/api-reference.ts';
import { openApiDocument } from '#shared/http/openapi.ts';
import { type RouteSpec, routes } from '#shared/routes.ts';
import { contractChecker, type Document } from '../support/contract.ts';
import { tenantRecord } from '../support/memory.ts';

const document = openApiDocument(routes, 'https://api.example.org');
const entries = Object.entries(routes) as [string, RouteSpec][];
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: Record<string, string[]>[];
}
const operations = Object.values(document.paths).flatMap((item) => Object.values(item)) as unknown as Operation[];

/** The writes an `ANY` route (the Iceberg catalog's refusal) is documented as. */
const anyMethods = ['post', 'put', 'delete'];

/**
 * Where the route table's `GET /a/{b}/{c+}` sits in the document: `get` of `/a/{b}/{c}` (an `ANY`
 * route: under each write it refuses; `method` picks one).
 */
function operationOf(key: string, method = key.split(' ')[0] ?? ''): Operation | undefined {
  const [, path = ''] = key.split(' ');
  const paths = document.paths as unknown as Record<string, Record<string, Operation>>;
  return paths[path.replace(/\{(\w+)\+\}/g, '{$1}')]?.[method === 'ANY' ? 'post' : method.toLowerCase()];
}

/** The operations of a route: one, or one per write for an `ANY` route. */
const operationsOf = (key: string): (Operation | undefined)[] =>
  key.startsWith('ANY ') ? anyMethods.map((method) => operationOf(key, method)) : [operationOf(key)];

/** The error body each route's protocol answers (RouteSpec.protocol). */
const errorSchemaOf = (spec: RouteSpec) =>
  ({ iceberg: 'IcebergError', oauth2: 'OAuthError', none: 'Error' })[spec.protocol ?? 'none'];

describe('the OpenAPI document', () => {
  it.each(entries)(
    'describes %s with its path and query parameters, its body and every success status',
    (key, spec) => {
      const operation = operationOf(key);
      expect(operation?.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      const parameters = operation?.parameters ?? [];
      const inPath = [...key.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1]);
      expect(parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(inPath);
      expect(parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(
        Object.keys(spec.query?.shape ?? {}),
      );
      expect(Boolean(operation?.requestBody)).toBe(Boolean(spec.body || spec.rawBody));
      for (const status of Object.keys(spec.responses))
        expect(Object.keys(operation?.responses ?? {})).toContain(status);
      expect(operation?.security).toEqual(
        spec.protocol === 'iceberg'
          ? [{ CatalogToken: [] }]
          : // The ingest token is optional: a source may authenticate by signature alone.
            { apiKey: [{ ApiKey: [] }], ingestToken: [{ IngestToken: [] }, {}], public: [] }[spec.auth],
      );
    },
  );

  it('has one operation per route (an `ANY` route: one per write), each with its own id', () => {
    expect(operations.length).toBe(entries.flatMap(([key]) => operationsOf(key)).length);
    expect(operationsOf('ANY /iceberg/{path+}').map((operation) => operation?.operationId)).toEqual([
      'icebergRefusePost',
      'icebergRefusePut',
      'icebergRefuseDelete',
    ]);
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads as written for a few routes', () => {
    expect(operationOf('POST /api/tenants')).toMatchObject({
      operationId: 'tenantsCreate',
      requestBody: { required: true, content: { 'application/json': expect.any(Object) } },
    });
    // The statuses the contract gives a create: 201, bad input, no key, the wrong role, a taken slug,
    // a body too large or not JSON, a suspended tenant, and an internal error.
    expect(Object.keys(operationOf('POST /api/tenants')?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409', '413', '415', '422', '5XX']),
    );
    expect(operationOf('GET /api/wiki-documents/{path+}')?.parameters).toContainEqual(
      expect.objectContaining({ name: 'path', in: 'path', required: true, description: expect.stringContaining('/') }),
    );
    expect(operationOf('POST /api/ingest/{source_id}')).toMatchObject({
      operationId: 'ingestAccept',
      requestBody: { content: { '*/*': expect.any(Object) } },
    });
    expect(Object.keys(operationOf('POST /api/ingest/{source_id}')?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '202', '204', '401']),
    );
    // A provider's handshake is answered in the media type the provider wants: JSON or the challenge as text.
    for (const key of ['POST /api/ingest/{source_id}', 'GET /api/ingest/{source_id}'])
      expect(Object.keys(operationOf(key)?.responses['200']?.content ?? {}).sort()).toEqual([
        'application/json',
        'text/plain',
      ]);
    expect(operationOf('GET /metrics')?.responses['200']?.content).toEqual({
      'text/plain; version=0.0.4': expect.any(Object),
    });
  });

  it('gives every error response the error shape of its protocol', () => {
    for (const [key, spec] of entries) {
      for (const operation of operationsOf(key)) {
        for (const [status, response] of Object.entries(operation?.responses ?? {})) {
          if (/^[45]/.test(status) && status !== '503')
            expect({ key, status, content: response.content }).toEqual({
              key,
              status,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${errorSchemaOf(spec)}` } } },
            });
        }
      }
    }
    expect(Object.keys(operationOf('GET /iceberg/v1/namespaces/{namespace}/tables/{table}')?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '5XX']),
    );
    expect(operationOf('POST /iceberg/v1/oauth/tokens')?.requestBody?.content).toEqual({
      'application/x-www-form-urlencoded': expect.any(Object),
    });
  });

  it('passes the Redocly linter’s recommended rules', async () => {
    // No licence has been chosen for the project, so the document names none.
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off' } });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`)).toEqual([]);
  });
});

describe('the response contract check', () => {
  const check = contractChecker(document as unknown as Document);
  const tenant = tenantRecord({ tenant_id: '0f8fad5b-d9cb-469f-a165-70867728950e' });
  const observed = (status: number, body: unknown, url = `/api/tenants/${tenant.tenant_id}`, method = 'GET') => ({
    method,
    url,
    status,
    contentType: 'application/json',
    text: JSON.stringify(body),
  });

  it('passes a response that matches its schema, and finds the operation of a path with slashes', () => {
    expect(check(observed(200, tenant))).toEqual({ seen: 'tenantsGet 200', violations: [] });
    expect(check(observed(204, '', '/api/wiki-documents/a/b/c', 'DELETE')).seen).toBe('wikiDelete 204');
  });

  it('fails a missing field, an undocumented field and a wrong type', () => {
    const { slug: _, ...withoutSlug } = tenant;
    expect(check(observed(200, withoutSlug)).violations.join()).toContain("required property 'slug'");
    expect(check(observed(200, { ...tenant, secret: 'x' })).violations.join()).toContain('additional properties');
    expect(check(observed(200, { ...tenant, status: 'Gone' })).violations.join()).toContain('allowed values');
  });

  it('fails an undocumented status, an error outside the error shape, and a wrong media type', () => {
    expect(check(observed(418, {})).violations.join()).toContain('status not documented');
    expect(check(observed(404, { message: 'nope' })).violations.join()).toContain("required property 'code'");
    expect(check({ ...observed(200, tenant), contentType: 'text/plain' }).violations.join()).toContain('content type');
    expect(check(observed(200, {}, '/no/such/route')).violations.join()).toContain('matches no documented operation');
  });

  it('takes a handshake answered as text or as JSON, each against its own schema', () => {
    const url = '/api/ingest/5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41';
    const text = { method: 'GET', url: `${url}?hub.challenge=1`, status: 200, contentType: 'text/plain', text: '1' };
    expect(check(text)).toEqual({ seen: 'ingestHandshake 200', violations: [] });
    expect(check(observed(200, { response_token: 'sha256=x' }, url)).violations).toEqual([]);
    expect(check(observed(200, { challenge: 'c' }, url, 'POST')).violations).toEqual([]);
    expect(check(observed(200, { challenge: 1 }, url, 'POST')).violations.join()).toContain('must');
    expect(check({ ...text, contentType: 'text/html' }).violations.join()).toContain('content type');
  });
});

describe('the API reference page', () => {
  const page = apiReferencePage(document);

  it('shows every operation and schema', () => {
    for (const operation of operations) expect(page).toContain(`id="${operation.operationId}"`);
    for (const name of Object.keys(document.components.schemas as object))
      expect(page).toContain(`id="schema-${name}"`);
  });

  it('loads nothing from elsewhere: no scripts, no external stylesheets, fonts or images', () => {
    expect(page).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('escapes what it shows', () => {
    const hostile = openApiDocument(routes, 'https://x.example/"><script>alert(1)</script>');
    expect(apiReferencePage(hostile)).not.toContain('<script>');
  });
});
