/**
 * Each table's staging head (shared/domain/ingest/staging.ts), beside its records (staged-slices.ts):
 *   pk STAGE#<data_set_id>  sk HEAD   through (records up to it are done), failure (attempts,
 *                                     last_error, next_attempt_at), leases (at most 4 of holder, until,
 *                                     first, last), v (changes with every write); while the table has
 *                                     staged rows: due_at, trigger_at and its entry in the index of
 *                                     pending tables:
 *     gsi1pk PENDING#<shard 00..63, by the id's hash>   gsi1sk <due_at, 13 digits>#<data_set_id>
 * A head is a few hundred bytes. The index holds only tables with staged rows, spread over 64 keys:
 * the overdue check reads the part of each that is due, and nothing while every table is on time.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { forEachAtMost } from '../../domain/at-most.ts';
import {
  emptyHead,
  recordLifetimeMs,
  type StagedRecords,
  type StagedTotals,
  type StagingHead,
  type TableFailure,
  totalsOf,
} from '../../domain/ingest/staging.ts';
import { recordsAbove, removeRecords, stagingKeys, writeRecords } from './staged-slices.ts';
import { type StoredItem, shapeReader } from './stored-items.ts';
import { batchGetAll, db, isConditionFailure, table } from './table.ts';

/** Keys of the index of pending tables: enough that no key takes more than a small share of the writes. */
export const pendingShards = 64;

const pad13 = (ms: number) => String(Math.max(0, Math.round(ms))).padStart(13, '0');

/** FNV-1a of the id: which index key lists the table. */
function shardOf(tableId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < tableId.length; i++) {
    hash ^= tableId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % pendingShards;
}

export const pendingKeys = {
  shard: (shard: number) => `PENDING#${String(shard).padStart(2, '0')}`,
  of: (tableId: string, dueAt: number) => ({
    gsi1pk: pendingKeys.shard(shardOf(tableId)),
    gsi1sk: `${pad13(dueAt)}#${tableId}`,
  }),
};

const readHead = /* @__PURE__ */ shapeReader('StagingHead', () => ({
  data_set_id: z.string(),
  v: z.number(),
  through: z.string().optional(),
  failure: z.object({ attempts: z.number(), last_error: z.string(), next_attempt_at: z.number() }).optional(),
  due_at: z.number().optional(),
  trigger_at: z.number().optional(),
  leases: z.array(z.object({ holder: z.string(), until: z.number(), first: z.string(), last: z.string() })).optional(),
  // A head written before leases held runs of records: one holder, for the whole table.
  lease_holder: z.string().optional(),
  lease_until: z.number().optional(),
}));

/** The run of records a lease of the whole table covers: every record id sorts within it. */
const everyRecord = { first: '', last: '\uffff' };

function toHead(item: StoredItem | undefined): StagingHead {
  if (!item) return emptyHead;
  return headOfItem(readHead(item));
}

function headOfItem(parsed: ReturnType<typeof readHead>): StagingHead {
  const failure: TableFailure | null = parsed.failure
    ? {
        attempts: parsed.failure.attempts,
        lastError: parsed.failure.last_error,
        nextAttemptAt: parsed.failure.next_attempt_at,
      }
    : null;
  return {
    through: parsed.through ?? null,
    failure,
    dueAt: parsed.due_at ?? null,
    triggerAt: parsed.trigger_at ?? null,
    leases: [
      ...(parsed.leases ?? []),
      ...(parsed.lease_holder && parsed.lease_until !== undefined
        ? [{ holder: parsed.lease_holder, until: parsed.lease_until, ...everyRecord }]
        : []),
    ],
    version: parsed.v,
  };
}

/** A head's item; heads expire when nothing touched them for four record lifetimes. */
function headItemOf(tableId: string, head: Omit<StagingHead, 'version'>, version: number): Record<string, unknown> {
  const now = Date.now();
  return {
    ...stagingKeys.head(tableId),
    entity: 'StagingHead',
    data_set_id: tableId,
    v: version,
    ...(head.through ? { through: head.through } : {}),
    ...(head.failure
      ? {
          failure: {
            attempts: head.failure.attempts,
            last_error: head.failure.lastError,
            next_attempt_at: head.failure.nextAttemptAt,
          },
        }
      : {}),
    ...(head.dueAt !== null && head.triggerAt !== null
      ? { due_at: head.dueAt, trigger_at: head.triggerAt, ...pendingKeys.of(tableId, head.dueAt) }
      : {}),
    ...(head.leases.length > 0
      ? {
          // At most `maxTableCommitters` (the committers see to it): a few hundred bytes.
          leases: head.leases.map(({ holder, until, first, last }) => ({ holder, until, first, last })),
        }
      : {}),
    expires_at: Math.floor((now + 4 * recordLifetimeMs) / 1000),
  };
}

export async function headOf(tableId: string, consistent: boolean): Promise<StagingHead> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: stagingKeys.head(tableId), ConsistentRead: consistent }),
  );
  return toHead(result.Item);
}

export const stagedRecords: StagedRecords = {
  write: writeRecords,

  head: (tableId) => headOf(tableId, true),

  async heads(tableIds) {
    const found = new Map<string, StagingHead>(tableIds.map((tableId) => [tableId, emptyHead]));
    for (const item of await batchGetAll(tableIds.map(stagingKeys.head), { consistent: true })) {
      const parsed = readHead(item);
      found.set(parsed.data_set_id, headOfItem(parsed));
    }
    return found;
  },

  pending: (tableId, through) => recordsAbove(tableId, through, true),

  async listPending(tableId, entry, now) {
    try {
      await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: stagingKeys.head(tableId),
          UpdateExpression:
            'SET entity = :entity, data_set_id = :id, due_at = :due, trigger_at = :at, gsi1pk = :gpk, gsi1sk = :gsk, v = if_not_exists(v, :zero) + :one, expires_at = :expires',
          ConditionExpression:
            'attribute_not_exists(due_at) OR attribute_not_exists(trigger_at) OR due_at > :due OR trigger_at <= :now',
          ExpressionAttributeValues: {
            ':entity': 'StagingHead',
            ':id': tableId,
            ':due': entry.dueAt,
            ':at': entry.triggerAt,
            ':gpk': pendingKeys.of(tableId, entry.dueAt).gsi1pk,
            ':gsk': pendingKeys.of(tableId, entry.dueAt).gsi1sk,
            ':zero': 0,
            ':one': 1,
            ':now': now,
            ':expires': Math.floor((now + 4 * recordLifetimeMs) / 1000),
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  },

  async replaceHead(tableId, expected, head) {
    try {
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: headItemOf(tableId, head, expected + 1),
          ConditionExpression: expected === 0 ? 'attribute_not_exists(pk) OR v = :v' : 'v = :v',
          ExpressionAttributeValues: { ':v': expected },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },

  remove: removeRecords,

  async listed(dueBefore) {
    const found: { tableId: string; head: StagingHead }[] = [];
    const shards = Array.from({ length: pendingShards }, (_, shard) => shard);
    await forEachAtMost(shards, 16, async (shard) => {
      let start: Record<string, unknown> | undefined;
      do {
        const result = await db.send(
          new QueryCommand({
            TableName: table(),
            IndexName: 'gsi1',
            KeyConditionExpression: dueBefore === undefined ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk < :before',
            ExpressionAttributeValues: {
              ':pk': pendingKeys.shard(shard),
              ...(dueBefore === undefined ? {} : { ':before': pad13(dueBefore) }),
            },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of result.Items ?? []) {
          const parsed = readHead(item);
          found.push({ tableId: parsed.data_set_id, head: headOfItem(parsed) });
        }
        start = result.LastEvaluatedKey;
      } while (start);
    });
    return found;
  },
};

/** What one table has staged now, and why its commits fail if they do. */
export async function stagedFor(tableId: string): Promise<StagedTotals & { failure: TableFailure | null }> {
  const head = await headOf(tableId, false);
  return { ...totalsOf(await recordsAbove(tableId, head.through, false)), failure: head.failure };
}
