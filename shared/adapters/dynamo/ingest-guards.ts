/**
 * Per-source state of the ingest guards, shared by every ingest instance.
 *   pk RATE#<source_id>               sk GCRA   the rate limiter's next arrival time (ms)
 *   pk DEDUP#<source_id>#<key hash>   sk DEDUP  the message id of the first request with that key (expires_at)
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decideRate } from '../../domain/ingest/rate-limit.ts';
import { db, isConditionFailure, table } from './table.ts';

export const guardKeys = {
  rate: (sourceId: string) => ({ pk: `RATE#${sourceId}`, sk: 'GCRA' }),
  dedup: (sourceId: string, key: string) => ({
    pk: `DEDUP#${sourceId}#${createHash('sha256').update(key).digest('hex')}`,
    sk: 'DEDUP',
  }),
};

/** Takes one request from the source's allowance; a lost race re-reads and decides again. */
export async function takeRateToken(
  sourceId: string,
  requestsPerSecond: number,
  burst: number,
  nowMs = Date.now(),
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await db.send(
      new GetCommand({ TableName: table(), Key: guardKeys.rate(sourceId), ConsistentRead: true }),
    );
    const stored = current.Item?.next_arrival_ms as number | undefined;
    const decision = decideRate(nowMs, stored ?? null, requestsPerSecond, burst);
    if (!decision.allowed) return { allowed: false, retryAfterSeconds: decision.retryAfterMs / 1000 };
    try {
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: {
            ...guardKeys.rate(sourceId),
            entity: 'RateLimit',
            next_arrival_ms: decision.nextArrivalMs,
            expires_at: Math.ceil(decision.nextArrivalMs / 1000) + 3600,
          },
          ConditionExpression: stored === undefined ? 'attribute_not_exists(pk)' : 'next_arrival_ms = :stored',
          ExpressionAttributeValues: stored === undefined ? undefined : { ':stored': stored },
        }),
      );
      return { allowed: true, retryAfterSeconds: 0 };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  // Under extreme contention for one source, refusing is the safe answer.
  return { allowed: false, retryAfterSeconds: 1 };
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
    return (first.Item?.message_id as string | undefined) ?? messageId;
  }
}
