/**
 * Tenants.
 *   pk TENANT#<tenant_id>   sk TENANT          the tenant   gsi1pk TENANTS  gsi1sk <created_at>#<tenant_id>
 *   pk TENANT_SLUG#<slug>   sk TENANT_SLUG     the slug claim that makes slugs unique
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { conflict } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { type Tenant, type TenantStatus, tenantStatuses } from '../../domain/tenants/model.ts';
import { externalIdOfEarlierTenant } from '../../domain/tenants/object-stores.ts';
import { tenantCache } from './ingest-cache.ts';
import { itemReader, orNull, type StoredItem } from './stored-items.ts';
import { db, putWithUniqueClaim, queryAll, queryPage, table, writeOrRefuse } from './table.ts';

export const tenantKeys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  slugClaim: (slug: string) => ({ pk: `TENANT_SLUG#${slug}`, sk: 'TENANT_SLUG' }),
  all: 'TENANTS',
  order: (tenant: Pick<Tenant, 'created_at' | 'tenant_id'>) => `${tenant.created_at}#${tenant.tenant_id}`,
};

const readTenant = /* @__PURE__ */ itemReader<Tenant>('Tenant', () => ({
  tenant_id: z.string(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(tenantStatuses),
  sites: orNull(z.array(z.object({ name: z.string() }))),
  default_object_store_id: orNull(z.string()),
  idp_org_id: orNull(z.string()),
  aws_external_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
}));

/** A tenant item; one written before external ids were generated reads with the one derived from its id. */
export const toTenant = (item: StoredItem): Tenant =>
  readTenant(
    item.aws_external_id === undefined && typeof item.tenant_id === 'string'
      ? { ...item, aws_external_id: externalIdOfEarlierTenant(item.tenant_id) }
      : item,
  );

export function tenantItem(tenant: Tenant) {
  return {
    ...tenantKeys.tenant(tenant.tenant_id),
    entity: 'Tenant',
    gsi1pk: tenantKeys.all,
    gsi1sk: tenantKeys.order(tenant),
    ...tenant,
  };
}

/** `consistent: false` for a reader that tolerates a moment's staleness (the ingest cache) at half the price. */
export async function getTenant(tenantId: string, consistent = true): Promise<Tenant | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: tenantKeys.tenant(tenantId), ConsistentRead: consistent }),
  );
  return result.Item ? toTenant(result.Item) : null;
}

/** The tenant a slug names, through its slug claim (the Iceberg catalog names namespaces by slug). */
export async function findTenantBySlug(slug: string): Promise<Tenant | null> {
  const claim = await db.send(
    new GetCommand({ TableName: table(), Key: tenantKeys.slugClaim(slug), ConsistentRead: true }),
  );
  const tenantId = claim.Item?.tenant_id;
  return typeof tenantId === 'string' ? getTenant(tenantId) : null;
}

/** Every tenant, oldest first (the catalog lists every namespace to a PlatformAdmin). */
export async function everyTenant(): Promise<Tenant[]> {
  return queryAll({ index: 'gsi1', partition: tenantKeys.all }, toTenant);
}

export async function listTenants(page: PageRequest): Promise<Page<Tenant>> {
  return queryPage({ index: 'gsi1', partition: tenantKeys.all }, page, toTenant);
}

/** The slug claim and the tenant are written in one transaction: two creators of one slug cannot both win. */
export async function createTenant(tenant: Tenant): Promise<void> {
  const claim = { ...tenantKeys.slugClaim(tenant.slug), entity: 'TenantSlug', tenant_id: tenant.tenant_id };
  if (!(await putWithUniqueClaim(claim, tenantItem(tenant))))
    throw conflict(`A tenant with the slug "${tenant.slug}" already exists`);
}

export async function moveTenantStatus(
  tenantId: string,
  from: TenantStatus,
  to: TenantStatus,
  now: Date,
): Promise<void> {
  try {
    await writeOrRefuse(
      db.send(
        new UpdateCommand({
          TableName: table(),
          Key: tenantKeys.tenant(tenantId),
          UpdateExpression: 'SET #status = :to, updated_at = :at',
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ':from': from, ':at': now.toISOString() },
        }),
      ),
      () => conflict(`The tenant is not ${from}`),
    );
  } finally {
    tenantCache.forget(tenantId);
  }
}
