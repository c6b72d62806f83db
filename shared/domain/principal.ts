import { type Permission, type Role, roleHolds } from './authorization.ts';
import { forbidden, notFound } from './errors.ts';

/** The caller of an API route, resolved from its API key. */
export type Principal =
  | { kind: 'platform'; role: 'PlatformAdmin'; userId: string | null; apiKeyId: string }
  | { kind: 'tenant'; role: Exclude<Role, 'PlatformAdmin'>; userId: string | null; tenantId: string; apiKeyId: string };

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!roleHolds(principal.role, permission)) throw forbidden();
}

/** True when the principal may see resources of this tenant. */
export function canSeeTenant(principal: Principal, tenantId: string | null): boolean {
  return principal.kind === 'platform' || principal.tenantId === tenantId;
}

/**
 * Tenant isolation: a resource of another tenant does not exist for a tenant-scoped caller.
 * 404, never 403, so that ids of other tenants leak nothing.
 */
export function requireTenantVisible(principal: Principal, tenantId: string | null, what: string): void {
  if (!canSeeTenant(principal, tenantId)) throw notFound(what);
}

/**
 * The tenant a list or create call applies to: the caller's own unless a PlatformAdmin names one.
 * A tenant key naming another tenant gets 404, as if that tenant did not exist.
 */
export function effectiveTenantId(principal: Principal, requested: string | undefined | null): string | undefined {
  if (principal.kind === 'platform') return requested ?? undefined;
  if (requested && requested !== principal.tenantId) throw notFound('Tenant');
  return principal.tenantId;
}
