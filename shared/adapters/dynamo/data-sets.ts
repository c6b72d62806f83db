/**
 * Data sets.
 *   pk DATA_SET#<data_set_id>  sk DATA_SET
 *     gsi1pk TENANT#<tenant_id>#DATA_SETS  gsi1sk <created_at>#<data_set_id>
 *     gsi2pk DATA_SETS                     gsi2sk <created_at>#<data_set_id>
 *   pk DATA_SET#<data_set_id>  sk VERSION   the table's latest version and when it was committed,
 *                                          and its freshness target (freshness_ms) when a table
 *                                          property sets one. Kept apart from the data set item:
 *                                          every commit writes it, and an item without index keys
 *                                          is one small write instead of three of the whole data set.
 */
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DataSet } from '../../domain/datasets/model.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { db, isConditionFailure, queryPage, setFieldsCommand, table } from './table.ts';

export const dataSetKeys = {
  dataSet: (dataSetId: string) => ({ pk: `DATA_SET#${dataSetId}`, sk: 'DATA_SET' }),
  version: (dataSetId: string) => ({ pk: `DATA_SET#${dataSetId}`, sk: 'VERSION' }),
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

export function toDataSet(item: Record<string, unknown>, version?: Record<string, unknown>): DataSet {
  const dataSet = Object.fromEntries(fields.map((field) => [field, item[field] ?? null])) as unknown as DataSet;
  if (version?.version !== undefined && (dataSet.version === null || Number(version.version) > dataSet.version)) {
    dataSet.version = Number(version.version);
    dataSet.status = 'Active';
    if (typeof version.updated_at === 'string' && version.updated_at > dataSet.updated_at)
      dataSet.updated_at = version.updated_at;
  }
  return dataSet;
}

/** The version items of these data sets, by id (one request per hundred). */
async function versionsOf(dataSetIds: string[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < dataSetIds.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = dataSetIds.slice(i, i + 100).map(dataSetKeys.version);
    for (let attempt = 0; keys && keys.length > 0; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB kept keys unprocessed');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const result = await db.send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: keys } } }));
      for (const item of result.Responses?.[table()] ?? [])
        found.set(String(item.pk).slice('DATA_SET#'.length), item as Record<string, unknown>);
      keys = result.UnprocessedKeys?.[table()]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
}

async function withVersions(items: Record<string, unknown>[]): Promise<DataSet[]> {
  const versions = await versionsOf(items.map((item) => String(item.data_set_id)));
  return items.map((item) => toDataSet(item, versions.get(String(item.data_set_id))));
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
  const [item, version] = await Promise.all(
    [dataSetKeys.dataSet(dataSetId), dataSetKeys.version(dataSetId)].map((Key) =>
      db.send(new GetCommand({ TableName: table(), Key, ConsistentRead: true })),
    ),
  );
  return item?.Item ? toDataSet(item.Item, version?.Item) : null;
}

/** The freshness targets tables set (milliseconds), by data set id; absent for the deployment's default. */
export async function freshnessTargets(dataSetIds: string[]): Promise<Map<string, number>> {
  const targets = new Map<string, number>();
  for (const [dataSetId, item] of await versionsOf(dataSetIds))
    if (typeof item.freshness_ms === 'number') targets.set(dataSetId, item.freshness_ms);
  return targets;
}

/** Records the table's own freshness target (null: the deployment's default). */
export async function recordFreshnessTarget(dataSetId: string, freshnessMs: number | null): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: table(),
      Key: dataSetKeys.version(dataSetId),
      UpdateExpression: freshnessMs === null ? 'REMOVE freshness_ms' : 'SET freshness_ms = :ms',
      ...(freshnessMs === null ? {} : { ExpressionAttributeValues: { ':ms': freshnessMs } }),
    }),
  );
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
  return { items: await withVersions(result.items), nextCursor: result.nextCursor };
}

export async function listAllDataSets(filters: DataSetFilters, page: PageRequest): Promise<Page<DataSet>> {
  const result = await queryPage<Record<string, unknown>>(
    { index: 'gsi2', partition: dataSetKeys.all, filter: filterOf(filters) },
    page,
  );
  return { items: await withVersions(result.items), nextCursor: result.nextCursor };
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

/**
 * Records a committed version; versions only move forward, whoever records them. The data set item
 * itself changes once, at the first commit (Pending → Active).
 */
export async function recordDataSetVersion(dataSetId: string, version: number, now: Date): Promise<void> {
  let first = false;
  try {
    const result = await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: dataSetKeys.version(dataSetId),
        UpdateExpression: 'SET entity = :entity, version = :version, updated_at = :at',
        ConditionExpression: 'attribute_not_exists(version) OR version < :version',
        ExpressionAttributeValues: { ':entity': 'DataSetVersion', ':version': version, ':at': now.toISOString() },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    first = result.Attributes?.version === undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  if (!first) return;
  try {
    await db.send(
      new UpdateCommand(
        setFieldsCommand(
          dataSetKeys.dataSet(dataSetId),
          { status: 'Active', updated_at: now.toISOString() },
          {
            expression: 'attribute_exists(pk) AND #status = :pending',
            names: { '#status': 'status' },
            values: { ':pending': 'Pending' },
          },
        ),
      ),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function deleteDataSetItem(dataSetId: string): Promise<void> {
  await Promise.all(
    [dataSetKeys.dataSet(dataSetId), dataSetKeys.version(dataSetId)].map((Key) =>
      db.send(new DeleteCommand({ TableName: table(), Key })),
    ),
  );
}

export async function createDataSet(dataSet: DataSet): Promise<void> {
  await db.send(
    new PutCommand({ TableName: table(), Item: dataSetItem(dataSet), ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}
