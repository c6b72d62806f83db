import type { Page, PageRequest } from '../pagination.ts';
import type { Tenant, TenantStatus } from './model.ts';
import type { StoredObjectStore } from './object-stores.ts';

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
  /** Stores it, and makes it the tenant's default when the tenant has none yet. */
  createObjectStore(store: StoredObjectStore): Promise<void>;
  /** NOT_FOUND when the store does not exist. */
  setDefaultObjectStore(tenantId: string, objectStoreId: string, now: Date): Promise<void>;
  /** NOT_FOUND when the store does not exist. */
  replaceObjectStoreOptions(
    tenantId: string,
    objectStoreId: string,
    optionKeys: string[],
    sealed: string,
    now: Date,
  ): Promise<void>;
}
