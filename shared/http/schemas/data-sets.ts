import * as z from 'zod';
import { dataSetStatuses, icebergStatuses } from '../../domain/datasets/model.ts';
import { id, nextCursor, pageQuery, timestamp } from './common.ts';

export const dataSetIdParams = z.strictObject({ data_set_id: id });

export const dataSet = z
  .object({
    data_set_id: id,
    tenant_id: id,
    tenant_slug: z.string(),
    object_store_id: id.nullable(),
    name: z.string(),
    data_set_type: z.literal('Delta'),
    storage_tier: z.literal('Tributary'),
    storage_location: z.string().nullable(),
    status: z.enum(dataSetStatuses),
    origin: z.union([
      z.object({ type: z.literal('Webhook'), connection_id: id, source_id: z.string() }),
      z.object({ type: z.literal('Pipeline'), pipeline_id: id, pipeline_version: z.number().int() }),
    ]),
    partitioning: z.object({ columns: z.array(z.string()), granularity: z.literal('day') }),
    schema_json: z.object({
      type: z.literal('struct'),
      fields: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean(), metadata: z.object({}) })),
    }),
    version: z.number().int().nullable(),
    iceberg: z
      .object({
        metadata_location: z
          .string()
          .nullable()
          .meta({ description: 'The latest Iceberg metadata file (`<storage_location>/metadata/v<N>.metadata.json`)' }),
        delta_version: z.number().int().nullable().meta({ description: 'The Delta version that metadata mirrors' }),
        status: z.enum(icebergStatuses).meta({
          description:
            'Current: mirrors delta_version, the latest; Behind: a newer Delta version is synced within minutes; Unsupported: the table has a feature Iceberg cannot express (reason); Failed: the last sync failed (reason: a stable category), the next one tries again',
        }),
        reason: z.string().nullable(),
        synced_at: timestamp,
      })
      .nullable()
      .meta({
        description:
          'The same table as Apache Iceberg v2 metadata; null before the first commit (Behind until its first sync)',
      }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'DataSet' });

export const listDataSetsQuery = z.strictObject({ tenant_id: id.optional(), pipeline_id: id.optional(), ...pageQuery });
export const listDataSetsResponse = z.object({ data_sets: z.array(dataSet), next_cursor: nextCursor });

export const dataSetFilesQuery = z.strictObject({ ...pageQuery });

export const dataSetFiles = z
  .object({
    version: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The snapshot listed: every page of one listing is of this version' }),
    files: z
      .array(
        z.object({
          path: z.string(),
          partition_values: z.record(z.string(), z.string()),
          size: z.number().int(),
          num_records: z.number().int(),
          url: z.string(),
        }),
      )
      .meta({ description: 'Newest first, at most `limit` per page' }),
    next_cursor: nextCursor,
  })
  .meta({ id: 'DataSetFiles' });

/** Nothing to choose yet: every day partition with two or more small files is compacted. */
export const optimizeBody = z.strictObject({});

export const tablePropertiesBody = z.strictObject({
  /** Property name → value; "" removes one of the properties Tributary sets (its default applies again): another writer's are theirs. */
  properties: z.record(z.string().min(1).max(128), z.string().max(64)),
});

const effectiveTableProperties = z.object({
  checkpoint_interval: z.number().int(),
  deleted_file_retention_seconds: z.number(),
  log_retention_seconds: z.number(),
  target_file_size: z.number().int(),
  optimize_min_files: z.number().int(),
  freshness_seconds: z.number(),
  data_retention_seconds: z.number().nullable().meta({
    description:
      'Day partitions whose rows are all older than this are removed by maintenance (tributary.dataRetention, else the deployment default); null: kept',
  }),
});

export const tablePropertiesResponse = z
  .object({
    version: z.number().int(),
    properties: z.record(z.string(), z.string()),
    effective: effectiveTableProperties,
  })
  .meta({ id: 'TableProperties' });

export const currentTablePropertiesResponse = z
  .object({
    version: z.number().int().nullable().meta({ description: 'null before anything is committed to the table' }),
    properties: z
      .record(z.string(), z.string())
      .meta({ description: "The table's metaData.configuration as its latest version has it" }),
    effective: effectiveTableProperties.meta({
      description: 'What applies: each property set, else its default (freshness: the deployment’s)',
    }),
  })
  .meta({ id: 'CurrentTableProperties' });
