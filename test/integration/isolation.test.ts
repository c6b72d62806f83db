/**
 * Tenant isolation and the authorisation table, generated from the route table: every API-key
 * route is called by every role, against the caller's own tenant and against another tenant.
 *   - a role without the route's permission gets 403;
 *   - a tenant role reaching into another tenant gets 404 (it learns nothing);
 *   - otherwise the call succeeds with the route's success status.
 * A route without a fixture here fails the suite, so a new route cannot be left out.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type Role, roleHolds, roles } from '#shared/domain/authorization.ts';
import { type RouteSpec, routeKeyParts, routes } from '#shared/routes.ts';
import { apiClient } from '../support/api.ts';
import {
  createTenant,
  createTenantWithUsers,
  createUser,
  password,
  registerStore,
  type TestTenant,
  unique,
} from '../support/fixtures.ts';
import { isolationFixtures } from '../support/isolation-fixtures.ts';

const api = apiClient();

interface World {
  tenant: TestTenant;
  storeId: string;
  subject: { userId: string; email: string };
  dataSetId: string;
}

async function world(): Promise<World> {
  const tenant = await createTenantWithUsers(api);
  const storeId = await registerStore(api, tenant.tenantId);
  const subject = await createUser(api, tenant.tenantId, 'TenantViewer');
  const connection = await api.post<{ data_set_id: string }>(`/api/tenants/${tenant.tenantId}/connections`, {
    json: { type: 'Webhook', name: 'isolation' },
  });
  return { tenant, storeId, subject, dataSetId: connection.body.data_set_id };
}

const apiKeyRoutes = (Object.entries(routes) as [string, RouteSpec][]).filter(([, spec]) => spec.auth === 'apiKey');

let own: World;
let other: World;
beforeAll(async () => {
  [own, other] = await Promise.all([world(), world()]);
});

describe('the isolation suite', () => {
  it('has a fixture for every API-key route of the route table', () => {
    const missing = apiKeyRoutes.map(([key]) => key).filter((key) => !(key in isolationFixtures));
    expect(missing).toEqual([]);
  });

  const cases = apiKeyRoutes.flatMap(([key, spec]) =>
    roles.flatMap((role) =>
      (isolationFixtures[key]?.scope === 'global' ? (['own'] as const) : (['own', 'other'] as const)).map((target) => ({
        key,
        spec,
        role,
        target,
      })),
    ),
  );

  it.each(cases)('$key as $role on $target tenant', async ({ key, spec, role, target }) => {
    const fixture = isolationFixtures[key];
    if (!fixture) throw new Error(`No fixture for ${key}`);
    const targetWorld = target === 'own' ? own : other;
    const request = await fixture.build({
      api,
      world: targetWorld,
      role,
      helpers: { createTenant, createUser, password, unique },
    });
    const callerKey =
      role === 'PlatformAdmin' ? inject('adminKey') : own.tenant.users[role as Exclude<Role, 'PlatformAdmin'>].key;
    const { method } = routeKeyParts(key);
    const response = await api.call(method, request.path, { key: callerKey, json: request.body });

    const allowed = fixture.allowedStatus ? [fixture.allowedStatus] : Object.keys(spec.responses).map(Number);
    const outcome = !roleHolds(role, spec.permission as NonNullable<RouteSpec['permission']>)
      ? 'FORBIDDEN'
      : role !== 'PlatformAdmin' && fixture.scope === 'tenant' && target === 'other'
        ? 'NOT_FOUND'
        : 'allowed';
    if (outcome === 'allowed') {
      expect({ status: response.status, allowed }).toEqual({ status: expect.toBeOneOf(allowed), allowed });
    } else {
      const code = (response.body as { code?: string } | undefined)?.code;
      expect({ status: response.status, code }).toEqual({ status: outcome === 'FORBIDDEN' ? 403 : 404, code: outcome });
    }
  });
});
