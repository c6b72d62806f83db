/**
 * Which tables' Iceberg metadata trails their Delta version, and from when a sync is due.
 *   pk ICEBERG  sk DUE#<data_set_id>   due_at (ISO), tenant_id
 * A commit that finds the last sync recent marks its table due for when the sync interval ends; the
 * table-commits schedule reads this one partition each minute and syncs what is due.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type StoredItem, shapeReader } from './stored-items.ts';
import { db, isConditionFailure, queryAll, table } from './table.ts';

export const icebergSyncKeys = {
  partition: 'ICEBERG',
  due: (dataSetId: string) => ({ pk: 'ICEBERG', sk: `DUE#${dataSetId}` }),
};

export interface DueIcebergSync {
  dataSetId: string;
  dueAt: string;
}

const readDue = /* @__PURE__ */ shapeReader('IcebergSyncDue', () => ({
  data_set_id: z.string(),
  due_at: z.string(),
}));
const toDue = (item: StoredItem): DueIcebergSync => {
  const due = readDue(item);
  return { dataSetId: due.data_set_id, dueAt: due.due_at };
};

/** Due at `at`, unless already due earlier. */
export async function markIcebergSyncDue(dataSetId: string, tenantId: string, at: Date): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: icebergSyncKeys.due(dataSetId),
        UpdateExpression: 'SET entity = :entity, data_set_id = :id, tenant_id = :tenant, due_at = :at',
        ConditionExpression: 'attribute_not_exists(due_at) OR due_at > :at',
        ExpressionAttributeValues: {
          ':entity': 'IcebergSyncDue',
          ':id': dataSetId,
          ':tenant': tenantId,
          ':at': at.toISOString(),
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Tables whose sync is due by `now`. */
export function dueIcebergSyncs(now: Date): Promise<DueIcebergSync[]> {
  return queryAll(
    {
      partition: icebergSyncKeys.partition,
      filter: { expression: 'due_at <= :now', values: { ':now': now.toISOString() } },
    },
    toDue,
  );
}

/** Done with a due table: a commit that marked it again after `dueAt` keeps its mark. */
export async function clearIcebergSyncDue(dataSetId: string, dueAt: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: table(),
        Key: icebergSyncKeys.due(dataSetId),
        ConditionExpression: 'due_at = :at',
        ExpressionAttributeValues: { ':at': dueAt },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
