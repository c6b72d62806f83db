/**
 * The Delta commit coordinator (see shared/domain/delta/commit.ts).
 *   pk DELTA#<data_set_id>                 sk V#<version, 20 digits>   one log entry per version
 *   pk DELTA_MSG#<data_set_id>#<message_id> sk MSG                     "this message is in the table",
 *                                                                       kept 30 days (expires_at)
 * Markers outlive the ingest queue's retention (4 days) and its dead-letter queue's (14 days), so a
 * redelivered or redriven envelope always meets its marker.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { LogCoordinator, LogEntry } from '../../domain/delta/commit.ts';
import { mapPage, type Page, type PageRequest } from '../../domain/pagination.ts';
import { db, isConditionFailure, queryPage, table } from './table.ts';

const markerLifetimeSeconds = 30 * 86400;

const pad = (version: number) => String(version).padStart(20, '0');

export const deltaLogKeys = {
  partition: (tableId: string) => `DELTA#${tableId}`,
  entry: (tableId: string, version: number) => ({ pk: `DELTA#${tableId}`, sk: `V#${pad(version)}` }),
  marker: (tableId: string, messageId: string) => ({ pk: `DELTA_MSG#${tableId}#${messageId}`, sk: 'MSG' }),
};

function toEntry(item: Record<string, unknown>): LogEntry {
  return {
    version: Number(item.version),
    runId: item.run_id as string,
    tempKey: item.temp_key as string,
    complete: Boolean(item.complete),
    messageIds: (item.message_ids as string[]) ?? [],
    adds: (item.adds as LogEntry['adds']) ?? [],
    rows: Number(item.rows ?? 0),
    bytes: Number(item.bytes ?? 0),
    startedAt: item.started_at as string,
    completedAt: (item.completed_at as string | undefined) ?? null,
    attempt: Number(item.attempt ?? 1),
  };
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

async function retryUnprocessed<T>(send: (pending: T) => Promise<T | undefined>, initial: T): Promise<void> {
  let pending: T | undefined = initial;
  for (let attempt = 0; pending; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
    if (attempt > 8) throw new Error('DynamoDB kept items unprocessed');
    pending = await send(pending);
  }
}

export const deltaLog: LogCoordinator & {
  /** Every entry of a table, oldest first (the snapshot's files, the run history). */
  allEntries(tableId: string): Promise<LogEntry[]>;
} = {
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
      KeyConditionExpression: 'pk = :pk AND sk > :after',
      ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId), ':after': `V#${pad(version)}` },
      ConsistentRead: true,
    });
    return items.map(toEntry);
  },

  async allEntries(tableId) {
    return deltaLog.entriesAfter(tableId, -1);
  },

  async claimVersion(tableId, entry) {
    try {
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: {
            ...deltaLogKeys.entry(tableId, entry.version),
            entity: 'DeltaLogEntry',
            version: entry.version,
            run_id: entry.runId,
            temp_key: entry.tempKey,
            complete: false,
            message_ids: entry.messageIds,
            adds: entry.adds,
            rows: entry.rows,
            bytes: entry.bytes,
            started_at: entry.startedAt,
            attempt: entry.attempt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },

  async markComplete(tableId, version, now) {
    try {
      await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: deltaLogKeys.entry(tableId, version),
          UpdateExpression: 'SET complete = :true, completed_at = :at',
          ConditionExpression: 'complete = :false',
          ExpressionAttributeValues: { ':true': true, ':false': false, ':at': now.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },

  async writtenMessageIds(tableId, messageIds) {
    const written = new Set<string>();
    const chunks: string[][] = [];
    for (let i = 0; i < messageIds.length; i += 100) chunks.push(messageIds.slice(i, i + 100));
    await Promise.all(
      chunks.map((chunk) =>
        retryUnprocessed<Record<string, unknown>[]>(
          async (keys) => {
            const result = await db.send(
              new BatchGetCommand({
                RequestItems: { [table()]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'pk' } },
              }),
            );
            for (const item of result.Responses?.[table()] ?? []) {
              written.add((item.pk as string).slice(`DELTA_MSG#${tableId}#`.length));
            }
            return result.UnprocessedKeys?.[table()]?.Keys as Record<string, unknown>[] | undefined;
          },
          chunk.map((messageId) => deltaLogKeys.marker(tableId, messageId)),
        ),
      ),
    );
    return written;
  },

  async recordWrittenMessageIds(tableId, messageIds) {
    const expiresAt = Math.floor(Date.now() / 1000) + markerLifetimeSeconds;
    const chunks: string[][] = [];
    for (let i = 0; i < messageIds.length; i += 25) chunks.push(messageIds.slice(i, i + 25));
    await Promise.all(
      chunks.map((chunk) =>
        retryUnprocessed<{ PutRequest: { Item: Record<string, unknown> } }[]>(
          async (requests) => {
            const result = await db.send(new BatchWriteCommand({ RequestItems: { [table()]: requests } }));
            const unprocessed = result.UnprocessedItems?.[table()];
            return unprocessed && unprocessed.length > 0
              ? (unprocessed as { PutRequest: { Item: Record<string, unknown> } }[])
              : undefined;
          },
          chunk.map((messageId) => ({
            PutRequest: {
              Item: { ...deltaLogKeys.marker(tableId, messageId), entity: 'WrittenMessage', expires_at: expiresAt },
            },
          })),
        ),
      ),
    );
  },
};

/** Removes a table's log entries (its markers expire on their own). */
export async function deleteTableLog(tableId: string): Promise<void> {
  const entries = await deltaLog.allEntries(tableId);
  for (let i = 0; i < entries.length; i += 25) {
    const chunk = entries.slice(i, i + 25);
    await retryUnprocessed<{ DeleteRequest: { Key: Record<string, unknown> } }[]>(
      async (requests) => {
        const result = await db.send(new BatchWriteCommand({ RequestItems: { [table()]: requests } }));
        const unprocessed = result.UnprocessedItems?.[table()];
        return unprocessed && unprocessed.length > 0
          ? (unprocessed as { DeleteRequest: { Key: Record<string, unknown> } }[])
          : undefined;
      },
      chunk.map((entry) => ({ DeleteRequest: { Key: deltaLogKeys.entry(tableId, entry.version) } })),
    );
  }
}

/** The completed commits of a table, newest first: its run history. */
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
