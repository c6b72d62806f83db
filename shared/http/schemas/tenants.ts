import * as z from 'zod';
import { id, name, nextCursor, pageQuery, timestamp } from './common.ts';

export const tenant = z
  .object({
    tenant_id: id,
    name: z.string(),
    slug: z.string(),
    status: z.enum(['Active', 'Suspended']),
    sites: z.array(z.object({ name: z.string() })).nullable(),
    default_object_store_id: id.nullable(),
    idp_org_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Tenant' });

export const listTenantsQuery = z.strictObject({ ...pageQuery });
export const listTenantsResponse = z.object({ tenants: z.array(tenant), next_cursor: nextCursor });

export const createTenantBody = z.strictObject({
  name: name(200),
  sites: z
    .array(z.strictObject({ name: name(200) }))
    .max(100)
    .nullable()
    .optional(),
});
