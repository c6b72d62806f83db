import { randomUUID } from 'node:crypto';
import { notFound } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { slugOf, type Tenant } from './model.ts';
import type { TenantRepository } from './ports.ts';

/**
 * List tenants.
 * Input: the caller and a page request. Output: a page of tenants.
 *  1. A PlatformAdmin pages through every tenant.
 *  2. A tenant-scoped caller sees exactly its own tenant.
 */
export async function listTenants(
  deps: Pick<TenantRepository, 'getTenant' | 'listTenants'>,
  principal: Principal,
  page: PageRequest,
): Promise<Page<Tenant>> {
  if (principal.kind === 'platform') return deps.listTenants(page);
  const own = await deps.getTenant(principal.tenantId);
  return { items: own ? [own] : [], nextCursor: null };
}

/**
 * Create a tenant.
 * Input: name and optional sites. Output: the new tenant.
 *  1. Derive the slug from the name (400 when nothing is left of it).
 *  2. Store tenant and slug claim together; a taken slug is 409.
 */
export async function createTenant(
  deps: Pick<TenantRepository, 'createTenant'>,
  input: { name: string; sites?: { name: string }[] | null | undefined },
  now = new Date(),
): Promise<Tenant> {
  const at = now.toISOString();
  const tenant: Tenant = {
    tenant_id: randomUUID(),
    name: input.name,
    slug: slugOf(input.name),
    status: 'Active',
    sites: input.sites ?? null,
    default_object_store_id: null,
    idp_org_id: null,
    created_at: at,
    updated_at: at,
  };
  await deps.createTenant(tenant);
  return tenant;
}

export async function getVisibleTenant(
  deps: Pick<TenantRepository, 'getTenant'>,
  principal: Principal,
  tenantId: string,
): Promise<Tenant> {
  if (principal.kind === 'tenant' && principal.tenantId !== tenantId) throw notFound('Tenant');
  const tenant = await deps.getTenant(tenantId);
  if (!tenant) throw notFound('Tenant');
  return tenant;
}
