/**
 * What each table has staged (shared/domain/ingest/staging.ts), in the table's own partition:
 *   pk STAGE#<data_set_id>  sk B#<record id>  a slice of a staged object: key, object_size, offset,
 *                                             length, rows, oldest (ms), bytes, sources (source_id →
 *                                             rows; absent on older records); expires_at. Written
 *                                             once, never changed; the id begins with when it was
 *                                             written (13-digit ms), so a table's records sort by age
 *   pk STAGE#<data_set_id>  sk HEAD           what is done and what is due (staging-heads.ts)
 * Every record is a few hundred bytes, whatever a table or a batch holds; a table's partition takes
 * a write per writer batch holding its rows.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { recordLifetimeMs, type StagedRecord } from '../../domain/ingest/staging.ts';
import { type StoredItem, shapeReader } from './stored-items.ts';
import { batchWriteAll, db, table } from './table.ts';

export const stagingKeys = {
  partition: (tableId: string) => `STAGE#${tableId}`,
  record: (tableId: string, id: string) => ({ pk: `STAGE#${tableId}`, sk: `B#${id}` }),
  head: (tableId: string) => ({ pk: `STAGE#${tableId}`, sk: 'HEAD' }),
};

const readRecord = /* @__PURE__ */ shapeReader('StagedSlice', () => ({
  sk: z.string().startsWith('B#'),
  key: z.string(),
  object_size: z.number(),
  offset: z.number(),
  length: z.number(),
  rows: z.number(),
  oldest: z.number(),
  bytes: z.number(),
  sources: z.record(z.string(), z.number()).optional(),
}));

function toRecord(item: StoredItem): StagedRecord {
  const parsed = readRecord(item);
  return {
    id: parsed.sk.slice(2),
    key: parsed.key,
    objectSize: parsed.object_size,
    offset: parsed.offset,
    length: parsed.length,
    rows: parsed.rows,
    oldest: parsed.oldest,
    bytes: parsed.bytes,
    ...(parsed.sources ? { sources: parsed.sources } : {}),
  };
}

/** A table's records above `through`, oldest first. */
export async function recordsAbove(
  tableId: string,
  through: string | null,
  consistent: boolean,
): Promise<StagedRecord[]> {
  const records: StagedRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': stagingKeys.partition(tableId),
          ':from': through ? `B#${through}~` : 'B#',
          ':to': 'B#~',
        },
        ConsistentRead: consistent,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of result.Items ?? []) records.push(toRecord(item));
    start = result.LastEvaluatedKey;
  } while (start);
  return records;
}

/**
 * Writes the records; none is sent after `writtenBy` (a record written late could fall below a
 * watermark moved meanwhile).
 */
export async function writeRecords(records: { tableId: string; record: StagedRecord }[], writtenBy: number) {
  const expiresAt = Math.floor((Date.now() + recordLifetimeMs) / 1000);
  const requests = records.map(({ tableId, record }) => ({
    PutRequest: {
      Item: {
        ...stagingKeys.record(tableId, record.id),
        entity: 'StagedSlice',
        key: record.key,
        object_size: record.objectSize,
        offset: record.offset,
        length: record.length,
        rows: record.rows,
        oldest: record.oldest,
        bytes: record.bytes,
        ...(record.sources ? { sources: record.sources } : {}),
        expires_at: expiresAt,
      },
    },
  }));
  await batchWriteAll(requests, (command) => {
    if (Date.now() > writtenBy)
      throw new Error('Staged records could not be written in time; the batch is staged again');
    return db.send(command);
  });
}

export async function removeRecords(tableId: string, ids: string[]): Promise<void> {
  await batchWriteAll(ids.map((id) => ({ DeleteRequest: { Key: stagingKeys.record(tableId, id) } })));
}

const readWatermark = /* @__PURE__ */ shapeReader('StagingHead', () => ({ through: z.string().optional() }));

/** What the table has staged and not committed, as of now (eventually consistent: for people, not decisions). */
export async function stagedRecordsOf(tableId: string): Promise<StagedRecord[]> {
  const head = await db.send(
    new GetCommand({ TableName: table(), Key: stagingKeys.head(tableId), ProjectionExpression: 'through' }),
  );
  return recordsAbove(tableId, (head.Item ? readWatermark(head.Item).through : undefined) ?? null, false);
}
