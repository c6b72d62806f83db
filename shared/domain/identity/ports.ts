import type { Role } from '../authorization.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { ApiKeyRecord, User, UserChanges, UserStatus } from './model.ts';

export interface UserFilters {
  role?: Role | undefined;
  status?: UserStatus | undefined;
}

export interface UserRepository {
  getUser(userId: string): Promise<User | null>;
  findUserIdByEmail(email: string): Promise<string | null>;
  /** tenantId null lists the PlatformAdmin users. */
  listUsersOfTenant(tenantId: string | null, filters: UserFilters, page: PageRequest): Promise<Page<User>>;
  listAllUsers(filters: UserFilters, page: PageRequest): Promise<Page<User>>;
  /** Fails with CONFLICT when the email is taken, whatever its case. */
  createUser(user: User): Promise<void>;
  /**
   * Fails with NOT_FOUND when the user does not exist, and with CONFLICT (lastTenantAdmin), changing
   * nothing, when the user is an active TenantAdmin and the change (a role other than TenantAdmin,
   * or Deactivated) would leave no other active TenantAdmin in its tenant: checked in the same write,
   * so that two admins demoting each other at once leave one.
   */
  updateUser(userId: string, changes: UserChanges, now: Date): Promise<User>;
}

export interface ApiKeyRepository {
  createApiKey(record: ApiKeyRecord & { user_id: string }): Promise<void>;
  listApiKeysByUser(userId: string, page: PageRequest): Promise<Page<ApiKeyRecord>>;
  /** How many keys the user holds (no page, no cursor: issuing a key checks it). */
  countApiKeysByUser(userId: string): Promise<number>;
  /** Fails with NOT_FOUND when the user has no such key. */
  revokeApiKey(userId: string, apiKeyId: string): Promise<void>;
}
