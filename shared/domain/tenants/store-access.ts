/**
 * How the platform reaches a tenant's store, decided here from its sealed options; the S3 adapter
 * (shared/adapters/s3/tenant-stores.ts) only builds the client this describes.
 *  - keys: the tenant's own access key;
 *  - tenantRole: a role in the tenant's account, assumed with the tenant's aws_external_id;
 *  - platform: the platform's own access to the buckets the operator lists in tenantBuckets;
 *  - anonymous: a custom endpoint without keys or a role, reached with no credentials at all (never
 *    with the platform's).
 * Every session the platform opens for a store (a tenant's role, or its own role for tenant
 * buckets) is narrowed by a session policy to the store's bucket and prefix, and to reading where
 * the function only reads: whatever a bug asks for, STS's credentials reach nothing else.
 */
import { invalid } from '../errors.ts';
import type { SecretBox } from '../secrets.ts';
import type { Tenant } from './model.ts';
import { locationParts, type ObjectStoreOptions, type StoredObjectStore, storeSessionName } from './object-stores.ts';

/** What a function does with tenants' stores, as it declares (shared/topology.ts, the route table). */
export type StoreAccessMode = 'read' | 'readWrite';

export type StoreCredentials =
  | { kind: 'keys'; accessKeyId: string; secretAccessKey: string; sessionToken: string | undefined }
  | { kind: 'tenantRole'; roleArn: string; externalId: string }
  | { kind: 'platform' }
  | { kind: 'anonymous' };

export interface StoreConnection {
  /** The store as configured now, with the access asked for: what a client for it may be kept under. */
  cacheKey: string;
  tenantId: string;
  objectStoreId: string;
  /** The store's place; the sessions opened for it reach nothing outside. */
  scope: { bucket: string; prefix: string; access: StoreAccessMode };
  region: string | undefined;
  endpoint: string | undefined;
  forcePathStyle: boolean | undefined;
  credentials: StoreCredentials;
  sessionName: string;
}

export const optionsContext = (tenantId: string, objectStoreId: string) =>
  `object-store-options:${tenantId}:${objectStoreId}`;

/** The plain options of a store, for reaching it; never for a response. */
export async function openObjectStoreOptions(
  secrets: SecretBox,
  store: StoredObjectStore,
): Promise<ObjectStoreOptions> {
  return JSON.parse(await secrets.open(store.options_sealed, optionsContext(store.tenant_id, store.object_store_id)));
}

export function credentialsOf(options: ObjectStoreOptions, externalId: string): StoreCredentials {
  if (options.access_key_id !== undefined && options.secret_access_key !== undefined)
    return {
      kind: 'keys',
      accessKeyId: options.access_key_id,
      secretAccessKey: options.secret_access_key,
      sessionToken: options.session_token,
    };
  if (options.role_arn !== undefined) return { kind: 'tenantRole', roleArn: options.role_arn, externalId };
  return options.endpoint === undefined ? { kind: 'platform' } : { kind: 'anonymous' };
}

/**
 * A store reached with the platform's own access (neither keys nor a role, on AWS S3) must sit in a
 * bucket the deployment lists in `tenantBuckets`: only there does the platform have a role of its own
 * for tenants' stores, scoped to each store by a session policy. Anywhere else it would be reached with
 * whatever the function itself may do (the platform bucket holds every tenant's staged envelopes), so
 * such a store names a role or keys of its own. The message names the option, never the deployment's buckets.
 */
export function checkPlatformAccess(baseUrl: string, options: ObjectStoreOptions, tenantBuckets: readonly string[]) {
  if (credentialsOf(options, '').kind !== 'platform') return;
  if (tenantBuckets.includes(locationParts(baseUrl).bucket)) return;
  throw invalid('The object store options are not valid', [
    {
      path: 'options.role_arn',
      message:
        "Required for a bucket that is not one of the deployment's tenant buckets (tenantBuckets): without a role_arn or keys, a store is reached with the platform's own access, which only those buckets have",
    },
  ]);
}

/**
 * Connect to a tenant's store.
 * Input: the store and the access the calling function has. Output: how to reach it.
 *  1. Open its options.
 *  2. Choose its credentials (above); a role is assumed with the tenant's external id.
 *  3. Scope every session to the store's bucket and prefix, for reading only where the function only reads.
 */
export async function connectStore(
  deps: { secrets: SecretBox; getTenant(tenantId: string): Promise<Tenant | null> },
  store: StoredObjectStore,
  access: StoreAccessMode,
): Promise<StoreConnection> {
  const options = await openObjectStoreOptions(deps.secrets, store);
  let externalId = '';
  if (options.role_arn !== undefined) {
    const tenant = await deps.getTenant(store.tenant_id);
    if (!tenant) throw new Error(`Tenant ${store.tenant_id} of object store ${store.object_store_id} not found`);
    externalId = tenant.aws_external_id;
  }
  const { bucket, prefix } = locationParts(store.base_url);
  return {
    cacheKey: `${store.object_store_id}:${store.updated_at}:${access}`,
    tenantId: store.tenant_id,
    objectStoreId: store.object_store_id,
    scope: { bucket, prefix, access },
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.force_path_style === undefined ? undefined : options.force_path_style === 'true',
    credentials: credentialsOf(options, externalId),
    sessionName: storeSessionName(store.tenant_id),
  };
}
