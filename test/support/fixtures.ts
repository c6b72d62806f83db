/** Builders for the integration suite; everything goes through the public API. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ApiClient } from './api.ts';

export type TenantRole = 'TenantAdmin' | 'TenantEditor' | 'TenantViewer';
export const tenantRoles: TenantRole[] = ['TenantAdmin', 'TenantEditor', 'TenantViewer'];

export const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
export const password = () => `pw-${randomUUID()}`;

/** Every password and option value the suite sends: no response may ever contain one. */
export const neverShown = new Set<string>();
/** Every API key issued: each may appear in its creation response and nowhere else. */
export const issuedKeys: string[] = [];

export async function createTenant(api: ApiClient, name = unique('tenant')): Promise<string> {
  const response = await api.post<{ tenant_id: string }>('/api/tenants', { json: { name }, retryBusy: true });
  expect(response.status, response.text).toBe(201);
  return response.body.tenant_id;
}

export interface TestUser {
  userId: string;
  email: string;
  key: string;
}

export async function createUser(
  api: ApiClient,
  tenantId: string | null,
  role: string,
  key?: string,
): Promise<TestUser> {
  const email = `${unique('user')}@example.com`;
  const secret = password();
  neverShown.add(secret);
  const created = await api.post<{ user_id: string }>('/api/users', {
    json: { email, password: secret, role, ...(tenantId ? { tenant_id: tenantId } : {}) },
    key,
    retryBusy: true,
  });
  let userId = created.body.user_id;
  if (created.status === 409) {
    // The email is this call's own: a conflict is the user an attempt answered 503 made after all
    // (its write landed once the call's time was up), which the retry then met, as a client's would.
    const found = await api.get<{ user_id: string; email: string }>(
      `/api/users/by-email?email=${encodeURIComponent(email)}`,
      { key, retryBusy: true },
    );
    expect(found.status, found.text).toBe(200);
    expect(found.body.email.toLowerCase()).toBe(email.toLowerCase());
    userId = found.body.user_id;
  } else expect(created.status, created.text).toBe(201);
  const issued = await api.post<{ api_key: string }>(`/api/users/${userId}/api-keys`, {
    json: { name: 'test' },
    retryBusy: true,
  });
  expect(issued.status, issued.text).toBe(201);
  issuedKeys.push(issued.body.api_key);
  return { userId, email, key: issued.body.api_key };
}

export interface TestTenant {
  tenantId: string;
  users: Record<TenantRole, TestUser>;
}

export async function createTenantWithUsers(api: ApiClient): Promise<TestTenant> {
  const tenantId = await createTenant(api);
  const users = {} as Record<TenantRole, TestUser>;
  for (const role of tenantRoles) users[role] = await createUser(api, tenantId, role);
  return { tenantId, users };
}

export async function registerStore(
  api: ApiClient,
  tenantId: string,
  options: Record<string, string> = { region: 'eu-west-1' },
  baseUrl = `s3://demo-bucket/${unique('store')}`,
): Promise<string> {
  // Every option value is secret; the credential-like ones are unique enough to search every response for.
  for (const key of ['access_key_id', 'secret_access_key', 'session_token', 'external_id']) {
    if (options[key]) neverShown.add(options[key]);
  }
  const response = await api.post<{ object_store_id: string }>(`/api/tenants/${tenantId}/register-object-store`, {
    json: { base_url: baseUrl, name: unique('store'), options },
    retryBusy: true,
  });
  expect(response.status, response.text).toBe(201);
  return response.body.object_store_id;
}
