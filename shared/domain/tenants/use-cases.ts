import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../errors.ts';
import { mapPage, type Page, type PageRequest } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import type { SecretBox } from '../secrets.ts';
import { issueToken } from '../tokens.ts';
import {
  type DashboardConnection,
  type DashboardProvisioningQueue,
  type DashboardRepository,
  dashboardCredentialContext,
  publicDashboardConnection,
} from './dashboard.ts';
import { tenantFor } from './guard.ts';
import { slugOf, type Tenant } from './model.ts';
import {
  changedPlaceOptions,
  checkStoreRole,
  newExternalId,
  normalizeBaseUrl,
  type ObjectStore,
  type ObjectStoreOptions,
  parseBaseUrl,
  publicObjectStore,
  type StoredObjectStore,
  type TenantRoleChecks,
  validateOptions,
} from './object-stores.ts';
import type { ObjectStoreRepository, TenantRepository } from './ports.ts';
import { checkPlatformAccess, openObjectStoreOptions, optionsContext } from './store-access.ts';
import { claimedPaths, claimStorePath, type StorePathClaim, sharesCredentials } from './store-claims.ts';

/**
 * List tenants.
 * Input: the caller and a page request. Output: a page of tenants.
 *  1. A PlatformAdmin pages through every tenant.
 *  2. A tenant-scoped caller sees exactly its own tenant.
 */
export async function listTenants(
  deps: Pick<TenantRepository, 'getTenant' | 'listTenants'>,
  principal: Principal,
  page: PageRequest,
): Promise<Page<Tenant>> {
  if (principal.kind === 'platform') return deps.listTenants(page);
  const own = await deps.getTenant(principal.tenantId);
  return { items: own ? [own] : [], nextCursor: null };
}

/**
 * Create a tenant.
 * Input: name and optional sites. Output: the new tenant.
 *  1. Derive the slug from the name (400 when nothing is left of it).
 *  2. Generate its external id, the one the platform passes when it assumes the tenant's roles.
 *  3. Store tenant and slug claim together; a taken slug is 409.
 */
export async function createTenant(
  deps: Pick<TenantRepository, 'createTenant'>,
  input: { name: string; sites?: { name: string }[] | null | undefined },
  now = new Date(),
): Promise<Tenant> {
  const at = now.toISOString();
  const tenant: Tenant = {
    tenant_id: randomUUID(),
    name: input.name,
    slug: slugOf(input.name),
    status: 'Active',
    sites: input.sites ?? null,
    default_object_store_id: null,
    idp_org_id: null,
    aws_external_id: newExternalId(),
    created_at: at,
    updated_at: at,
  };
  await deps.createTenant(tenant);
  return tenant;
}

/** Suspension is a platform action: the tenant's data stays readable, its writes and ingest stop. */
export async function suspendTenant(
  deps: Pick<TenantRepository, 'getTenant' | 'moveTenantStatus'>,
  principal: Principal,
  tenantId: string,
  now = new Date(),
): Promise<void> {
  await tenantFor(deps, principal, tenantId, 'read');
  await deps.moveTenantStatus(tenantId, 'Active', 'Suspended', now);
}

export async function reactivateTenant(
  deps: Pick<TenantRepository, 'getTenant' | 'moveTenantStatus'>,
  principal: Principal,
  tenantId: string,
  now = new Date(),
): Promise<void> {
  await tenantFor(deps, principal, tenantId, 'read');
  await deps.moveTenantStatus(tenantId, 'Suspended', 'Active', now);
}

/** A tenant registers at most this many object stores. */
export const maxObjectStoresPerTenant = 20;

function sortedKeys(options: ObjectStoreOptions): string[] {
  return Object.keys(options).sort();
}

/**
 * How often a registration that met another at a shared path decides again before giving up (409),
 * each after a random wait that grows with the attempts.
 */
const claimAttempts = 8;

/**
 * Writes a store (new, or with new options) together with the claims on its place in the bucket when
 * it is reached with shared credentials (store-claims.ts): read the claims, decide, write them at the
 * versions read; when another registration wrote one of them meanwhile, decide again.
 */
async function withStoreClaims(
  deps: Pick<ObjectStoreRepository, 'getStorePathClaims'>,
  tenantId: string,
  baseUrl: string,
  options: ObjectStoreOptions,
  write: (claims: StorePathClaim[]) => Promise<boolean>,
): Promise<void> {
  if (!sharesCredentials(options)) {
    if (!(await write([]))) throw new Error('A store write without claims was refused as if a claim moved');
    return;
  }
  const { bucket, prefix } = parseBaseUrl(baseUrl);
  for (let attempt = 1; attempt <= claimAttempts; attempt++) {
    const claims = claimStorePath(await deps.getStorePathClaims(bucket, claimedPaths(prefix)), tenantId);
    if (claims === 'overlaps')
      throw conflict(
        "The store overlaps another tenant's store in this bucket (the same prefix, one inside the other, or the whole bucket)",
      );
    if (await write(claims)) return;
    // Every registration in a bucket writes its root claim: those at the same moment take turns.
    await new Promise((resolve) => setTimeout(resolve, attempt * (25 + Math.random() * 75)));
  }
  throw conflict('Other stores are being registered in this bucket at the same time; try again');
}

/** What registering or changing a store's options needs besides the repositories. */
export interface StoreOptionDeps {
  secrets: SecretBox;
  /** The custom endpoints the deployment accepts now (host patterns). */
  allowedStoreEndpoints(): readonly string[];
  /** The buckets the platform reaches with its own role for tenants' stores (the deployment's tenantBuckets). */
  tenantBuckets(): readonly string[];
  /** Checks the role a store names (checkStoreRole). */
  roles: TenantRoleChecks;
}

/**
 * Register an object store.
 * Input: base_url, name, options. Output: the new store.
 *  1. The tenant must be visible and writable; at most 20 stores per tenant.
 *  2. base_url is s3://bucket[/prefix]; options are from the allowed set and consistent (a store on AWS
 *     S3 names its region), and a custom endpoint is one the deployment accepts. A store without keys
 *     or a role on AWS S3 is in one of the deployment's tenant buckets (checkPlatformAccess).
 *  3. A role is checked with STS: not the platform's own, not assumable without the tenant's external
 *     id nor with another.
 *  4. Option values are sealed before they are stored; the first store becomes the default.
 *  5. A store reached with shared credentials claims its place in the bucket with it: one that
 *     overlaps another tenant's is 409, and nothing is stored.
 */
export async function registerObjectStore(
  deps: Pick<TenantRepository, 'getTenant'> & ObjectStoreRepository & StoreOptionDeps,
  principal: Principal,
  tenantId: string,
  input: { base_url: string; name: string; options: ObjectStoreOptions },
  now = new Date(),
): Promise<ObjectStore> {
  await tenantFor(deps, principal, tenantId, 'write');
  const baseUrl = normalizeBaseUrl(input.base_url);
  validateOptions(input.options, deps.allowedStoreEndpoints());
  checkPlatformAccess(baseUrl, input.options, deps.tenantBuckets());
  if ((await deps.countObjectStores(tenantId)) >= maxObjectStoresPerTenant) {
    throw conflict(`A tenant registers at most ${maxObjectStoresPerTenant} object stores`);
  }
  await checkStoreRole(deps.roles, tenantId, input.options);
  const objectStoreId = randomUUID();
  const at = now.toISOString();
  const store: StoredObjectStore = {
    object_store_id: objectStoreId,
    tenant_id: tenantId,
    name: input.name,
    base_url: baseUrl,
    option_keys: sortedKeys(input.options),
    options_sealed: await deps.secrets.seal(JSON.stringify(input.options), optionsContext(tenantId, objectStoreId)),
    created_at: at,
    updated_at: at,
  };
  await withStoreClaims(deps, tenantId, baseUrl, input.options, (claims) => deps.createObjectStore(store, claims));
  return store;
}

export async function listObjectStores(
  deps: Pick<TenantRepository, 'getTenant'> & Pick<ObjectStoreRepository, 'listObjectStores'>,
  principal: Principal,
  tenantId: string,
  page: PageRequest,
) {
  const tenant = await tenantFor(deps, principal, tenantId, 'read');
  const stores = await deps.listObjectStores(tenantId, page);
  return mapPage(stores, (store) => publicObjectStore(store, tenant.default_object_store_id));
}

export async function selectDefaultObjectStore(
  deps: Pick<TenantRepository, 'getTenant'> & Pick<ObjectStoreRepository, 'setDefaultObjectStore'>,
  principal: Principal,
  tenantId: string,
  objectStoreId: string,
  now = new Date(),
): Promise<void> {
  await tenantFor(deps, principal, tenantId, 'write');
  await deps.setDefaultObjectStore(tenantId, objectStoreId, now);
}

/** How many of the data sets that keep a store's place a refusal names. */
const namedDataSets = 3;

/**
 * Replaces the whole set of options (a key left out is removed), checked and sealed as at
 * registration (without keys or a role, only in a tenant bucket); options that make the store reached
 * with shared credentials claim its place (409 when it overlaps another tenant's store, and nothing changes).
 * Its place (endpoint, region, force_path_style: placeOptionKeys) changes only while no data set
 * has its table in the store: those tables stay where they were written, and the store would no
 * longer reach them (409 naming them, and nothing changes). Its credentials may always change.
 */
export async function updateObjectStoreOptions(
  deps: Pick<TenantRepository, 'getTenant'> &
    Pick<
      ObjectStoreRepository,
      'getObjectStore' | 'getStorePathClaims' | 'replaceObjectStoreOptions' | 'dataSetsInStore'
    > &
    StoreOptionDeps,
  principal: Principal,
  tenantId: string,
  input: { object_store_id: string; options: ObjectStoreOptions },
  now = new Date(),
): Promise<void> {
  await tenantFor(deps, principal, tenantId, 'write');
  validateOptions(input.options, deps.allowedStoreEndpoints());
  const store = await deps.getObjectStore(tenantId, input.object_store_id);
  if (!store) throw notFound('Object store');
  checkPlatformAccess(store.base_url, input.options, deps.tenantBuckets());
  const moved = changedPlaceOptions(await openObjectStoreOptions(deps.secrets, store), input.options);
  /** The 409 naming the data sets with a table in the store; null while there is none. */
  const placeHeld = async () => {
    const tables = await deps.dataSetsInStore(tenantId, store.object_store_id, namedDataSets + 1);
    if (tables.length === 0) return null;
    const named = tables.slice(0, namedDataSets).join(', ') + (tables.length > namedDataSets ? ', …' : '');
    return conflict(
      `Data sets have their tables in this object store (${named}): its ${moved.join(', ')} cannot change, as they decide where those tables are; register a new store for another place (credentials may change)`,
    );
  };
  const held = moved.length > 0 ? await placeHeld() : null;
  if (held) throw held;
  await checkStoreRole(deps.roles, tenantId, input.options);
  const sealed = await deps.secrets.seal(
    JSON.stringify(input.options),
    optionsContext(tenantId, input.object_store_id),
  );
  // A first commit recorded between the check above and this write holds the place too (the commit
  // itself is recorded only while the store has not moved since it read where to write).
  const moving = moved.length > 0 ? { firstCommits: store.first_commits ?? 0 } : undefined;
  await withStoreClaims(deps, tenantId, store.base_url, input.options, async (claims) => {
    const outcome = await deps.replaceObjectStoreOptions(
      tenantId,
      input.object_store_id,
      sortedKeys(input.options),
      sealed,
      now,
      claims,
      moving,
    );
    if (outcome === 'tableCommitted')
      throw (
        (await placeHeld()) ??
        conflict(
          `A data set's first commit to this object store was recorded just now: its ${moved.join(', ')} cannot change; register a new store for another place (credentials may change)`,
        )
      );
    return outcome === 'replaced';
  });
}

/**
 * Retry the dashboard connection.
 * Input: the tenant. Output: the connection, now Pending.
 *  1. The tenant must be visible and writable.
 *  2. A connection without a credential gets one (a TenantViewer key owned by the connection).
 *  3. The status becomes Pending and a provisioning job is queued.
 */
export async function retryDashboardConnection(
  deps: Pick<TenantRepository, 'getTenant'> & DashboardRepository & DashboardProvisioningQueue & { secrets: SecretBox },
  principal: Principal,
  tenantId: string,
  now = new Date(),
) {
  await tenantFor(deps, principal, tenantId, 'write');
  const { existing, issued } = await issueDashboardCredential(deps, tenantId, now, 'unless one exists');
  if (!issued) await deps.setDashboardStatus(tenantId, 'Pending', null, now);
  await deps.requestDashboardProvisioning(tenantId);
  return publicDashboardConnection({
    ...(existing ?? emptyConnection(tenantId, now)),
    status: 'Pending',
    last_error: null,
  });
}

/**
 * Rotate the dashboard's credential: a new key, the old one revoked at once, provisioning queued. It
 * stays possible while the tenant is suspended, as a key's revocation does: a leaked dashboard key
 * (a TenantViewer's, which reads through a suspension) is what a suspension is often for, and the
 * new key reads no more than the old.
 */
export async function rotateDashboardCredential(
  deps: Pick<TenantRepository, 'getTenant'> & DashboardRepository & DashboardProvisioningQueue & { secrets: SecretBox },
  principal: Principal,
  tenantId: string,
  now = new Date(),
): Promise<void> {
  await tenantFor(deps, principal, tenantId, 'restrict');
  await issueDashboardCredential(deps, tenantId, now, 'always');
  await deps.requestDashboardProvisioning(tenantId);
}

function emptyConnection(tenantId: string, now: Date): DashboardConnection {
  return {
    tenant_id: tenantId,
    status: 'NotConfigured',
    last_error: null,
    rotated_at: null,
    credential: null,
    updated_at: now.toISOString(),
  };
}

/** Tries of a credential's write against calls made at the same moment. */
const credentialTries = 3;

/**
 * A new dashboard credential retiring the one the connection holds, written only if the connection still holds it:
 * two calls at once (a double click) each read one credential, and the second's write would otherwise leave the
 * first's new key valid and named by nothing, never revoked by a later rotation. The call that finds it changed reads
 * it again and goes on from there (a retry finding a credential now issues none); past a few tries, 409.
 */
async function issueDashboardCredential(
  deps: DashboardRepository & { secrets: SecretBox },
  tenantId: string,
  now: Date,
  when: 'always' | 'unless one exists',
): Promise<{ existing: DashboardConnection | null; issued: boolean }> {
  for (let attempt = 0; attempt < credentialTries; attempt++) {
    const existing = await deps.getDashboardConnection(tenantId);
    if (when === 'unless one exists' && existing?.credential) return { existing, issued: false };
    const issued = issueToken('apiKey');
    const apiKeyId = randomUUID();
    const at = now.toISOString();
    const saved = await deps.saveDashboardCredential(
      {
        ...(existing ?? emptyConnection(tenantId, now)),
        status: 'Pending',
        last_error: null,
        rotated_at: at,
        credential: {
          api_key_id: apiKeyId,
          hash: issued.hash,
          sealed: await deps.secrets.seal(issued.token, dashboardCredentialContext(tenantId)),
        },
        updated_at: at,
      },
      { api_key_id: apiKeyId, hash: issued.hash, prefix: issued.displayPrefix, created_at: at },
      existing?.credential?.hash ?? null,
    );
    if (saved) return { existing, issued: true };
  }
  throw conflict('The dashboard credential kept being changed by other calls meanwhile; read it and try again');
}
