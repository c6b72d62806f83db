/** The Iceberg catalog's records: tenants as namespaces, data sets as tables. (Their files: iceberg-tables.ts.) */
import type { CatalogRecords } from '../../domain/iceberg/catalog.ts';
import { everyDataSetOfTenant, getDataSet } from '../dynamo/data-sets.ts';
import { everyTenant, findTenantBySlug, getTenant } from '../dynamo/tenants.ts';

export const catalogRecords: CatalogRecords = {
  findTenantBySlug,
  getTenant,
  everyTenant,
  everyDataSetOfTenant,
  getDataSet,
};
