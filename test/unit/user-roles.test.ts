/**
 * Role refusals are 403 FORBIDDEN (the caller's role may not do this), through the use cases with
 * in-memory users: a TenantAdmin creating a PlatformAdmin or handing out that role, anyone changing
 * their own role. Nothing is written when refused.
 */
import { describe, expect, it } from 'vitest';
import type { Role } from '#shared/domain/authorization.ts';
import { DomainError } from '#shared/domain/errors.ts';
import type { User } from '#shared/domain/identity/model.ts';
import { changeRole, createUser } from '#shared/domain/identity/use-cases.ts';
import type { Principal } from '#shared/domain/principal.ts';
import { tenantRecord } from '../support/memory.ts';

const tenantId = '7d0c2a3e-9f1d-4e7a-8c6b-5d4e3f2a1b0c';
const at = '2026-01-01T00:00:00.000Z';
const userOf = (userId: string, role: Role): User => ({
  user_id: userId,
  email: `${userId}@example.com`,
  external_id: null,
  role,
  status: 'Active',
  tenant_id: role === 'PlatformAdmin' ? null : tenantId,
  tenant_name: role === 'PlatformAdmin' ? null : 'acme',
  tenant_slug: role === 'PlatformAdmin' ? null : 'acme',
  password_hash: 'x',
  created_at: at,
  updated_at: at,
});

function users() {
  const stored = new Map<string, User>([
    ['admin-1', userOf('admin-1', 'TenantAdmin')],
    ['viewer-1', userOf('viewer-1', 'TenantViewer')],
    ['platform-1', userOf('platform-1', 'PlatformAdmin')],
  ]);
  const written: string[] = [];
  const tenant = tenantRecord({ tenant_id: tenantId, name: 'acme', created_at: at, updated_at: at });
  return {
    written,
    deps: {
      getTenant: async () => tenant,
      getUser: async (id: string) => stored.get(id) ?? null,
      findUserIdByEmail: async () => null,
      listUsersOfTenant: async () => ({ items: [], nextCursor: null }),
      listAllUsers: async () => ({ items: [], nextCursor: null }),
      createUser: async (user: User) => {
        written.push(`create ${user.role}`);
      },
      updateUser: async (id: string, changes: Partial<User>) => {
        written.push(`update ${id} ${changes.role}`);
        return { ...(stored.get(id) as User), ...changes };
      },
    },
  };
}

const tenantAdmin: Principal = { kind: 'tenant', role: 'TenantAdmin', userId: 'admin-1', tenantId, apiKeyId: 'k1' };
const platformAdmin: Principal = { kind: 'platform', role: 'PlatformAdmin', userId: 'platform-1', apiKeyId: 'k2' };

async function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'OK',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );
}

describe('role refusals', () => {
  const cases: [
    string,
    Principal,
    (deps: ReturnType<typeof users>['deps'], who: Principal) => Promise<unknown>,
    string,
  ][] = [
    [
      'a TenantAdmin creating a PlatformAdmin',
      tenantAdmin,
      (deps, who) =>
        createUser(deps, who, { email: 'p@example.com', password: 'a-long-password', role: 'PlatformAdmin' }),
      'FORBIDDEN',
    ],
    [
      'a TenantAdmin changing its own role',
      tenantAdmin,
      (deps, who) => changeRole(deps, who, 'admin-1', 'TenantViewer'),
      'FORBIDDEN',
    ],
    [
      'a PlatformAdmin changing its own role',
      platformAdmin,
      (deps, who) => changeRole(deps, who, 'platform-1', 'PlatformAdmin'),
      'FORBIDDEN',
    ],
    [
      'a TenantAdmin making a user PlatformAdmin',
      tenantAdmin,
      (deps, who) => changeRole(deps, who, 'viewer-1', 'PlatformAdmin'),
      'FORBIDDEN',
    ],
    [
      'a PlatformAdmin moving a tenant user out of its tenant',
      platformAdmin,
      (deps, who) => changeRole(deps, who, 'viewer-1', 'PlatformAdmin'),
      'VALIDATION_ERROR',
    ],
  ];
  it.each(cases)('%s is refused with its code, and nothing is written', async (_, who, act, expected) => {
    const { deps, written } = users();
    expect(await outcome(act(deps, who))).toBe(expected);
    expect(written).toEqual([]);
  });

  it('lets a TenantAdmin change another user of its tenant, and create tenant users', async () => {
    const { deps, written } = users();
    expect(await outcome(changeRole(deps, tenantAdmin, 'viewer-1', 'TenantEditor'))).toBe('OK');
    expect(
      await outcome(
        createUser(deps, tenantAdmin, { email: 'v@example.com', password: 'a-long-password', role: 'TenantViewer' }),
      ),
    ).toBe('OK');
    expect(written).toEqual(['update viewer-1 TenantEditor', 'create TenantViewer']);
  });
});
