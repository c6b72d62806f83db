import type { Role } from '../authorization.ts';

export const userStatuses = ['Active', 'Deactivated'] as const;
export type UserStatus = (typeof userStatuses)[number];

export interface User {
  user_id: string;
  email: string;
  external_id: string | null;
  role: Role;
  status: UserStatus;
  /** null for PlatformAdmin users, who belong to no tenant. */
  tenant_id: string | null;
  tenant_name: string | null;
  tenant_slug: string | null;
  /** scrypt hash; never leaves the repository layer in a response. */
  password_hash: string;
  created_at: string;
  updated_at: string;
}

/**
 * An API key as stored: only its hash is kept. A user's key acts with the user's current role; a
 * key without a user is either the bootstrap key (no tenant, role PlatformAdmin) or a service
 * credential of one tenant with a fixed tenant role (the dashboard connection's read-only key).
 */
export interface ApiKeyRecord {
  api_key_id: string;
  user_id: string | null;
  /** Service credentials only. */
  tenant_id?: string | null;
  /** Service credentials and the bootstrap key (PlatformAdmin) only. */
  role?: Role | null;
  name: string;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
}

/** Emails are unique regardless of case; the address keeps the case it was given. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
