/** Users of a tenant (or platform administrators): listed, created, their role, status and external id changed. */
import { randomUUID } from 'node:crypto';
import type { Role } from '../authorization.ts';
import { conflict, forbidden, invalid, notFound } from '../errors.ts';
import { mapPage, type Page, type PageRequest } from '../pagination.ts';
import { effectiveTenantId, type Principal, requireTenantVisible } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { TenantRepository } from '../tenants/ports.ts';
import type { User } from './model.ts';
import { hashPassword } from './passwords.ts';
import type { UserFilters, UserRepository } from './ports.ts';

type Deps = UserRepository & Pick<TenantRepository, 'getTenant'>;

/** A user as the API shows it: everything but the password hash. */
export function publicUser(user: User) {
  const { password_hash: _hidden, ...visible } = user;
  return visible;
}

/**
 * List users.
 * Input: the caller, optional tenant/role/status filters, a page. Output: a page of users.
 *  1. A tenant-scoped caller lists its own tenant (naming another tenant is 404).
 *  2. A PlatformAdmin lists one tenant when it names one, otherwise every user.
 */
export async function listUsers(
  deps: Deps,
  principal: Principal,
  query: UserFilters & { tenant_id?: string | undefined } & PageRequest,
): Promise<Page<ReturnType<typeof publicUser>>> {
  const tenantId = effectiveTenantId(principal, query.tenant_id);
  const filters = { role: query.role, status: query.status };
  const page = tenantId
    ? await deps.listUsersOfTenant(tenantId, filters, query)
    : await deps.listAllUsers(filters, query);
  return mapPage(page, publicUser);
}

/** Loads a user the caller may see; users of other tenants do not exist for it. */
export async function visibleUser(
  deps: Pick<UserRepository, 'getUser'>,
  principal: Principal,
  userId: string,
): Promise<User> {
  const user = await deps.getUser(userId);
  if (!user) throw notFound('User');
  if (principal.kind === 'tenant') requireTenantVisible(principal, user.tenant_id, 'User');
  return user;
}

export async function getUserByEmail(deps: Deps, principal: Principal, email: string): Promise<User> {
  const userId = await deps.findUserIdByEmail(email);
  if (!userId) throw notFound('User');
  return visibleUser(deps, principal, userId);
}

/**
 * Create a user.
 * Input: email, password, role, tenant_id. Output: the new user.
 *  1. A PlatformAdmin user belongs to no tenant, and only a PlatformAdmin creates one (403 for anyone else).
 *  2. A tenant user belongs to an existing, writable tenant the caller may see (a TenantAdmin's own by default).
 *  3. The password is hashed with scrypt; the email is claimed case-insensitively (409 when taken).
 */
export async function createUser(
  deps: Deps,
  principal: Principal,
  input: { email: string; password: string; role: Role; tenant_id?: string | null | undefined },
  now = new Date(),
): Promise<User> {
  let tenant: { tenant_id: string; name: string; slug: string } | null = null;
  if (input.role === 'PlatformAdmin') {
    if (principal.kind !== 'platform') throw forbidden('Only a PlatformAdmin creates PlatformAdmin users');
    if (input.tenant_id)
      throw invalid('A PlatformAdmin user belongs to no tenant', [
        { path: 'tenant_id', message: 'Must be absent for PlatformAdmin' },
      ]);
  } else {
    const tenantId = effectiveTenantId(principal, input.tenant_id);
    if (!tenantId)
      throw invalid('A tenant user needs a tenant', [{ path: 'tenant_id', message: 'Required for tenant roles' }]);
    tenant = await tenantFor(deps, principal, tenantId, 'write');
  }
  const at = now.toISOString();
  const user: User = {
    user_id: randomUUID(),
    email: input.email.trim(),
    external_id: null,
    role: input.role,
    status: 'Active',
    tenant_id: tenant?.tenant_id ?? null,
    tenant_name: tenant?.name ?? null,
    tenant_slug: tenant?.slug ?? null,
    password_hash: await hashPassword(input.password),
    created_at: at,
    updated_at: at,
  };
  await deps.createUser(user);
  return user;
}

async function changeUser(
  deps: Deps,
  principal: Principal,
  userId: string,
  intent: 'write' | 'restrict',
  decide: (user: User) => Partial<Pick<User, 'role' | 'status' | 'external_id'>>,
  now: Date,
): Promise<User> {
  const user = await visibleUser(deps, principal, userId);
  if (user.tenant_id) await tenantFor(deps, principal, user.tenant_id, intent);
  return deps.updateUser(userId, decide(user), now);
}

/**
 * Change a user's role. Nobody changes their own role (403), and only a PlatformAdmin gives the
 * PlatformAdmin role (403). A tenant user keeps a tenant role and a PlatformAdmin stays one (the role
 * cannot move a user in or out of a tenant: 400). A tenant keeps at least one active TenantAdmin:
 * demoting the last is 409, checked by the store in the write itself (UserRepository.updateUser), so
 * that two admins demoting each other at once leave one.
 */
export function changeRole(
  deps: Deps,
  principal: Principal,
  userId: string,
  role: Role,
  now = new Date(),
): Promise<User> {
  return changeUser(
    deps,
    principal,
    userId,
    'write',
    (user) => {
      if (user.user_id === principal.userId) throw forbidden('Nobody changes their own role');
      if (role === 'PlatformAdmin' && principal.kind !== 'platform') {
        throw forbidden('Only a PlatformAdmin gives the PlatformAdmin role');
      }
      if ((user.role === 'PlatformAdmin') !== (role === 'PlatformAdmin')) {
        throw invalid('The role cannot move a user into or out of a tenant', [
          { path: 'role', message: `Not allowed for a ${user.role}` },
        ]);
      }
      return { role };
    },
    now,
  );
}

/**
 * Deactivate a user: never oneself, and never a tenant's last active TenantAdmin (409, checked by the
 * store in the write, as for changeRole).
 */
export function deactivateUser(deps: Deps, principal: Principal, userId: string, now = new Date()): Promise<User> {
  return changeUser(
    deps,
    principal,
    userId,
    'restrict',
    (user) => {
      if (user.user_id === principal.userId) throw conflict('You cannot deactivate yourself');
      if (user.status === 'Deactivated') throw conflict('The user is already deactivated');
      return { status: 'Deactivated' };
    },
    now,
  );
}

export function reactivateUser(deps: Deps, principal: Principal, userId: string, now = new Date()): Promise<User> {
  return changeUser(
    deps,
    principal,
    userId,
    'write',
    (user) => {
      if (user.status === 'Active') throw conflict('The user is already active');
      return { status: 'Active' };
    },
    now,
  );
}

export function linkExternalId(
  deps: Deps,
  principal: Principal,
  userId: string,
  externalId: string,
  now = new Date(),
): Promise<User> {
  return changeUser(deps, principal, userId, 'write', () => ({ external_id: externalId }), now);
}
