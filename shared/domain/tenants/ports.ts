import type { Page, PageRequest } from '../pagination.ts';
import type { Tenant } from './model.ts';

export interface TenantRepository {
  getTenant(tenantId: string): Promise<Tenant | null>;
  listTenants(page: PageRequest): Promise<Page<Tenant>>;
  /** Fails with CONFLICT when the slug is taken. */
  createTenant(tenant: Tenant): Promise<void>;
}
