/**
 * Data sets: Delta Lake tables in a tenant's object store. A webhook connection's data set holds the
 * fixed envelope schema; a pipeline's holds the columns its definition declares.
 */
export const dataSetStatuses = ['Pending', 'Active'] as const;
export type DataSetStatus = (typeof dataSetStatuses)[number];

export type DataSetOrigin =
  | { type: 'Webhook'; connection_id: string; source_id: string }
  | { type: 'Pipeline'; pipeline_id: string; pipeline_version: number };

export interface DeltaField {
  name: string;
  type: 'string' | 'long' | 'double' | 'boolean' | 'timestamp';
  nullable: boolean;
  metadata: Record<string, never>;
}

export interface DeltaSchema {
  type: 'struct';
  fields: DeltaField[];
}

/**
 * How a data set's Iceberg metadata stands (shared/domain/datasets/iceberg.ts):
 *   Current      it mirrors `delta_version`, the table's latest version when last synced
 *   Behind       the table has a newer version; a sync is due within minutes
 *   Unsupported  the table has a feature Iceberg cannot express (`reason`); it keeps working as Delta
 *   Failed       the last sync failed (`reason`: a stable category); the next one tries again
 */
export const icebergStatuses = ['Current', 'Behind', 'Unsupported', 'Failed'] as const;
export type IcebergStatus = (typeof icebergStatuses)[number];

export interface DataSetIceberg {
  /** The latest `v<N>.metadata.json`, absolute; null until a sync wrote one. */
  metadata_location: string | null;
  /** The Delta version the metadata mirrors; null until a sync wrote one. */
  delta_version: number | null;
  status: IcebergStatus;
  reason: string | null;
  /** When the last sync ran. */
  synced_at: string;
}

/** The Iceberg state as of the table's `version`: Current only while it mirrors that version. */
export function icebergAsOf(iceberg: DataSetIceberg | null, version: number | null): DataSetIceberg | null {
  if (iceberg?.status !== 'Current' || version === null || (iceberg.delta_version ?? -1) >= version) return iceberg;
  return { ...iceberg, status: 'Behind' };
}

/**
 * A data set as callers read it (CONTRACT §5a: `iceberg` is null only before the first commit): a
 * committed table whose first sync has not run, or did not finish, is Behind, due within minutes.
 */
export function shownDataSet(dataSet: DataSet): DataSet {
  if (dataSet.iceberg !== null || dataSet.version === null) return dataSet;
  return {
    ...dataSet,
    iceberg: {
      metadata_location: null,
      delta_version: null,
      status: 'Behind',
      reason: null,
      synced_at: dataSet.updated_at,
    },
  };
}

export interface DataSet {
  data_set_id: string;
  tenant_id: string;
  tenant_slug: string;
  /** Fixed at the first write: the tenant's default store at that moment. */
  object_store_id: string | null;
  name: string;
  data_set_type: 'Delta';
  storage_tier: 'Tributary';
  /** <store base_url>/datasets/<data_set_id>, fixed with the store at the first write. */
  storage_location: string | null;
  /** Pending until the first commit, then Active. */
  status: DataSetStatus;
  origin: DataSetOrigin;
  partitioning: { columns: string[]; granularity: 'day' };
  schema_json: DeltaSchema;
  /** The table's latest Delta version; null before the first commit. */
  version: number | null;
  /** Its Iceberg metadata; null before the first sync. */
  iceberg: DataSetIceberg | null;
  created_at: string;
  updated_at: string;
}

const field = (name: string, type: DeltaField['type'], nullable = false): DeltaField => ({
  name,
  type,
  nullable,
  metadata: {},
});

/** The webhook envelope (specification, "Webhook envelope row"); dt is the partition column. */
export const envelopeSchema: DeltaSchema = {
  type: 'struct',
  fields: [
    field('dt', 'string'),
    field('message_id', 'string'),
    field('ingested_at', 'timestamp'),
    field('source_id', 'string'),
    field('tenant_id', 'string'),
    field('content_type', 'string', true),
    field('payload_size', 'long'),
    field('payload', 'string'),
    // Added later: a table made before gains it with its first commit since (a Delta schema change).
    field('headers', 'string', true),
  ],
};

export const dailyPartitioning = { columns: ['dt'], granularity: 'day' as const };

/**
 * A new data set: a Delta table in the Tributary tier, partitioned by day, Pending with no store or
 * location until its first write fixes them.
 */
export function newDataSet(
  input: Pick<DataSet, 'data_set_id' | 'tenant_id' | 'tenant_slug' | 'name' | 'origin' | 'schema_json'>,
  at: string,
): DataSet {
  return {
    ...input,
    object_store_id: null,
    data_set_type: 'Delta',
    storage_tier: 'Tributary',
    storage_location: null,
    status: 'Pending',
    partitioning: dailyPartitioning,
    version: null,
    iceberg: null,
    created_at: at,
    updated_at: at,
  };
}

export function storageLocationOf(baseUrl: string, dataSetId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/datasets/${dataSetId}`;
}
