/**
 * Wiki documents: text addressed by path, in the platform-global scope or a tenant's.
 * Everyone reads global documents; a tenant's documents are its own; only a PlatformAdmin writes
 * global ones. A path is 1–512 characters and at most 1,000 bytes of UTF-8 (it is part of a DynamoDB
 * sort key, itself at most 1,024 bytes), may contain '/', and has no empty, '.' or '..' segment.
 */
import { randomUUID } from 'node:crypto';
import { forbidden, invalid, notFound, tooLarge } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { type TenantIntent, tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';

export interface WikiDocument {
  document_id: string;
  path: string;
  content: string;
  tenant_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WikiRepository {
  getDocument(tenantId: string | null, path: string): Promise<WikiDocument | null>;
  /** Creates or replaces; answers whether it created. */
  putDocument(document: WikiDocument): Promise<{ created: boolean; document: WikiDocument }>;
  deleteDocument(tenantId: string | null, path: string): Promise<boolean>;
  listPaths(tenantId: string | null, prefix: string, page: PageRequest): Promise<Page<string>>;
}

type Deps = WikiRepository & { getTenant(tenantId: string): Promise<Tenant | null> };

export const maxContentBytes = 256 * 1024;
export const maxPathCharacters = 512;
export const maxPathBytes = 1000;

export function validatePath(path: string): string {
  const fail = (message: string) => invalid('The document path is not valid', [{ path: 'path', message }]);
  if (path.length < 1 || path.length > maxPathCharacters) throw fail('A path has 1 to 512 characters');
  if (Buffer.byteLength(path, 'utf8') > maxPathBytes) throw fail('A path has at most 1,000 bytes of UTF-8');
  if (path.startsWith('/')) throw fail('A path does not start with /');
  if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw fail('A path has no empty, "." or ".." segments');
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) throw fail('A path has no control characters');
  return path;
}

/** The scope a call addresses: a tenant's documents (404 for another tenant's), or the global ones. */
async function scopeOf(
  deps: Deps,
  principal: Principal,
  tenantId: string | undefined,
  intent: TenantIntent,
): Promise<string | null> {
  if (tenantId) {
    await tenantFor(deps, principal, tenantId, intent);
    return tenantId;
  }
  if (intent !== 'read' && principal.kind !== 'platform')
    throw forbidden('Only a PlatformAdmin writes platform-global documents');
  return null;
}

export async function readDocument(
  deps: Deps,
  principal: Principal,
  path: string,
  tenantId: string | undefined,
): Promise<WikiDocument> {
  const scope = await scopeOf(deps, principal, tenantId, 'read');
  const document = await deps.getDocument(scope, validatePath(path));
  if (!document) throw notFound('Document');
  return document;
}

/**
 * Write a document.
 * Input: path, content, scope. Output: the document, and whether it is new (201) or replaced (200).
 *  1. The path is valid; the content is at most 256 KiB of UTF-8 (413 beyond).
 *  2. The scope is writable by the caller (global: PlatformAdmin only; a tenant: its own, not suspended).
 */
export async function writeDocument(
  deps: Deps,
  principal: Principal,
  path: string,
  tenantId: string | undefined,
  content: string,
  now = new Date(),
) {
  validatePath(path);
  if (Buffer.byteLength(content, 'utf8') > maxContentBytes)
    throw tooLarge(`Document content is limited to ${maxContentBytes} bytes`);
  const scope = await scopeOf(deps, principal, tenantId, 'write');
  const at = now.toISOString();
  return deps.putDocument({
    document_id: randomUUID(),
    path,
    content,
    tenant_id: scope,
    created_at: at,
    updated_at: at,
  });
}

export async function removeDocument(
  deps: Deps,
  principal: Principal,
  path: string,
  tenantId: string | undefined,
): Promise<void> {
  const scope = await scopeOf(deps, principal, tenantId, 'write');
  if (!(await deps.deleteDocument(scope, validatePath(path)))) throw notFound('Document');
}

export async function listDocuments(
  deps: Deps,
  principal: Principal,
  query: { tenant_id?: string | undefined; prefix?: string | undefined } & PageRequest,
) {
  const prefix = query.prefix ?? '';
  if (prefix.length > maxPathCharacters || Buffer.byteLength(prefix, 'utf8') > maxPathBytes) {
    throw invalid('The prefix is not valid', [
      { path: 'prefix', message: 'A prefix has at most 512 characters and 1,000 bytes of UTF-8' },
    ]);
  }
  const scope = await scopeOf(deps, principal, query.tenant_id, 'read');
  return deps.listPaths(scope, prefix, query);
}
