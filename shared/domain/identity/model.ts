import type { Role } from '../authorization.ts';
import { conflict } from '../errors.ts';

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

/** The changes a user's role and status may undergo (updateUser's). */
export type UserChanges = Partial<Pick<User, 'role' | 'status' | 'external_id'>>;

export const isActiveTenantAdmin = (user: Pick<User, 'role' | 'status'>) =>
  user.role === 'TenantAdmin' && user.status === 'Active';

/** Whether `changes` may take from a user the TenantAdmin role or the Active status (depending on what it is now). */
export const mayRemoveTenantAdmin = (changes: UserChanges) =>
  (changes.role !== undefined && changes.role !== 'TenantAdmin') || changes.status === 'Deactivated';

/**
 * The refusal of a change that would leave a tenant without an active TenantAdmin: nobody would be
 * left to manage its users and keys but a PlatformAdmin.
 */
export const lastTenantAdmin = () =>
  conflict('A tenant keeps at least one active TenantAdmin: make another user TenantAdmin first');
