/**
 * Who may do what: the one authorisation table. Every API route names one permission
 * (shared/routes.ts); a role either holds it or gets 403. Tenant scoping is separate and always
 * applies on top: a tenant-scoped principal only ever sees its own tenant (anything else is 404).
 */

export const roles = ['PlatformAdmin', 'TenantAdmin', 'TenantEditor', 'TenantViewer'] as const;
export type Role = (typeof roles)[number];

export const permissions = [
  'self.read',
  'platform.metrics',
  'tenants.create',
  'tenants.read',
  'tenants.suspend',
  'object-stores.read',
  'object-stores.manage',
  'dashboard.manage',
  'users.read',
  'users.manage',
  'api-keys.manage',
  'connections.read',
  'connections.manage',
  'connections.operate',
  'data-sets.read',
  'data-sets.delete',
  'pipelines.read',
  'pipelines.write',
  'jobs.read',
  'jobs.write',
  'wiki.read',
  'wiki.write',
] as const;
export type Permission = (typeof permissions)[number];

const viewer: Permission[] = [
  'self.read',
  'tenants.read',
  'object-stores.read',
  'users.read',
  'connections.read',
  'data-sets.read',
  'pipelines.read',
  'jobs.read',
  'wiki.read',
];

const editor: Permission[] = [...viewer, 'connections.operate', 'pipelines.write', 'jobs.write', 'wiki.write'];

const tenantAdmin: Permission[] = [
  ...editor,
  'object-stores.manage',
  'dashboard.manage',
  'users.manage',
  'api-keys.manage',
  'connections.manage',
  'data-sets.delete',
];

export const grants: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  PlatformAdmin: new Set(permissions),
  TenantAdmin: new Set(tenantAdmin),
  TenantEditor: new Set(editor),
  TenantViewer: new Set(viewer),
};

export function roleHolds(role: Role, permission: Permission): boolean {
  return grants[role].has(permission);
}
