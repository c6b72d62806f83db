/**
 * Data sets.
 *   pk DATA_SET#<data_set_id>  sk DATA_SET
 *     gsi1pk TENANT#<tenant_id>#DATA_SETS  gsi1sk <created_at>#<data_set_id>
 *     gsi2pk DATA_SETS                     gsi2sk <created_at>#<data_set_id>
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DataSet } from '../../domain/datasets/model.ts';
import { mapPage, type Page, type PageRequest } from '../../domain/pagination.ts';
import { db, isConditionFailure, queryPage, setFieldsCommand, table } from './table.ts';

export const dataSetKeys = {
  dataSet: (dataSetId: string) => ({ pk: `DATA_SET#${dataSetId}`, sk: 'DATA_SET' }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#DATA_SETS`,
  all: 'DATA_SETS',
};

const fields = [
  'data_set_id',
  'tenant_id',
  'tenant_slug',
  'object_store_id',
  'name',
  'data_set_type',
  'storage_tier',
  'storage_location',
  'status',
  'origin',
  'partitioning',
  'schema_json',
  'version',
  'created_at',
  'updated_at',
] as const;

export function toDataSet(item: Record<string, unknown>): DataSet {
  return Object.fromEntries(fields.map((field) => [field, item[field] ?? null])) as unknown as DataSet;
}

export function dataSetItem(dataSet: DataSet) {
  const order = `${dataSet.created_at}#${dataSet.data_set_id}`;
  return {
    ...dataSetKeys.dataSet(dataSet.data_set_id),
    entity: 'DataSet',
    gsi1pk: dataSetKeys.byTenant(dataSet.tenant_id),
    gsi1sk: order,
    gsi2pk: dataSetKeys.all,
    gsi2sk: order,
    ...dataSet,
  };
}

export async function getDataSet(dataSetId: string): Promise<DataSet | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: dataSetKeys.dataSet(dataSetId), ConsistentRead: true }),
  );
  return result.Item ? toDataSet(result.Item) : null;
}

export interface DataSetFilters {
  pipelineId?: string | undefined;
}

function filterOf(filters: DataSetFilters) {
  if (!filters.pipelineId) return undefined;
  return {
    expression: '#origin.#pipeline = :pipeline',
    names: { '#origin': 'origin', '#pipeline': 'pipeline_id' },
    values: { ':pipeline': filters.pipelineId },
  };
}

export async function listDataSetsByTenant(
  tenantId: string,
  filters: DataSetFilters,
  page: PageRequest,
): Promise<Page<DataSet>> {
  const result = await queryPage<Record<string, unknown>>(
    { index: 'gsi1', partition: dataSetKeys.byTenant(tenantId), filter: filterOf(filters) },
    page,
  );
  return mapPage(result, toDataSet);
}

export async function listAllDataSets(filters: DataSetFilters, page: PageRequest): Promise<Page<DataSet>> {
  const result = await queryPage<Record<string, unknown>>(
    { index: 'gsi2', partition: dataSetKeys.all, filter: filterOf(filters) },
    page,
  );
  return mapPage(result, toDataSet);
}

/**
 * Fixes the store and location at the first write. Of two writers racing, the first wins and the
 * second reads back what was fixed, so every file of a table lands in one place.
 */
export async function fixDataSetStorage(
  dataSetId: string,
  objectStoreId: string,
  location: string,
  now: Date,
): Promise<DataSet> {
  try {
    const result = await db.send(
      new UpdateCommand({
        ...setFieldsCommand(
          dataSetKeys.dataSet(dataSetId),
          { object_store_id: objectStoreId, storage_location: location, updated_at: now.toISOString() },
          {
            expression:
              'attribute_exists(pk) AND (attribute_not_exists(object_store_id) OR attribute_type(object_store_id, :null))',
            values: { ':null': 'NULL' },
          },
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toDataSet(result.Attributes as Record<string, unknown>);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const current = await getDataSet(dataSetId);
    if (!current) throw new Error(`Data set ${dataSetId} disappeared`);
    return current;
  }
}

/** Records a committed version; versions only move forward, whoever records them. */
export async function recordDataSetVersion(dataSetId: string, version: number, now: Date): Promise<void> {
  try {
    await db.send(
      new UpdateCommand(
        setFieldsCommand(
          dataSetKeys.dataSet(dataSetId),
          { version, status: 'Active', updated_at: now.toISOString() },
          {
            expression: 'attribute_exists(pk) AND (attribute_type(#version, :null) OR #version < :version)',
            names: { '#version': 'version' },
            values: { ':null': 'NULL', ':version': version },
          },
        ),
      ),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function deleteDataSetItem(dataSetId: string): Promise<void> {
  await db.send(new DeleteCommand({ TableName: table(), Key: dataSetKeys.dataSet(dataSetId) }));
}

export async function createDataSet(dataSet: DataSet): Promise<void> {
  await db.send(
    new PutCommand({ TableName: table(), Item: dataSetItem(dataSet), ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}
