/**
 * The wiki use cases, in process through in-memory ports (test/support/memory.ts). The running
 * service checks the wiring of the same routes.
 */
import { describe, expect, it } from 'vitest';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { listDocuments, readDocument, removeDocument, writeDocument } from '#shared/domain/wiki/use-cases.ts';
import { platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';
import { now, withDataSet } from '../support/use-case-setups.ts';

describe.concurrent('wiki documents', () => {
  it('are created, then replaced keeping id and creation time, and listed sorted by prefix', async () => {
    const { store, tenantId } = await withDataSet();
    const editor = tenantPrincipal(tenantId, 'TenantEditor');
    const first = await writeDocument(store, editor, 'guides/b/start', tenantId, 'v1', now);
    expect(first).toMatchObject({
      created: true,
      document: { path: 'guides/b/start', content: 'v1', tenant_id: tenantId },
    });
    const again = await writeDocument(
      store,
      editor,
      'guides/b/start',
      tenantId,
      'v2',
      new Date('2026-11-22T00:00:00.000Z'),
    );
    expect(again).toMatchObject({
      created: false,
      document: { document_id: first.document.document_id, content: 'v2', created_at: now.toISOString() },
    });
    await writeDocument(store, editor, 'guides/a', tenantId, 'x');
    await writeDocument(store, editor, 'other', tenantId, 'x');
    expect((await listDocuments(store, editor, { tenant_id: tenantId, prefix: 'guides/', limit: 10 })).items).toEqual([
      'guides/a',
      'guides/b/start',
    ]);
    expect((await readDocument(store, editor, 'guides/b/start', tenantId)).content).toBe('v2');
  });

  it('keep scopes apart: everyone reads global documents, only a PlatformAdmin writes them', async () => {
    const { store, tenantId } = await withDataSet();
    const admin = tenantPrincipal(tenantId, 'TenantAdmin');
    await writeDocument(store, platformAdmin, 'handbook', undefined, 'global');
    expect((await readDocument(store, admin, 'handbook', undefined)).content).toBe('global');
    expect(await refusal(writeDocument(store, admin, 'handbook', undefined, 'mine'))).toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await refusal(readDocument(store, admin, 'handbook', tenantId))).toMatchObject({ code: 'NOT_FOUND' });
    const other = await createTenant(store, { name: 'Other' });
    expect(await refusal(readDocument(store, admin, 'handbook', other.tenant_id))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it.for([
    ['', 'empty'],
    ['/leading', 'a leading slash'],
    ['a//b', 'an empty segment'],
    ['a/../b', 'a ".." segment'],
    ['a/./b', 'a "." segment'],
    ['x'.repeat(513), '513 characters'],
    ['tab\there', 'a control character'],
  ])('refuse the path %j (%s) with 400 and store nothing', async ([path], { expect }) => {
    const { store, tenantId } = await withDataSet();
    expect(await refusal(writeDocument(store, platformAdmin, path as string, tenantId, 'x'))).toEqual({
      code: 'VALIDATION_ERROR',
      paths: ['path'],
    });
    expect(store.state.documents.size).toBe(0);
  });

  it('hold at most 256 KiB of UTF-8 (413 beyond), and answer 404 for deleting what is not there', async () => {
    const { store, tenantId } = await withDataSet();
    await writeDocument(store, platformAdmin, 'full', tenantId, 'x'.repeat(256 * 1024));
    expect(
      await refusal(writeDocument(store, platformAdmin, 'over', tenantId, 'é'.repeat(128 * 1024 + 1))),
    ).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    await removeDocument(store, platformAdmin, 'full', tenantId);
    expect(await refusal(removeDocument(store, platformAdmin, 'full', tenantId))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
