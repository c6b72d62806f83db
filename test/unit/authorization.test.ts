import { describe, expect, it } from 'vitest';
import { grants, permissions, roleHolds } from '#shared/domain/authorization.ts';
import { slugOf } from '#shared/domain/tenants/model.ts';

describe('the authorisation table', () => {
  it('grants a PlatformAdmin everything', () => {
    expect(permissions.every((permission) => roleHolds('PlatformAdmin', permission))).toBe(true);
  });

  it('nests the tenant roles: viewer within editor within admin', () => {
    for (const permission of grants.TenantViewer) expect(roleHolds('TenantEditor', permission)).toBe(true);
    for (const permission of grants.TenantEditor) expect(roleHolds('TenantAdmin', permission)).toBe(true);
  });

  it('keeps platform-only powers away from every tenant role', () => {
    for (const role of ['TenantAdmin', 'TenantEditor', 'TenantViewer'] as const) {
      expect(roleHolds(role, 'tenants.create')).toBe(false);
      expect(roleHolds(role, 'tenants.suspend')).toBe(false);
      expect(roleHolds(role, 'platform.metrics')).toBe(false);
    }
  });

  it('keeps users, keys, object stores and connection management from an editor (contract section 2)', () => {
    for (const permission of [
      'users.manage',
      'api-keys.manage',
      'object-stores.manage',
      'connections.manage',
    ] as const) {
      expect(roleHolds('TenantEditor', permission)).toBe(false);
      expect(roleHolds('TenantAdmin', permission)).toBe(true);
    }
    for (const permission of ['pipelines.write', 'jobs.write', 'wiki.write', 'connections.operate'] as const) {
      expect(roleHolds('TenantEditor', permission)).toBe(true);
    }
  });

  it('lets a viewer write nothing', () => {
    const writes = [...grants.TenantViewer].filter((permission) => !permission.endsWith('.read'));
    expect(writes).toEqual([]);
  });
});

describe('tenant slugs', () => {
  it.each([
    ['Acme Corp', 'acme-corp'],
    ['  Ünïcôdé  Café!! ', 'unicode-cafe'],
    ['a--b__c', 'a-b-c'],
    ['x'.repeat(100), 'x'.repeat(63)],
  ])('derives %j → %j', (name, slug) => {
    expect(slugOf(name)).toBe(slug);
  });

  it('refuses a name without a letter or digit', () => {
    expect(() => slugOf('!!! ???')).toThrow(/letter or digit/);
  });
});
