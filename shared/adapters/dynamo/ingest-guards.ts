/**
 * Per-source state of the ingest guards, shared by every ingest instance.
 *   pk RATE#<source_id>#<shard>       sk BUCKET  a shard of the source's rate limit: the arrival time
 *                                                of its next token (ms; shared/domain/ingest/rate-limit.ts)
 *   pk DEDUP#<source_id>#<key hash>   sk DEDUP   the message id of the first request with that key (expires_at)
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimiter, type RateShardStore, type ShardReading } from '../../domain/ingest/rate-limit.ts';
import { conditionHeld, db, isConditionFailure, table } from './table.ts';

export const guardKeys = {
  rateShard: (sourceId: string, shard: number) => ({ pk: `RATE#${sourceId}#${shard}`, sk: 'BUCKET' }),
  dedup: (sourceId: string, key: string) => ({
    pk: `DEDUP#${sourceId}#${createHash('sha256').update(key).digest('hex')}`,
    sk: 'DEDUP',
  }),
};

/** An idle shard's item goes an hour after its last token (it reads as a full bucket when missing). */
const idleSeconds = 3600;

/**
 * One conditional update; a failed condition answers the item as it was (no read before or after).
 */
async function moveShard(
  sourceId: string,
  shard: number,
  update: { expression: string; condition: string; values: Record<string, number> },
): Promise<ShardReading> {
  try {
    const result = await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: guardKeys.rateShard(sourceId, shard),
        UpdateExpression: `${update.expression}, entity = :entity, expires_at = :expires`,
        ConditionExpression: update.condition,
        ExpressionAttributeValues: { ...update.values, ':entity': 'RateShard' },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { done: true, arrivalMs: Number(result.Attributes?.arrival_ms) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // The item comes back as DynamoDB's own attribute values: the document client does not convert errors.
    const found = error.Item?.arrival_ms?.N;
    return { done: false, arrivalMs: found === undefined ? null : Number(found) };
  }
}

export const rateShards: RateShardStore = {
  restart: (sourceId, shard, { idleBefore, to }) =>
    moveShard(sourceId, shard, {
      expression: 'SET arrival_ms = :to',
      condition: 'attribute_not_exists(arrival_ms) OR arrival_ms < :idle',
      values: { ':to': to, ':idle': idleBefore, ':expires': Math.ceil(to / 1000) + idleSeconds },
    }),
  advance: (sourceId, shard, { from, atMost, by }) =>
    moveShard(sourceId, shard, {
      expression: 'SET arrival_ms = arrival_ms + :by',
      condition: 'arrival_ms BETWEEN :from AND :most',
      values: { ':by': by, ':from': from, ':most': atMost, ':expires': Math.ceil((atMost + by) / 1000) + idleSeconds },
    }),
};

/** This instance's leases of every source's allowance. */
const limiter = new RateLimiter(rateShards);

/** Takes one request from the source's allowance (shared/domain/ingest/rate-limit.ts). */
export function takeRateToken(
  sourceId: string,
  requestsPerSecond: number,
  burst: number,
  nowMs = Date.now(),
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  return limiter.take(sourceId, requestsPerSecond, burst, nowMs);
}

/**
 * The message id for a request with this deduplication key: its own when it is the first inside
 * the window, the first request's otherwise (conditional write; expired claims are taken over).
 */
export async function claimDedupKey(
  sourceId: string,
  key: string,
  messageId: string,
  windowSeconds: number,
  nowMs = Date.now(),
): Promise<string> {
  const nowSeconds = Math.floor(nowMs / 1000);
  try {
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...guardKeys.dedup(sourceId, key),
          entity: 'DedupKey',
          message_id: messageId,
          expires_at: nowSeconds + windowSeconds,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': nowSeconds },
      }),
    );
    return messageId;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const first = await db.send(
      new GetCommand({ TableName: table(), Key: guardKeys.dedup(sourceId, key), ConsistentRead: true }),
    );
    const firstId = first.Item?.message_id;
    return typeof firstId === 'string' ? firstId : messageId;
  }
}

/** Deletes a claim that still names `messageId` (another request's claim since is left as it is). */
export async function releaseDedupKey(sourceId: string, key: string, messageId: string): Promise<void> {
  await conditionHeld(
    db.send(
      new DeleteCommand({
        TableName: table(),
        Key: guardKeys.dedup(sourceId, key),
        ConditionExpression: 'message_id = :id',
        ExpressionAttributeValues: { ':id': messageId },
      }),
    ),
  );
}
