import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { apiReferencePage } from '#shared/http/api-reference.ts';
import { openApiDocument, openApiPath, operationIdOf } from '#shared/http/openapi.ts';
import { type RouteSpec, routeKeyParts, routes } from '#shared/routes.ts';
import { contractChecker, type Document } from '../support/contract.ts';

const document = openApiDocument('https://api.example.org');
const entries = Object.entries(routes) as [string, RouteSpec][];
const operations = Object.values(document.paths).flatMap((item) => Object.values(item));

describe('the OpenAPI document', () => {
  it.each(entries)('describes %s with its parameters, body and every success status', (key, spec) => {
    const { method, path } = routeKeyParts(key);
    const operation = document.paths[openApiPath(path)]?.[method.toLowerCase()];
    expect(operation?.operationId).toBe(operationIdOf(spec));
    const parameters = (operation?.parameters ?? []) as { name: string; in: string }[];
    expect(parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(Object.keys(spec.params?.shape ?? {}));
    expect(parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(Object.keys(spec.query?.shape ?? {}));
    expect(Boolean(operation?.requestBody)).toBe(Boolean(spec.body || spec.rawBody));
    for (const status of Object.keys(spec.responses)) expect(Object.keys(operation?.responses ?? {})).toContain(status);
  });

  it('has no operation the route table does not have, and unique operation ids', () => {
    expect(operations.length).toBe(entries.length);
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every error response the error shape', () => {
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses) as [string, { content?: object }][]) {
        if (/^[45]/.test(status) && status !== '503')
          expect({ status, content: response.content }).toEqual({
            status,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          });
      }
    }
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
  const tenant = {
    tenant_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    name: 'Acme',
    slug: 'acme',
    status: 'Active',
    sites: null,
    default_object_store_id: null,
    idp_org_id: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  const observed = (status: number, body: unknown, url = `/api/tenants/${tenant.tenant_id}`) => ({
    method: 'GET',
    url,
    status,
    contentType: 'application/json',
    text: JSON.stringify(body),
  });

  it('passes a response that matches its schema', () => {
    expect(check(observed(200, tenant))).toEqual({ seen: 'tenantsGet 200', violations: [] });
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
    const hostile = openApiDocument('https://x.example/"><script>alert(1)</script>');
    expect(apiReferencePage(hostile)).not.toContain('<script>');
  });
});
