/**
 * Which tables wait for a maintenance run (compaction, vacuum, log clean-up), and since when.
 *   pk MAINTENANCE  sk DUE#<data_set_id>   due_at (ISO), tenant_id; job_id while a run is queued or running
 * Writers mark a table due when a checkpoint shows a partition with many small files; a run marks
 * it due again for when its tombstones expire. The schedule reads this one partition.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type StoredItem, shapeReader } from './stored-items.ts';
import { conditionHeld, db, isConditionFailure, queryAll, table } from './table.ts';

export const maintenanceKeys = {
  partition: 'MAINTENANCE',
  due: (dataSetId: string) => ({ pk: 'MAINTENANCE', sk: `DUE#${dataSetId}` }),
};

export interface DueMaintenance {
  dataSetId: string;
  tenantId: string;
  dueAt: string;
}

const readDue = /* @__PURE__ */ shapeReader('MaintenanceDue', () => ({
  data_set_id: z.string(),
  tenant_id: z.string(),
  due_at: z.string(),
}));
const toDue = (item: StoredItem): DueMaintenance => {
  const due = readDue(item);
  return { dataSetId: due.data_set_id, tenantId: due.tenant_id, dueAt: due.due_at };
};

/** Due at `at`, unless already due earlier. */
export async function markMaintenanceDue(dataSetId: string, tenantId: string, at: Date): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: maintenanceKeys.due(dataSetId),
        UpdateExpression: 'SET entity = :entity, data_set_id = :id, tenant_id = :tenant, due_at = :at',
        ConditionExpression: 'attribute_not_exists(due_at) OR due_at > :at',
        ExpressionAttributeValues: {
          ':entity': 'MaintenanceDue',
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

/** Tables due by `now` with no run queued for them. */
export async function dueMaintenance(now: Date): Promise<DueMaintenance[]> {
  return queryAll(
    {
      partition: maintenanceKeys.partition,
      filter: { expression: 'due_at <= :now AND attribute_not_exists(job_id)', values: { ':now': now.toISOString() } },
    },
    toDue,
  );
}

/** Takes a due table for one run; false when another schedule run took it first. */
export async function takeMaintenance(dataSetId: string, jobId: string): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: table(),
        Key: maintenanceKeys.due(dataSetId),
        UpdateExpression: 'SET job_id = :job',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(job_id)',
        ExpressionAttributeValues: { ':job': jobId },
      }),
    ),
  );
}

/**
 * After a run: due again at `next` (a tombstone expiring), or not at all. A table a writer marked
 * due while the run went on stays due (its due_at is earlier than the run's end).
 */
export async function finishMaintenance(
  dataSetId: string,
  tenantId: string,
  next: Date | null,
  startedAt: Date,
): Promise<void> {
  try {
    if (next) {
      await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: maintenanceKeys.due(dataSetId),
          UpdateExpression:
            'SET entity = :entity, data_set_id = :id, tenant_id = :tenant, due_at = :next REMOVE job_id',
          ConditionExpression: 'attribute_not_exists(pk) OR due_at <= :started',
          ExpressionAttributeValues: {
            ':entity': 'MaintenanceDue',
            ':id': dataSetId,
            ':tenant': tenantId,
            ':next': next.toISOString(),
            ':started': startedAt.toISOString(),
          },
        }),
      );
    } else {
      await db.send(
        new DeleteCommand({
          TableName: table(),
          Key: maintenanceKeys.due(dataSetId),
          ConditionExpression: 'due_at <= :started',
          ExpressionAttributeValues: { ':started': startedAt.toISOString() },
        }),
      );
    }
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Marked due again during the run: keep it due, but free it for the next schedule.
    await db
      .send(
        new UpdateCommand({
          TableName: table(),
          Key: maintenanceKeys.due(dataSetId),
          UpdateExpression: 'REMOVE job_id',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      )
      .catch((failure: Error) => {
        if (!isConditionFailure(failure)) throw failure;
      });
  }
}
