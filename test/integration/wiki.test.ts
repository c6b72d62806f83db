import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, rawRequest } from '../support/api.ts';
import { createTenantWithUsers, type TestTenant, unique } from '../support/fixtures.ts';

const api = apiClient();
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

let acme: TestTenant;
let globex: TestTenant;
beforeAll(async () => {
  [acme, globex] = await Promise.all([createTenantWithUsers(api), createTenantWithUsers(api)]);
});

describe('wiki documents', () => {
  it('creates (201) and replaces (200) a document whose path has slashes, keeping its id and creation time', async () => {
    const path = `${unique('guides')}/ingest/Ünïcode page`;
    const first = await api.put<{ document_id: string; created_at: string }>(
      `/api/wiki-documents/${encodePath(path)}`,
      { json: { content: 'v1' } },
    );
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      document_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      path,
      content: 'v1',
      tenant_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const second = await api.put<{ document_id: string; created_at: string; updated_at: string }>(
      `/api/wiki-documents/${encodePath(path)}`,
      {
        json: { content: 'v2' },
      },
    );
    expect(second.status).toBe(200);
    expect(second.body.document_id).toBe(first.body.document_id);
    expect(second.body.created_at).toBe(first.body.created_at);
    const read = await api.get<{ content: string }>(`/api/wiki-documents/${encodePath(path)}`);
    expect(read.body.content).toBe('v2');
  });

  it('keeps tenant and global scopes apart: everyone reads global, only a PlatformAdmin writes it', async () => {
    const path = unique('handbook');
    expect((await api.put(`/api/wiki-documents/${path}`, { json: { content: 'global' } })).status).toBe(201);
    const asTenant = await api.get<{ content: string }>(`/api/wiki-documents/${path}`, {
      key: acme.users.TenantViewer.key,
    });
    expect(asTenant.status).toBe(200);
    expect(asTenant.body.content).toBe('global');

    const denied = await api.put(`/api/wiki-documents/${path}`, {
      key: acme.users.TenantAdmin.key,
      json: { content: 'hijack' },
    });
    expect(denied.status).toBe(403);
    expect((await api.delete(`/api/wiki-documents/${path}`, { key: acme.users.TenantAdmin.key })).status).toBe(403);
    expect((await api.get<{ content: string }>(`/api/wiki-documents/${path}`)).body.content).toBe('global');

    const own = await api.put(`/api/wiki-documents/${path}?tenant_id=${acme.tenantId}`, {
      key: acme.users.TenantEditor.key,
      json: { content: 'acme only' },
    });
    expect(own.status).toBe(201);
    expect(
      (
        await api.get<{ content: string }>(`/api/wiki-documents/${path}?tenant_id=${acme.tenantId}`, {
          key: acme.users.TenantViewer.key,
        })
      ).body.content,
    ).toBe('acme only');
    expect(
      (await api.get<{ content: string }>(`/api/wiki-documents/${path}`, { key: acme.users.TenantViewer.key })).body
        .content,
    ).toBe('global');

    expect(
      (await api.get(`/api/wiki-documents/${path}?tenant_id=${acme.tenantId}`, { key: globex.users.TenantAdmin.key }))
        .status,
    ).toBe(404);
    expect(
      (
        await api.put(`/api/wiki-documents/${path}?tenant_id=${acme.tenantId}`, {
          key: globex.users.TenantAdmin.key,
          json: { content: 'x' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api.put(`/api/wiki-documents/${path}?tenant_id=${acme.tenantId}`, {
          key: acme.users.TenantViewer.key,
          json: { content: 'x' },
        })
      ).status,
    ).toBe(403);
  });

  it('lists paths sorted, under a prefix, page by page', async () => {
    const prefix = unique('listing');
    for (const name of ['c', 'a/2', 'a/1', 'b'])
      await api.put(`/api/wiki-documents/${prefix}/${name}?tenant_id=${acme.tenantId}`, { json: { content: name } });
    await api.put(`/api/wiki-documents/${prefix}-other?tenant_id=${acme.tenantId}`, { json: { content: 'x' } });
    const listed = await api.get<{ paths: string[] }>(
      `/api/wiki-documents?tenant_id=${acme.tenantId}&prefix=${prefix}/`,
    );
    expect(listed.body.paths).toEqual([`${prefix}/a/1`, `${prefix}/a/2`, `${prefix}/b`, `${prefix}/c`]);
    const page = await api.get<{ paths: string[]; next_cursor: string }>(
      `/api/wiki-documents?tenant_id=${acme.tenantId}&prefix=${prefix}/&limit=3`,
    );
    expect(page.body.paths).toHaveLength(3);
    const rest = await api.get<{ paths: string[] }>(
      `/api/wiki-documents?tenant_id=${acme.tenantId}&prefix=${prefix}/&limit=3&cursor=${page.body.next_cursor}`,
    );
    expect(rest.body.paths).toEqual([`${prefix}/c`]);
    // A cursor is its list's: under another prefix it is refused (400), as any cursor the list did not issue.
    const elsewhere = await api.get(
      `/api/wiki-documents?tenant_id=${acme.tenantId}&prefix=${prefix}/a&limit=3&cursor=${page.body.next_cursor}`,
    );
    expect([elsewhere.status, (elsewhere.body as { code: string }).code]).toEqual([400, 'VALIDATION_ERROR']);
    const global = await api.get<{ paths: string[] }>(`/api/wiki-documents?prefix=${prefix}`);
    expect(global.body.paths).toEqual([]);
  });

  it('deletes a document (204) and then answers 404', async () => {
    const path = unique('temporary');
    await api.put(`/api/wiki-documents/${path}`, { json: { content: 'x' } });
    expect((await api.delete(`/api/wiki-documents/${path}`)).status).toBe(204);
    expect((await api.get(`/api/wiki-documents/${path}`)).status).toBe(404);
    expect((await api.delete(`/api/wiki-documents/${path}`)).status).toBe(404);
  });

  it('refuses bad paths (400), oversized content (413) and bad bodies (400), storing nothing', async () => {
    const base = unique('bad');
    for (const path of [
      `${base}/../etc`,
      `${base}/%2E%2E/etc`,
      `${base}//double`,
      `${base}/./here`,
      `${'x'.repeat(513)}`,
      `${base}/%00`,
    ]) {
      const response = await rawRequest(
        api.baseUrl,
        'PUT',
        `/api/wiki-documents/${path}`,
        { 'x-api-key': inject('adminKey'), 'content-type': 'application/json' },
        '{"content":"x"}',
      );
      expect({ path: path.slice(0, 40), status: response.status }).toEqual({ path: path.slice(0, 40), status: 400 });
    }
    const big = await api.put(`/api/wiki-documents/${base}/big`, { json: { content: 'é'.repeat(128 * 1024 + 1) } });
    expect(big.status).toBe(413);
    expect(
      (await api.put(`/api/wiki-documents/${base}/exact`, { json: { content: 'x'.repeat(256 * 1024) } })).status,
    ).toBe(201);
    for (const body of [{}, { content: 5 }, { content: 'x', tenant_id: acme.tenantId }]) {
      expect((await api.put(`/api/wiki-documents/${base}/body`, { json: body })).status).toBe(400);
    }
    const listed = await api.get<{ paths: string[] }>(`/api/wiki-documents?prefix=${base}`);
    expect(listed.body.paths).toEqual([`${base}/exact`]);
  });
});
