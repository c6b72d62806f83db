import { notFound, refused } from '../errors.ts';
import { canSeeTenant, type Principal } from '../principal.ts';
import type { Tenant } from './model.ts';

/**
 * What a call intends to do to a tenant's data:
 *  - read: always allowed (a suspended tenant can still see its data);
 *  - write: creates or changes data; refused with 422 TENANT_SUSPENDED while the tenant is suspended;
 *  - restrict: only reduces access (deactivate a user, revoke a key, pause a source), so it stays
 *    possible during a suspension, when it matters most.
 */
export type TenantIntent = 'read' | 'write' | 'restrict';

/** Loads the tenant a call acts on: 404 when the caller may not see it, 422 when a write meets a suspension. */
export async function tenantFor(
  deps: { getTenant(tenantId: string): Promise<Tenant | null> },
  principal: Principal,
  tenantId: string,
  intent: TenantIntent,
): Promise<Tenant> {
  if (!canSeeTenant(principal, tenantId)) throw notFound('Tenant');
  const tenant = await deps.getTenant(tenantId);
  if (!tenant) throw notFound('Tenant');
  if (intent === 'write' && tenant.status === 'Suspended') {
    throw refused('TENANT_SUSPENDED', `Tenant ${tenant.slug} is suspended; its data can be read but not changed`);
  }
  return tenant;
}
