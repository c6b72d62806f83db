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
 *                                          Also its Iceberg metadata (iceberg): written by each sync,
 *                                          read with the version at no extra request.
 */
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  type DataSet,
  type DataSetIceberg,
  type DataSetOrigin,
  type DeltaField,
  type DeltaSchema,
  dataSetStatuses,
  envelopeSchema,
  icebergAsOf,
  icebergStatuses,
} from '../../domain/datasets/model.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { objectStoreKeys } from './object-stores.ts';
import { itemReader, objectOf, orNull, type StoredItem, shapeReader } from './stored-items.ts';
import {
  batchGetAll,
  db,
  isConditionFailure,
  queryAll,
  queryKeys,
  queryPage,
  setFieldsCommand,
  table,
  transactionRefusal,
} from './table.ts';
import { maintenanceKeys } from './table-maintenance.ts';

export const dataSetKeys = {
  dataSet: (dataSetId: string) => ({ pk: `DATA_SET#${dataSetId}`, sk: 'DATA_SET' }),
  version: (dataSetId: string) => ({ pk: `DATA_SET#${dataSetId}`, sk: 'VERSION' }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#DATA_SETS`,
  all: 'DATA_SETS',
};

const icebergShape = () =>
  objectOf<DataSetIceberg>({
    metadata_location: orNull(z.string()),
    delta_version: orNull(z.number()),
    status: z.enum(icebergStatuses),
    reason: orNull(z.string()),
    synced_at: z.string(),
  });

type WebhookOrigin = Extract<DataSetOrigin, { type: 'Webhook' }>;
type PipelineOrigin = Extract<DataSetOrigin, { type: 'Pipeline' }>;

const readDataSet = /* @__PURE__ */ itemReader<DataSet>('DataSet', () => ({
  data_set_id: z.string(),
  tenant_id: z.string(),
  tenant_slug: z.string(),
  object_store_id: orNull(z.string()),
  name: z.string(),
  data_set_type: z.literal('Delta'),
  storage_tier: z.literal('Tributary'),
  storage_location: orNull(z.string()),
  status: z.enum(dataSetStatuses),
  origin: z.union([
    objectOf<WebhookOrigin>({ type: z.literal('Webhook'), connection_id: z.string(), source_id: z.string() }),
    objectOf<PipelineOrigin>({ type: z.literal('Pipeline'), pipeline_id: z.string(), pipeline_version: z.number() }),
  ]),
  partitioning: z.object({ columns: z.array(z.string()), granularity: z.literal('day') }),
  schema_json: objectOf<DeltaSchema>({
    type: z.literal('struct'),
    fields: z.array(
      objectOf<DeltaField>({
        name: z.string(),
        type: z.enum(['string', 'long', 'double', 'boolean', 'timestamp']),
        nullable: z.boolean(),
        metadata: z.record(z.string(), z.never()),
      }),
    ),
  }),
  version: orNull(z.number()),
  // Kept on the version item; the data set item holds none.
  iceberg: orNull(icebergShape()),
  created_at: z.string(),
  updated_at: z.string(),
}));

/** The version item: written by every commit, and by a table property that sets a freshness target. */
const readVersion = /* @__PURE__ */ shapeReader('DataSetVersion', () => ({
  pk: z.string(),
  version: z.number().optional(),
  updated_at: z.string().optional(),
  freshness_ms: z.number().optional(),
  iceberg: icebergShape().optional(),
}));
type VersionItem = ReturnType<typeof readVersion>;

/** The data set as its version item says it is now: the item itself changes only at the first commit. */
function toDataSet(item: StoredItem, versionItem?: StoredItem): DataSet {
  return withVersion(readDataSet(item), versionItem ? readVersion(versionItem) : undefined);
}

function withVersion(dataSet: DataSet, version: VersionItem | undefined): DataSet {
  // A webhook table holds the envelope's columns as they are now: one made before a column was added
  // (headers) gains it with its next commit, and its stored schema says what it was made with.
  if (dataSet.origin.type === 'Webhook') dataSet.schema_json = envelopeSchema;
  if (version?.iceberg) dataSet.iceberg = version.iceberg;
  if (version?.version !== undefined && (dataSet.version === null || version.version > dataSet.version)) {
    dataSet.version = version.version;
    dataSet.status = 'Active';
    if (version.updated_at !== undefined && version.updated_at > dataSet.updated_at)
      dataSet.updated_at = version.updated_at;
  }
  dataSet.iceberg = icebergAsOf(dataSet.iceberg, dataSet.version);
  return dataSet;
}

/** The version items of these data sets, by id (one request per hundred). */
async function versionsOf(dataSetIds: string[]): Promise<Map<string, VersionItem>> {
  const found = new Map<string, VersionItem>();
  for (const item of await batchGetAll(dataSetIds.map(dataSetKeys.version))) {
    const version = readVersion(item);
    found.set(version.pk.slice('DATA_SET#'.length), version);
  }
  return found;
}

async function withVersions(dataSets: DataSet[]): Promise<DataSet[]> {
  const versions = await versionsOf(dataSets.map((dataSet) => dataSet.data_set_id));
  return dataSets.map((dataSet) => withVersion(dataSet, versions.get(dataSet.data_set_id)));
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

/** The data set item and its version item, read together in one consistent BatchGetItem. */
export async function getDataSet(dataSetId: string): Promise<DataSet | null> {
  const items = await batchGetAll([dataSetKeys.dataSet(dataSetId), dataSetKeys.version(dataSetId)], {
    consistent: true,
  });
  const item = items.find((found) => found.sk === dataSetKeys.dataSet(dataSetId).sk);
  const version = items.find((found) => found.sk === dataSetKeys.version(dataSetId).sk);
  return item ? toDataSet(item, version) : null;
}

/** The freshness targets tables set (milliseconds), by data set id; absent for the deployment's default. */
export async function freshnessTargets(dataSetIds: string[]): Promise<Map<string, number>> {
  const targets = new Map<string, number>();
  for (const [dataSetId, version] of await versionsOf(dataSetIds))
    if (version.freshness_ms !== undefined) targets.set(dataSetId, version.freshness_ms);
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
  const result = await queryPage(
    { index: 'gsi1', partition: dataSetKeys.byTenant(tenantId), filter: filterOf(filters) },
    page,
    readDataSet,
  );
  return { items: await withVersions(result.items), nextCursor: result.nextCursor };
}

/** Every data set of a tenant, with its latest version (the Iceberg catalog's tables of a namespace). */
export async function everyDataSetOfTenant(tenantId: string): Promise<DataSet[]> {
  return withVersions(await queryAll({ index: 'gsi1', partition: dataSetKeys.byTenant(tenantId) }, readDataSet));
}

/**
 * The data sets of a tenant with a committed table in this store (object_store_id, fixed at their
 * first write, and a version), at most `limit`: whether a store's place may still change
 * (updateObjectStoreOptions). One whose writes all failed has no table there yet: its store may
 * still be fixed, and its failed deliveries redriven to the new place.
 */
export async function dataSetsInStore(tenantId: string, objectStoreId: string, limit: number): Promise<string[]> {
  const found: string[] = [];
  let from: Parameters<typeof queryKeys>[2];
  do {
    const page = await queryKeys(
      {
        index: 'gsi1',
        partition: dataSetKeys.byTenant(tenantId),
        filter: {
          expression: '#store = :store',
          names: { '#store': 'object_store_id' },
          values: { ':store': objectStoreId },
        },
      },
      1000,
      from,
    );
    const inStore = await withVersions(page.items.map((item) => readDataSet(item)));
    found.push(...inStore.filter((dataSet) => dataSet.version !== null).map((dataSet) => dataSet.data_set_id));
    from = page.nextKey;
  } while (from && found.length < limit);
  return found.slice(0, limit);
}

export async function listAllDataSets(filters: DataSetFilters, page: PageRequest): Promise<Page<DataSet>> {
  const result = await queryPage(
    { index: 'gsi2', partition: dataSetKeys.all, filter: filterOf(filters) },
    page,
    readDataSet,
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
    return readDataSet(result.Attributes ?? {});
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const current = await getDataSet(dataSetId);
    if (!current) throw new Error(`Data set ${dataSetId} disappeared`);
    return current;
  }
}

/** The write of a committed version to the data set's version item: only ever forward. */
const versionWrite = (dataSetId: string, version: number, now: Date) => ({
  TableName: table(),
  Key: dataSetKeys.version(dataSetId),
  UpdateExpression: 'SET entity = :entity, version = :version, updated_at = :at',
  ConditionExpression: 'attribute_not_exists(version) OR version < :version',
  ExpressionAttributeValues: { ':entity': 'DataSetVersion', ':version': version, ':at': now.toISOString() },
});

/**
 * Records a committed version; versions only move forward, whoever records them. One write: the
 * data set reads as Active from its first recorded version on (withVersion), so its own item is
 * not written again.
 */
export async function recordDataSetVersion(dataSetId: string, version: number, now: Date): Promise<void> {
  try {
    await db.send(new UpdateCommand(versionWrite(dataSetId, version, now)));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The store moved since the commit read where to write: the commit is not recorded, and is to be made again. */
export class StorePlaceMoved extends Error {
  constructor(dataSetId: string) {
    super(
      `The object store of data set ${dataSetId} moved (endpoint, region or addressing) while its first commit was made: that commit is left unrecorded at the old place and is made again at the new one`,
    );
    this.name = 'StorePlaceMoved';
  }
}

/**
 * Records a data set's first committed version (as recordDataSetVersion), in one transaction with its
 * store's first_commits raised, and only while the store's place_version is still the one the commit
 * read (StorePlaceMoved otherwise, and nothing is recorded). A change of the store's place made at the
 * same moment is refused by first_commits having moved (replaceObjectStoreOptions); so a store never
 * moves away from a table it holds, whichever of the two lands first.
 */
export async function recordFirstDataSetVersion(
  dataSet: { data_set_id: string; tenant_id: string; object_store_id: string },
  placeVersion: number,
  version: number,
  now: Date,
): Promise<void> {
  // Every first commit in a store writes its item: those at the same moment take turns (transactionRefusal).
  const refusal = await transactionRefusal(
    new TransactWriteCommand({
      TransactItems: [
        { Update: versionWrite(dataSet.data_set_id, version, now) },
        {
          Update: {
            TableName: table(),
            Key: objectStoreKeys.store(dataSet.tenant_id, dataSet.object_store_id),
            UpdateExpression: 'ADD first_commits :one',
            ConditionExpression:
              placeVersion === 0
                ? 'attribute_exists(pk) AND (attribute_not_exists(place_version) OR place_version = :place)'
                : 'attribute_exists(pk) AND place_version = :place',
            ExpressionAttributeValues: { ':one': 1, ':place': placeVersion },
          },
        },
      ],
    }),
  );
  // Else written, or a version as late was recorded already (the store still where this commit wrote).
  if (refusal?.[1] === 'ConditionalCheckFailed') throw new StorePlaceMoved(dataSet.data_set_id);
}

/** Records how the data set's Iceberg metadata stands after a sync; a sync of an older version never wins. */
export async function recordDataSetIceberg(dataSetId: string, iceberg: DataSetIceberg): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: dataSetKeys.version(dataSetId),
        UpdateExpression: 'SET entity = :entity, iceberg = :iceberg',
        ConditionExpression:
          'attribute_not_exists(iceberg) OR attribute_type(iceberg.delta_version, :null) OR iceberg.delta_version <= :version',
        ExpressionAttributeValues: {
          ':entity': 'DataSetVersion',
          ':iceberg': iceberg,
          ':null': 'NULL',
          ':version': iceberg.delta_version ?? Number.MAX_SAFE_INTEGER,
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The data set's items, its table's maintenance item included (a table gone is never due again). */
export async function deleteDataSetItem(dataSetId: string): Promise<void> {
  await Promise.all(
    [dataSetKeys.dataSet(dataSetId), dataSetKeys.version(dataSetId), maintenanceKeys.due(dataSetId)].map((Key) =>
      db.send(new DeleteCommand({ TableName: table(), Key })),
    ),
  );
}

export async function createDataSet(dataSet: DataSet): Promise<void> {
  await db.send(
    new PutCommand({ TableName: table(), Item: dataSetItem(dataSet), ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}
