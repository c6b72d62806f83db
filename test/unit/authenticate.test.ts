/**
 * Authentication fails closed: a key without a user is a PlatformAdmin only as the bootstrap key
 * (role PlatformAdmin, no tenant), a tenant principal only as a service credential (a tenant and a
 * tenant role), and refused (401) in any other form, whatever wrote it. Literal records, in memory;
 * and the bootstrap key installed by an earlier version (no role) is given its role when installed again.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { installBootstrapKey } from '#shared/adapters/dynamo/api-keys.ts';
import { db } from '#shared/adapters/dynamo/table.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { authenticate } from '#shared/domain/identity/authenticate.ts';
import type { ApiKeyRecord } from '#shared/domain/identity/model.ts';
import { hashToken, issueToken } from '#shared/domain/tokens.ts';

const tenantId = '7d0c2a3e-9f1d-4e7a-8c6b-5d4e3f2a1b0c';
const now = new Date('2026-11-21T10:00:00.000Z');

/** A key store holding one record for `apiKey` (its hash filled in), with no users. */
function holding(apiKey: string, record: Partial<ApiKeyRecord>) {
  const stored: ApiKeyRecord = {
    api_key_id: 'k-1',
    user_id: null,
    name: 'a key',
    prefix: apiKey.slice(0, 12),
    hash: hashToken(apiKey),
    created_at: now.toISOString(),
    last_used_at: now.toISOString(),
    ...record,
  };
  return {
    findApiKeyByHash: async (hash: string) => (hash === stored.hash ? stored : null),
    getUser: async () => null,
    touchApiKey: async () => undefined,
  };
}

async function outcome(apiKey: string, record: Partial<ApiKeyRecord>) {
  try {
    return await authenticate(holding(apiKey, record), apiKey, now);
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error);
  }
}

describe('a key without a user', () => {
  const apiKey = issueToken('apiKey').token;

  it('is a PlatformAdmin as the bootstrap key: role PlatformAdmin, no tenant', async () => {
    expect(await outcome(apiKey, { name: 'bootstrap', role: 'PlatformAdmin' })).toEqual({
      kind: 'platform',
      role: 'PlatformAdmin',
      userId: null,
      apiKeyId: 'k-1',
    });
    expect(await outcome(apiKey, { role: 'PlatformAdmin', tenant_id: null })).toMatchObject({ kind: 'platform' });
  });

  it('is a principal of its tenant, with its fixed role, as a service credential', async () => {
    expect(await outcome(apiKey, { tenant_id: tenantId, role: 'TenantViewer' })).toEqual({
      kind: 'tenant',
      role: 'TenantViewer',
      userId: null,
      tenantId,
      apiKeyId: 'k-1',
    });
  });

  it.each<[string, Partial<ApiKeyRecord>]>([
    ['neither a tenant nor a role (the form of a bootstrap key installed before roles were named)', {}],
    ['neither, as nulls', { tenant_id: null, role: null }],
    ['a tenant but no role', { tenant_id: tenantId }],
    ['a tenant and a null role', { tenant_id: tenantId, role: null }],
    ['a tenant role but no tenant', { role: 'TenantAdmin' }],
    ['role PlatformAdmin and a tenant', { tenant_id: tenantId, role: 'PlatformAdmin' }],
  ])('is refused 401 with %s', async (_, record) => {
    expect(await outcome(apiKey, record)).toBe('UNAUTHORIZED');
  });
});

describe('installing the bootstrap key again', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.TABLE_NAME = 'tributary';
  });
  afterAll(() => {
    process.env = saved;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('gives a record without a role (an earlier version wrote it) the role PlatformAdmin, and only such a record', async () => {
    const apiKey = issueToken('apiKey').token;
    const hash = hashToken(apiKey);
    const sent: unknown[] = [];
    vi.spyOn(db, 'send').mockImplementation((async (command: unknown) => {
      sent.push(command);
      // The pointer names this very key: installed before.
      return sent.length === 1 ? { Item: { pk: 'BOOTSTRAP_KEY', sk: 'BOOTSTRAP_KEY', hash } } : {};
    }) as never);
    await installBootstrapKey(hash, apiKey.slice(0, 12), now);
    expect(sent).toHaveLength(2);
    const update = sent[1];
    expect(update).toBeInstanceOf(UpdateCommand);
    const input = (update as UpdateCommand).input;
    expect(input.Key).toEqual({ pk: `API_KEY#${hash}`, sk: 'API_KEY' });
    expect(input.UpdateExpression).toBe('SET #role = :role');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':role': 'PlatformAdmin' });
    // Only while it has no role, and only the bootstrap key's form: no user, no tenant.
    expect(input.ConditionExpression).toContain('attribute_not_exists(#role)');
    expect(input.ConditionExpression).toContain('attribute_not_exists(tenant_id)');
    expect(input.ConditionExpression).toContain('attribute_type(user_id, :null)');
  });
});
