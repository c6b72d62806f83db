import { invalid } from '../errors.ts';

export const tenantStatuses = ['Active', 'Suspended'] as const;
export type TenantStatus = (typeof tenantStatuses)[number];

export interface Tenant {
  tenant_id: string;
  name: string;
  slug: string;
  status: TenantStatus;
  sites: { name: string }[] | null;
  default_object_store_id: string | null;
  idp_org_id: string | null;
  /** The external id the platform passes on every AssumeRole into the tenant's roles; generated at creation. */
  aws_external_id: string;
  created_at: string;
  updated_at: string;
}

/** A URL- and path-safe identifier derived from the tenant's name: lowercase a-z, 0-9 and dashes. */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/g, '');
  if (!slug)
    throw invalid('The name must contain at least one letter or digit', [
      { path: 'name', message: 'No letter or digit' },
    ]);
  return slug;
}
