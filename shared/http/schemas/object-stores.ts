/** The object store schemas, apart from the tenant's: only the routes that manage stores load them. */
import * as z from 'zod';
import { objectStoreOptionKeys } from '../../domain/tenants/object-stores.ts';
import { id, name, nextCursor, pageQuery, timestamp } from './common.ts';

const optionValues = z.partialRecord(z.enum(objectStoreOptionKeys), z.string().min(1).max(4096)).meta({
  description:
    "Every value is a secret: never returned, only its key (option_keys). No external_id: the platform passes the tenant's aws_external_id (an external_id here is 400). A store without keys or a role is reached with the platform's own access, only in a bucket the deployment lists in tenantBuckets (elsewhere 400 on options.role_arn), or, at a custom endpoint, anonymously.",
});

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
  base_url: z.string().min(6).max(1024).meta({
    description:
      "s3://bucket or s3://bucket/prefix: at most 16 segments and 512 characters of letters, digits and -_.=+@,!'(); no directory bucket (…--x-s3). A store reached with shared credentials (no keys, no role) may not overlap another tenant's such store: the same prefix, one inside the other, or the whole bucket over a prefix, compared by segment, is 409 CONFLICT and nothing is stored.",
  }),
  name: name(200),
  options: optionValues.default({}),
});
export const registerObjectStoreResponse = z.object({ object_store_id: id });
export const selectDefaultObjectStoreBody = z.strictObject({ object_store_id: id });
export const updateObjectStoreOptionsBody = z.strictObject({ object_store_id: id, options: optionValues });
