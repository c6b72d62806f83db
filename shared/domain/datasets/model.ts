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
    created_at: at,
    updated_at: at,
  };
}

export function storageLocationOf(baseUrl: string, dataSetId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/datasets/${dataSetId}`;
}
