import { unauthorized } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { hashToken, isWellFormedToken, sameHash } from '../tokens.ts';
import type { ApiKeyRecord, User } from './model.ts';

export interface CredentialLookup {
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  getUser(userId: string): Promise<User | null>;
  /** Records use, at most once a minute per key (a write on every request would be waste). */
  touchApiKey(key: ApiKeyRecord, now: Date): Promise<void>;
}

const touchIntervalMs = 60_000;

/**
 * Resolve the caller of a management route from its X-API-Key header.
 *
 * Input: the header value. Output: the Principal, or 401 UNAUTHORIZED.
 *  1. A missing or malformed key (not trb_key_ and 43 base64url characters) is refused without a lookup.
 *  2. The key's SHA-256 is looked up (strongly consistent, no cache: a revoked key or a deactivated
 *     user stops working on the very next request).
 *  3. The bootstrap key (no user, no tenant, role PlatformAdmin) is a PlatformAdmin; a service
 *     credential (no user, one tenant, a tenant role) has its fixed role; any other key without a
 *     user is refused (401). A user's key acts with the user's current role and tenant, and only
 *     while that user is Active.
 */
export async function authenticate(
  deps: CredentialLookup,
  apiKey: string | undefined,
  now = new Date(),
): Promise<Principal> {
  if (!isWellFormedToken('apiKey', apiKey)) throw unauthorized();
  const hash = hashToken(apiKey);
  const key = await deps.findApiKeyByHash(hash);
  if (!key || !sameHash(key.hash, hash)) throw unauthorized();

  let principal: Principal;
  if (key.user_id === null) {
    // Fails closed: a key without a user says what it is, and anything else is refused, so that a
    // record written without its tenant or role (by a bug anywhere) is no PlatformAdmin.
    if (key.role === 'PlatformAdmin' && !key.tenant_id) {
      principal = { kind: 'platform', role: 'PlatformAdmin', userId: null, apiKeyId: key.api_key_id };
    } else if (key.tenant_id && key.role && key.role !== 'PlatformAdmin') {
      principal = { kind: 'tenant', role: key.role, userId: null, tenantId: key.tenant_id, apiKeyId: key.api_key_id };
    } else {
      throw unauthorized();
    }
  } else {
    const user = await deps.getUser(key.user_id);
    if (user?.status !== 'Active') throw unauthorized();
    principal =
      user.role === 'PlatformAdmin'
        ? { kind: 'platform', role: 'PlatformAdmin', userId: user.user_id, apiKeyId: key.api_key_id }
        : {
            kind: 'tenant',
            role: user.role,
            userId: user.user_id,
            tenantId: user.tenant_id as string,
            apiKeyId: key.api_key_id,
          };
  }
  const lastUsed = key.last_used_at ? Date.parse(key.last_used_at) : 0;
  if (now.getTime() - lastUsed > touchIntervalMs) await deps.touchApiKey(key, now);
  return principal;
}
