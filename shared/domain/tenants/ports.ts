import type { Page, PageRequest } from '../pagination.ts';
import type { Tenant, TenantStatus } from './model.ts';
import type { StoredObjectStore } from './object-stores.ts';
import type { StorePathClaim } from './store-claims.ts';

export interface TenantRepository {
  getTenant(tenantId: string): Promise<Tenant | null>;
  listTenants(page: PageRequest): Promise<Page<Tenant>>;
  /** Fails with CONFLICT when the slug is taken. */
  createTenant(tenant: Tenant): Promise<void>;
  /** Moves the status from `from` to `to`; CONFLICT when the tenant is not in `from`. */
  moveTenantStatus(tenantId: string, from: TenantStatus, to: TenantStatus, now: Date): Promise<void>;
}

export interface ObjectStoreRepository {
  getObjectStore(tenantId: string, objectStoreId: string): Promise<StoredObjectStore | null>;
  listObjectStores(tenantId: string, page: PageRequest): Promise<Page<StoredObjectStore>>;
  countObjectStores(tenantId: string): Promise<number>;
  /** The claims on these paths of a bucket (store-claims.ts); a path never claimed has version 0. */
  getStorePathClaims(bucket: string, paths: string[]): Promise<StorePathClaim[]>;
  /**
   * Stores it with its path claims, each written only if it is still at the version before (one
   * less than given), all or nothing: false, writing nothing, when a claim moved meanwhile. Makes it
   * the tenant's default when the tenant has none yet.
   */
  createObjectStore(store: StoredObjectStore, claims: StorePathClaim[]): Promise<boolean>;
  /** NOT_FOUND when the store does not exist. */
  setDefaultObjectStore(tenantId: string, objectStoreId: string, now: Date): Promise<void>;
  /**
   * The data sets with a committed table in this store (their object_store_id, fixed at their first
   * write, and a version), at most `limit` of them: none while the store holds no table.
   */
  dataSetsInStore(tenantId: string, objectStoreId: string, limit: number): Promise<string[]>;
  /**
   * NOT_FOUND when the store does not exist; with claims, as createObjectStore ('claimMoved' when one
   * moved). `moving`: its place changes, which raises its place_version, and only while its
   * first_commits is still the one given ('tableCommitted' when a data set's first commit was recorded
   * since, and nothing changes).
   */
  replaceObjectStoreOptions(
    tenantId: string,
    objectStoreId: string,
    optionKeys: string[],
    sealed: string,
    now: Date,
    claims: StorePathClaim[],
    moving?: { firstCommits: number },
  ): Promise<'replaced' | 'claimMoved' | 'tableCommitted'>;
}
