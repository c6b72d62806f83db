import * as z from 'zod';
import { dashboardStatuses } from '../../domain/tenants/dashboard.ts';
import { objectStoreOptionKeys } from '../../domain/tenants/object-stores.ts';
import { id, name, nextCursor, nullableTimestamp, pageQuery, timestamp } from './common.ts';

export const tenantIdParams = z.strictObject({ tenant_id: id });

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
export const createTenantResponse = z.object({ tenant_id: id });

const optionValues = z.partialRecord(z.enum(objectStoreOptionKeys), z.string().min(1).max(4096));

export const objectStore = z
  .object({
    object_store_id: id,
    name: z.string(),
    is_default: z.boolean(),
    configuration: z.object({ base_url: z.string(), option_keys: z.array(z.string()) }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ObjectStore' });

export const listObjectStoresQuery = z.strictObject({ ...pageQuery });
export const listObjectStoresResponse = z.object({ object_stores: z.array(objectStore), next_cursor: nextCursor });

export const registerObjectStoreBody = z.strictObject({
  base_url: z.string().min(6).max(1024),
  name: name(200),
  options: optionValues.default({}),
});
export const registerObjectStoreResponse = z.object({ object_store_id: id });
export const selectDefaultObjectStoreBody = z.strictObject({ object_store_id: id });
export const updateObjectStoreOptionsBody = z.strictObject({ object_store_id: id, options: optionValues });

export const dashboardConnection = z
  .object({ status: z.enum(dashboardStatuses), last_error: z.string().nullable(), rotated_at: nullableTimestamp })
  .meta({ id: 'DashboardConnection' });
