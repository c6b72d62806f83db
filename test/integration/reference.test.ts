import { describe, expect, it } from 'vitest';
import { openApiDocument } from '#shared/http/openapi.ts';
import { routes } from '#shared/routes.ts';
import { apiClient, rawRequest } from '../support/api.ts';

const api = apiClient();

describe('the API reference', () => {
  it('serves the OpenAPI document without a key, pointing at the address the caller used', async () => {
    const response = await api.get<ReturnType<typeof openApiDocument>>('/openapi.json', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual(openApiDocument(routes, api.baseUrl));
  });

  it('serves the reference page as self-contained HTML under a policy that forbids loading anything', async () => {
    const response = await api.get('/docs', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(response.text).toContain('id="tenantsCreate"');
    expect(response.text).toContain('<a href="openapi.json">');
  });

  it('refuses a body it does not take, in the error shape', async () => {
    // fetch will not send a GET with a body; a plain request will.
    const response = await rawRequest(
      api.baseUrl,
      'GET',
      '/openapi.json',
      { 'content-type': 'application/json' },
      '{"x":1}',
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'VALIDATION_ERROR', request_id: expect.any(String) });
  });
});
