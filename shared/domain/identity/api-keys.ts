/** A user's API keys: issued (the key shown once, only its hash kept), listed, revoked. */
import { randomUUID } from 'node:crypto';
import { conflict } from '../errors.ts';
import { mapPage, type Page, type PageRequest } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { TenantRepository } from '../tenants/ports.ts';
import { issueToken } from '../tokens.ts';
import type { ApiKeyRecord } from './model.ts';
import type { ApiKeyRepository, UserRepository } from './ports.ts';
import { visibleUser } from './use-cases.ts';

type Deps = UserRepository & Pick<TenantRepository, 'getTenant'>;

/** Users may hold at most this many API keys at once: enough for rotation, few enough to audit. */
export const maxApiKeysPerUser = 20;

/**
 * Issue an API key for a user.
 * Input: the user and a name. Output: the key record and the key itself, shown this once.
 *  1. The user must be visible, active, in a writable tenant, and below the per-user key limit.
 *  2. Only the key's SHA-256 is stored.
 */
export async function issueApiKey(
  deps: Deps & ApiKeyRepository,
  principal: Principal,
  userId: string,
  name: string,
  now = new Date(),
): Promise<{ record: ApiKeyRecord; apiKey: string }> {
  const user = await visibleUser(deps, principal, userId);
  if (user.tenant_id) await tenantFor(deps, principal, user.tenant_id, 'write');
  if (user.status !== 'Active') throw conflict('A deactivated user cannot be given API keys');
  if ((await deps.countApiKeysByUser(userId)) >= maxApiKeysPerUser) {
    throw conflict(`A user holds at most ${maxApiKeysPerUser} API keys; revoke one first`);
  }
  const issued = issueToken('apiKey');
  const record = {
    api_key_id: randomUUID(),
    user_id: userId,
    name,
    prefix: issued.displayPrefix,
    hash: issued.hash,
    created_at: now.toISOString(),
    last_used_at: null,
  };
  await deps.createApiKey(record);
  return { record, apiKey: issued.token };
}

export function publicApiKey(record: ApiKeyRecord) {
  return {
    api_key_id: record.api_key_id,
    name: record.name,
    prefix: record.prefix,
    created_at: record.created_at,
    last_used_at: record.last_used_at,
  };
}

export async function listApiKeys(
  deps: Deps & ApiKeyRepository,
  principal: Principal,
  userId: string,
  page: PageRequest,
): Promise<Page<ReturnType<typeof publicApiKey>>> {
  await visibleUser(deps, principal, userId);
  return mapPage(await deps.listApiKeysByUser(userId, page), publicApiKey);
}

/** Revoking only reduces access, so it works even while the tenant is suspended. */
export async function revokeApiKey(
  deps: Deps & ApiKeyRepository,
  principal: Principal,
  userId: string,
  apiKeyId: string,
): Promise<void> {
  await visibleUser(deps, principal, userId);
  await deps.revokeApiKey(userId, apiKeyId);
}
