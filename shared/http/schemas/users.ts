import * as z from 'zod';
import { permissions, roles } from '../../domain/authorization.ts';
import { userStatuses } from '../../domain/identity/model.ts';
import { id, name, nextCursor, nullableTimestamp, pageQuery, timestamp } from './common.ts';

export const userIdParams = z.strictObject({ user_id: id });
export const apiKeyParams = z.strictObject({ user_id: id, api_key_id: id });

export const user = z
  .object({
    user_id: id,
    email: z.string(),
    external_id: z.string().nullable(),
    role: z.enum(roles),
    status: z.enum(userStatuses),
    tenant_id: id.nullable(),
    tenant_name: z.string().nullable(),
    tenant_slug: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'User' });

export const listUsersQuery = z.strictObject({
  tenant_id: id.optional(),
  role: z.enum(roles).optional(),
  status: z.enum(userStatuses).optional(),
  ...pageQuery,
});
export const listUsersResponse = z.object({ users: z.array(user), next_cursor: nextCursor });

export const createUserBody = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(12, 'Passwords have at least 12 characters').max(1024),
  role: z.enum(roles),
  tenant_id: id.nullable().optional(),
});
export const createUserResponse = z.object({ email: z.string(), user_id: id });

export const byEmailQuery = z.strictObject({ email: z.string().min(1).max(254) });
export const changeRoleBody = z.strictObject({ role: z.enum(roles) });
export const linkExternalIdBody = z.strictObject({ external_id: z.string().trim().min(1).max(256) });

export const createApiKeyBody = z.strictObject({ name: name(100) });
export const createApiKeyResponse = z.object({
  api_key_id: id,
  api_key: z.string(),
  prefix: z.string(),
  created_at: timestamp,
});
export const apiKey = z
  .object({
    api_key_id: id,
    name: z.string(),
    prefix: z.string(),
    created_at: timestamp,
    last_used_at: nullableTimestamp,
  })
  .meta({ id: 'ApiKey' });
export const listApiKeysQuery = z.strictObject({ ...pageQuery });
export const listApiKeysResponse = z.object({ api_keys: z.array(apiKey), next_cursor: nextCursor });

export const caller = z
  .object({
    role: z.enum(roles),
    tenant_id: id.nullable(),
    user_id: id.nullable(),
    api_key_id: z.string(),
    permissions: z.array(z.enum(permissions)).meta({ description: "What the caller's role may do" }),
  })
  .meta({ id: 'Caller' });
