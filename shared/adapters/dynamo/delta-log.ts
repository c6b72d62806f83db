/**
 * The Delta commit coordinator (see shared/domain/delta/commit.ts).
 *   pk DELTA#<data_set_id>  sk V#<version, 20 digits>     a claimed version (who, when, its temporary commit)
 *   pk DELTA#<data_set_id>  sk V#<version, 20 digits>#C   the same version, complete (a copy of the claim
 *                                                         with completed_at; the run history reads these)
 *   pk DELTA#<data_set_id>  sk I#<version, 20 digits>     the message ids the version holds: UUIDs packed
 *                                                         as 16 bytes each in `ids`, any other id in `other_ids`
 * Every item expires (expires_at) 30 days after its version was claimed: the run history and the
 * exactly-once check reach back that far, beyond the ingest queue's retention (4 days) and its
 * dead-letter queue's (14 days). A table idle for longer keeps its place in its own `_delta_log/`.
 *
 * The exactly-once check reads the I# items through a window of recent ids kept in memory
 * (shared/adapters/message-id-windows.ts): a warm writer reads only the versions committed since
 * its last look; an older envelope (a redrive) makes it read further back, page by page.
 */
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { LogCoordinator, LogEntry } from '../../domain/delta/commit.ts';
import type { Operation, Txn } from '../../domain/delta/log.ts';
import { mapPage, type Page, type PageRequest } from '../../domain/pagination.ts';
import { logger } from '../../observability/logger.ts';
import { type IdsPage, MessageIdWindows } from '../message-id-windows.ts';
import { conditionHeld, db, isConditionFailure, queryPage, table } from './table.ts';

/** How long a version's items are kept: the reach of the exactly-once check and of the run history. */
export const logEntryLifetimeMs = 30 * 86_400_000;

const pad = (version: number) => String(version).padStart(20, '0');

export const deltaLogKeys = {
  partition: (tableId: string) => `DELTA#${tableId}`,
  entry: (tableId: string, version: number) => ({ pk: `DELTA#${tableId}`, sk: `V#${pad(version)}` }),
  completion: (tableId: string, version: number) => ({ pk: `DELTA#${tableId}`, sk: `V#${pad(version)}#C` }),
  messageIds: (tableId: string, version: number) => ({ pk: `DELTA#${tableId}`, sk: `I#${pad(version)}` }),
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** UUIDs (every id the ingest path issues) as 16 bytes each; anything else as text. */
export function packMessageIds(ids: string[]): { packed: Uint8Array; other: string[] } {
  const uuids = ids.filter((id) => uuidPattern.test(id));
  const packed = Buffer.alloc(uuids.length * 16);
  uuids.forEach((id, i) => {
    packed.write(id.replaceAll('-', ''), i * 16, 'hex');
  });
  return { packed, other: ids.filter((id) => !uuidPattern.test(id)) };
}

export function unpackMessageIds(packed: Uint8Array | undefined, other: string[] | undefined): string[] {
  const ids: string[] = [...(other ?? [])];
  const bytes = Buffer.from(packed ?? new Uint8Array());
  for (let offset = 0; offset + 16 <= bytes.length; offset += 16) {
    const hex = bytes.toString('hex', offset, offset + 16);
    ids.push(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
  }
  return ids;
}

const expiresAt = (claimedAt: number) => Math.floor((claimedAt + logEntryLifetimeMs) / 1000);

function entryItem(tableId: string, entry: LogEntry) {
  return {
    ...deltaLogKeys.entry(tableId, entry.version),
    entity: 'DeltaLogEntry',
    version: entry.version,
    run_id: entry.runId,
    temp_key: entry.tempKey,
    complete: false,
    claimed_at: entry.claimedAt,
    operation: entry.operation,
    rows: entry.rows,
    bytes: entry.bytes,
    files: entry.files,
    removes: entry.removes,
    txn: entry.txn ?? undefined,
    started_at: entry.startedAt,
    attempt: entry.attempt,
    expires_at: expiresAt(entry.claimedAt),
  };
}

function toEntry(item: Record<string, unknown>): LogEntry {
  return {
    version: Number(item.version),
    runId: String(item.run_id),
    tempKey: String(item.temp_key),
    complete: Boolean(item.complete),
    claimedAt: Number(item.claimed_at ?? 0),
    operation: (item.operation as Operation | undefined) ?? 'WRITE',
    rows: Number(item.rows ?? 0),
    bytes: Number(item.bytes ?? 0),
    files: Number(item.files ?? 0),
    removes: Number(item.removes ?? 0),
    txn: (item.txn as Txn | undefined) ?? null,
    startedAt: String(item.started_at),
    completedAt: (item.completed_at as string | undefined) ?? null,
    attempt: Number(item.attempt ?? 1),
  };
}

/** Claims and completions of a range, one entry per version (the completion when there is one). */
function mergeVersions(items: Record<string, unknown>[]): LogEntry[] {
  const byVersion = new Map<number, LogEntry>();
  for (const item of items) {
    const entry = toEntry(item);
    const known = byVersion.get(entry.version);
    if (!known || entry.complete) byVersion.set(entry.version, entry);
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}

async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...((result.Items ?? []) as Record<string, unknown>[]));
    start = result.LastEvaluatedKey;
  } while (start);
  return items;
}

async function messageIdsPage(
  tableId: string,
  range: { above?: number; below?: number },
  newestFirst: boolean,
  start: unknown,
): Promise<IdsPage> {
  const from = `I#${range.above === undefined ? '' : pad(range.above + 1)}`;
  const to = `I#${range.below === undefined ? '~' : pad(Math.max(0, range.below - 1))}`;
  if (range.below !== undefined && range.below <= 0) return { versions: [], next: undefined };
  const result = await db.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId), ':from': from, ':to': to },
      ScanIndexForward: !newestFirst,
      ConsistentRead: true,
      Limit: 100,
      ExclusiveStartKey: start as Record<string, unknown> | undefined,
    }),
  );
  return {
    versions: ((result.Items ?? []) as Record<string, unknown>[]).map((item) => ({
      version: Number(item.version),
      claimedAt: Number(item.claimed_at ?? 0),
      ids: unpackMessageIds(item.ids as Uint8Array | undefined, item.other_ids as string[] | undefined),
    })),
    next: result.LastEvaluatedKey,
  };
}

const recent = new MessageIdWindows((tableId, range, newestFirst, start) =>
  messageIdsPage(tableId, range, newestFirst, start),
);

export const deltaLog: LogCoordinator = {
  async latestEntry(tableId) {
    const result = await db.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :v)',
        ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId), ':v': 'V#' },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = result.Items?.[0];
    return item ? toEntry(item) : null;
  },

  async entriesAfter(tableId, version) {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': deltaLogKeys.partition(tableId),
        ':from': `V#${pad(version + 1)}`,
        ':to': 'V#~',
      },
      ConsistentRead: true,
    });
    return mergeVersions(items);
  },

  async claimVersion(tableId, entry) {
    try {
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: entryItem(tableId, entry),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The version is taken. By this very claim when the SDK retried a put whose answer was lost
      // (the first attempt wrote it): that is a win, not a race lost to ourselves.
      const held = await db.send(
        new GetCommand({ TableName: table(), Key: deltaLogKeys.entry(tableId, entry.version), ConsistentRead: true }),
      );
      return held.Item?.run_id === entry.runId && held.Item?.temp_key === entry.tempKey;
    }
  },

  async recordMessageIds(tableId, entry, messageIds) {
    const { packed, other } = packMessageIds(messageIds);
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...deltaLogKeys.messageIds(tableId, entry.version),
          entity: 'DeltaMessageIds',
          version: entry.version,
          claimed_at: entry.claimedAt,
          ...(packed.length > 0 ? { ids: packed } : {}),
          ...(other.length > 0 ? { other_ids: other } : {}),
          expires_at: expiresAt(entry.claimedAt),
        },
      }),
    );
  },

  async markComplete(tableId, entry, now) {
    return conditionHeld(
      db.send(
        new PutCommand({
          TableName: table(),
          Item: {
            ...entryItem(tableId, entry),
            ...deltaLogKeys.completion(tableId, entry.version),
            entity: 'DeltaLogCompletion',
            complete: true,
            completed_at: now.toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  },

  writtenMessageIds(tableId, messageIds, since) {
    // Ids older than the items' lifetime are gone: such an envelope (a very late redrive) is not checked.
    if (since < Date.now() - logEntryLifetimeMs)
      logger.warn('Envelopes older than the exactly-once horizon: written without the check', {
        data_set_id: tableId,
        envelopes: messageIds.length,
        since: new Date(since).toISOString(),
      });
    return recent.written(tableId, messageIds, since);
  },
};

/** Removes a table's log items (claims, completions, message ids). */
export async function deleteTableLog(tableId: string): Promise<void> {
  const items = await queryAll({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId) },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
  });
  for (let i = 0; i < items.length; i += 25) {
    let pending: Record<string, unknown>[] | undefined = items
      .slice(i, i + 25)
      .map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('DynamoDB kept items unprocessed');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const result = await db.send(new BatchWriteCommand({ RequestItems: { [table()]: pending as never } }));
      pending = result.UnprocessedItems?.[table()] as Record<string, unknown>[] | undefined;
    }
  }
  recent.forget(tableId);
}

/** The completed commits of a table, newest first: its run history (as far back as items are kept). */
export async function completedEntries(tableId: string, page: PageRequest): Promise<Page<LogEntry>> {
  const result = await queryPage<Record<string, unknown>>(
    {
      partition: deltaLogKeys.partition(tableId),
      sortBeginsWith: 'V#',
      newestFirst: true,
      filter: { expression: 'complete = :true', values: { ':true': true } },
    },
    page,
  );
  return mapPage(result, toEntry);
}
