/**
 * Rejected ingest requests, per source, in a ring of REJECTIONS_PER_SOURCE slots (default 1000)
 * that also expire after 7 days: a flood of bad requests overwrites its own oldest entries and can
 * never grow the table.
 *   pk SOURCE#<source_id>#REJECTIONS  sk SEQUENCE        the next sequence number
 *   pk SOURCE#<source_id>#REJECTIONS  sk SLOT#<n, 6 digits>   one rejection (seq, expires_at)
 */
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { setting } from '../../config.ts';
import type { Rejection } from '../../domain/ingest/kept-records.ts';
import { type Page, type PageRequest, withinBytes } from '../../domain/pagination.ts';
import { openCursor, sealCursor } from './cursors.ts';
import { type AttributesOf, shapeReader } from './stored-items.ts';
import { db, table } from './table.ts';

const lifetimeSeconds = 7 * 86400;
const capacity = () => setting('REJECTIONS_PER_SOURCE');

export const rejectionKeys = {
  partition: (sourceId: string) => `SOURCE#${sourceId}#REJECTIONS`,
  sequence: (sourceId: string) => ({ pk: `SOURCE#${sourceId}#REJECTIONS`, sk: 'SEQUENCE' }),
  slot: (sourceId: string, slot: number) => ({
    pk: `SOURCE#${sourceId}#REJECTIONS`,
    sk: `SLOT#${String(slot).padStart(6, '0')}`,
  }),
};

const rejectionAttributes = () =>
  ({
    at: z.string(),
    status: z.number(),
    code: z.string(),
    content_type: z.string().nullable(),
    payload_size: z.number(),
    headers: z.record(z.string(), z.string()),
  }) satisfies AttributesOf<Rejection>;

/** A slot: the rejection it holds now, its sequence number and when it expires. */
const toSlot = /* @__PURE__ */ shapeReader('Rejection', () => ({
  ...rejectionAttributes(),
  seq: z.number(),
  expires_at: z.number(),
}));
const toSequence = /* @__PURE__ */ shapeReader('RejectionSequence', () => ({ seq: z.number() }));

export async function recordRejection(sourceId: string, rejection: Rejection): Promise<void> {
  const next = await db.send(
    new UpdateCommand({
      TableName: table(),
      Key: rejectionKeys.sequence(sourceId),
      UpdateExpression: 'ADD seq :one SET entity = :entity',
      ExpressionAttributeValues: { ':one': 1, ':entity': 'RejectionSequence' },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const { seq } = toSequence(next.Attributes ?? {});
  await db.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...rejectionKeys.slot(sourceId, seq % capacity()),
        entity: 'Rejection',
        seq,
        ...rejection,
        expires_at: Math.floor(Date.now() / 1000) + lifetimeSeconds,
      },
    }),
  );
}

/** A slot's rejection, without the ring's own fields. */
function rejectionOf(slot: ReturnType<typeof toSlot>): Rejection {
  const { seq: _seq, expires_at: _expires, ...rejection } = slot;
  return rejection;
}

/** Newest first, a page by `limit` and by bytes (withinBytes); the cursor is the sequence number to continue below. */
export async function listRejections(sourceId: string, page: PageRequest): Promise<Page<Rejection>> {
  const list = `rejections|${sourceId}`;
  const before = page.cursor ? Number(await openCursor(list, page.cursor)) : Number.POSITIVE_INFINITY;
  const items: ReturnType<typeof toSlot>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
        ExpressionAttributeValues: { ':pk': rejectionKeys.partition(sourceId), ':slot': 'SLOT#' },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    items.push(...(result.Items ?? []).map(toSlot));
    start = result.LastEvaluatedKey;
  } while (start);
  const now = Math.floor(Date.now() / 1000);
  const live = items.filter((item) => item.expires_at > now && item.seq < before).sort((a, b) => b.seq - a.seq);
  // A thousand rejections of 50 long headers each would pass Lambda's 6 MB answer: a page is cut by bytes too.
  const visible = withinBytes(live.map(rejectionOf), page.limit);
  const last = live[visible.length - 1];
  return {
    items: visible,
    nextCursor: live.length > visible.length && last ? await sealCursor(list, last.seq) : null,
  };
}
