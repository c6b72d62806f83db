/**
 * Which tables wait for a maintenance run (compaction, vacuum, log clean-up), and since when.
 *   pk MAINTENANCE#<data_set_id>                sk DUE             due_at (ISO), tenant_id, data_set_id; job_id
 *                                                                  while a run is queued or running
 *   pk MAINTENANCE#AT#<window, ISO>#<n>         sk <data_set_id>   due_at, tenant_id, expires_at: the table is
 *                                                                  (or was) due in that ten-minute window (n: the
 *                                                                  first four bytes of the id's sha256 modulo 4)
 *   pk MAINTENANCE#SCHEDULE                     sk READ            through (ms): the windows before it are read
 *   pk MAINTENANCE                              sk DUE#<data_set_id>   the layout before the windows: moved by
 *                                                                  the schedule, a page a run, never written
 * Writers mark a table due when a checkpoint shows a partition with many small files, or for when its
 * oldest day expires under the data retention; a run marks it due again for when its tombstones
 * expire. Every table so marked keeps its item, most of them due days ahead: the schedule reads only
 * the windows that passed since its last run (each window's entries, then those tables' items), so
 * that a run's work is what came due, never every table there is (one partition of every table's
 * item, read whole every run, grew with the tables and was one partition's writes for all of them).
 * An entry is written before its item and outlives it harmlessly: the item decides.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { shardOfId } from './sharded-lists.ts';
import { shapeReader } from './stored-items.ts';
import { batchGetAll, conditionHeld, db, isConditionFailure, queryAll, queryKeys, table } from './table.ts';
import { ttlAttribute } from './table-schema.ts';

const minuteMs = 60_000;
/** The entries' windows: a run every five minutes reads one or two (the last read again), a day's catch-up 144. */
const windowMs = 10 * minuteMs;
const windowOf = (ms: number) => Math.floor(ms / windowMs) * windowMs;
/**
 * Shards of a window: writers mark tables due at a small share of their commits, and a window's
 * writes spread over four partitions (4,000 a second) however many land in one window.
 */
const windowShards = 4;
/**
 * How long what just passed is read again: a writer marks a table due for now or later, and its
 * entry lands within its calls' time limits (seconds) of that, well inside this. Each run reads from
 * its record to the current window, and records where the next begins: the window of this long ago.
 */
const graceMs = 2 * minuteMs;
/** With no read recorded yet (the first run), the windows from this long ago are read. */
const firstLookBackMs = 60 * minuteMs;
/** A run reads at most a day of windows, so that one after a long stop catches up in a few. */
const windowsPerRunAtMost = (24 * 60 * minuteMs) / windowMs;
/**
 * Entries a run reads at most: once the windows read list more, it stops after the window where they
 * passed this (the first it reads is read whole whatever it holds), and the next run begins at that
 * window (the tables queued meanwhile hold their job).
 */
export const listedPerRunAtMost = 20_000;
/** Legacy items moved a run at most. */
const legacyPerRun = 1000;
/** An entry is kept a week past its window, long after any run has read it. */
const entryLifetimeSeconds = 7 * 86_400;

const legacyPartition = 'MAINTENANCE';
export const maintenanceKeys = {
  due: (dataSetId: string) => ({ pk: `MAINTENANCE#${dataSetId}`, sk: 'DUE' }),
  window: (window: number, shard: number) => `MAINTENANCE#AT#${new Date(window).toISOString()}#${shard}`,
  read: { pk: 'MAINTENANCE#SCHEDULE', sk: 'READ' },
  legacy: (dataSetId: string) => ({ pk: legacyPartition, sk: `DUE#${dataSetId}` }),
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
  job_id: z.string().optional(),
}));
const readEntry = /* @__PURE__ */ shapeReader('MaintenanceAt', () => ({
  sk: z.string(),
}));
const readThrough = /* @__PURE__ */ shapeReader('MaintenanceRead', () => ({ through: z.number() }));

/** The entry that lists a table in the window it is due in (or the current one, if that is later). */
async function listInWindow(dataSetId: string, tenantId: string, at: Date): Promise<void> {
  const window = windowOf(Math.max(at.getTime(), Date.now()));
  await db.send(
    new PutCommand({
      TableName: table(),
      Item: {
        pk: maintenanceKeys.window(window, shardOfId(dataSetId, windowShards)),
        sk: dataSetId,
        entity: 'MaintenanceAt',
        tenant_id: tenantId,
        due_at: at.toISOString(),
        [ttlAttribute]: Math.floor(window / 1000) + entryLifetimeSeconds,
      },
    }),
  );
}

/** Due at `at`, unless already due earlier. */
export async function markMaintenanceDue(dataSetId: string, tenantId: string, at: Date): Promise<void> {
  await listInWindow(dataSetId, tenantId, at);
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

/** What a schedule run reads: the tables due by `now` with no run queued, and where the next run begins. */
export interface DueReading {
  due: DueMaintenance[];
  /** Recorded once the run has queued them (`readMaintenanceThrough`): the next run starts there. */
  through: number;
}

/**
 * Tables due by `now` with no run queued for them, among those listed in the windows from the last
 * run's record (a day's at most, `listedAtMost` entries at most) to the current one: each window's
 * shards, then the listed tables' own items, which decide (a table in a window read twice is queued
 * once: its item holds the job). Items of the layout before the windows are moved first, a page a run.
 */
export async function dueMaintenance(now: Date, listedAtMost = listedPerRunAtMost): Promise<DueReading> {
  await moveLegacyItems();
  const stored = await db.send(new GetCommand({ TableName: table(), Key: maintenanceKeys.read, ConsistentRead: true }));
  const from = stored.Item ? readThrough(stored.Item).through : windowOf(now.getTime() - graceMs - firstLookBackMs);
  const last = Math.min(windowOf(now.getTime()), from + (windowsPerRunAtMost - 1) * windowMs);
  const listed = new Set<string>();
  let readTo = last;
  for (let window = from; window <= last; window += windowMs) {
    const shards = await Promise.all(
      Array.from({ length: windowShards }, (_, shard) =>
        queryAll({ partition: maintenanceKeys.window(window, shard), consistent: false }, (item) => readEntry(item).sk),
      ),
    );
    for (const dataSetId of shards.flat()) listed.add(dataSetId);
    if (listed.size >= listedAtMost && window > from) {
      // Enough for a run: this window is read again by the next, which begins here.
      readTo = window - windowMs;
      break;
    }
  }
  const items = await batchGetAll([...listed].map((dataSetId) => maintenanceKeys.due(dataSetId)));
  const due = items
    .map(readDue)
    .filter((item) => item.job_id === undefined && item.due_at <= now.toISOString())
    .map((item) => ({ dataSetId: item.data_set_id, tenantId: item.tenant_id, dueAt: item.due_at }));
  return { due, through: Math.max(from, Math.min(windowOf(now.getTime() - graceMs), readTo + windowMs)) };
}

/** Records that a run read the windows before `through` and queued what was due in them. */
export async function readMaintenanceThrough(through: number): Promise<void> {
  await conditionHeld(
    db.send(
      new PutCommand({
        TableName: table(),
        Item: { ...maintenanceKeys.read, entity: 'MaintenanceRead', through },
        // Never back: a slower run that read less does not undo a later one's.
        ConditionExpression: 'attribute_not_exists(through) OR through < :through',
        ExpressionAttributeValues: { ':through': through },
      }),
    ),
  );
}

/**
 * A page of the items of the layout before the windows, each made an item of its own and listed in
 * its window (or the current one, when it is due already), then removed.
 */
async function moveLegacyItems(): Promise<void> {
  const page = await queryKeys({ partition: legacyPartition, consistent: false }, legacyPerRun, undefined);
  for (const item of page.items) {
    const legacy = readDue(item);
    await listInWindow(legacy.data_set_id, legacy.tenant_id, new Date(legacy.due_at));
    await conditionHeld(
      db.send(
        new PutCommand({
          TableName: table(),
          Item: {
            ...maintenanceKeys.due(legacy.data_set_id),
            entity: 'MaintenanceDue',
            data_set_id: legacy.data_set_id,
            tenant_id: legacy.tenant_id,
            due_at: legacy.due_at,
            ...(legacy.job_id === undefined ? {} : { job_id: legacy.job_id }),
          },
          // A table marked since (in the windows' layout) keeps what it was marked.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    await db.send(new DeleteCommand({ TableName: table(), Key: maintenanceKeys.legacy(legacy.data_set_id) }));
  }
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
 * due while the run went on stays due (its due_at is earlier than the run's end), and is listed
 * again for now: the window it was listed in was read while its run held it.
 */
export async function finishMaintenance(
  dataSetId: string,
  tenantId: string,
  next: Date | null,
  startedAt: Date,
): Promise<void> {
  try {
    if (next) {
      await listInWindow(dataSetId, tenantId, next);
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
    // Marked due again during the run: keep it due, but free it for the next schedule, which finds it now.
    await listInWindow(dataSetId, tenantId, new Date());
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
