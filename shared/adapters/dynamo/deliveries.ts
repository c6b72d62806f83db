/**
 * What the writer knows about deliveries that went wrong.
 *   pk DELIVERY_FAILURE#<message_id>   sk LAST          why its latest write failed (kept 15 days)
 *   pk DATA_SET#<data_set_id>#FAILED   sk <failed_at>#<message_id>   an envelope that exhausted its deliveries
 *   pk DELIVERY_FAILURE#<message_id>   sk DEAD_LETTERED the claim that records each failed delivery once,
 *                                                      failed_at: the failed delivery it holds
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { DeliveryFailure, FailedDelivery } from '../../domain/ingest/kept-records.ts';
import type { HeldFailure } from '../../domain/monitoring/failed-deliveries.ts';
import { mapPage, type Page, type PageRequest } from '../../domain/pagination.ts';
import { itemReader, orNull } from './stored-items.ts';
import { batchWriteAll, db, putWithUniqueClaim, queryAll, queryPage, table } from './table.ts';

const failureLifetimeSeconds = 15 * 86400;

export const deliveryKeys = {
  failure: (messageId: string) => ({ pk: `DELIVERY_FAILURE#${messageId}`, sk: 'LAST' }),
  failedPartition: (dataSetId: string) => `DATA_SET#${dataSetId}#FAILED`,
  failed: (dataSetId: string, failedAt: string, messageId: string) => ({
    pk: `DATA_SET#${dataSetId}#FAILED`,
    sk: `${failedAt}#${messageId}`,
  }),
  deadLettered: (messageId: string) => ({ pk: `DELIVERY_FAILURE#${messageId}`, sk: 'DEAD_LETTERED' }),
};

const toDeliveryFailure = /* @__PURE__ */ itemReader<DeliveryFailure>('DeliveryFailure', () => ({
  message_id: z.string(),
  data_set_id: z.string(),
  error: z.string(),
  store: orNull(z.string()),
  attempt: z.number(),
  at: z.string(),
}));

const toFailedDelivery = /* @__PURE__ */ itemReader<FailedDelivery>('FailedDelivery', () => ({
  message_id: z.string(),
  data_set_id: z.string(),
  connection_id: orNull(z.string()),
  source_id: z.string(),
  failed_at: z.string(),
  attempts: z.number(),
  last_error: z.string(),
  body_key: z.string(),
  dt: z.string().optional(),
}));

/** Each message's latest failure (a batch may fail one message id twice: the later one is kept). */
export async function recordDeliveryFailures(failures: DeliveryFailure[]): Promise<void> {
  const expiresAt = Math.floor(Date.now() / 1000) + failureLifetimeSeconds;
  await batchWriteAll(
    failures.map((failure) => ({
      PutRequest: {
        Item: {
          ...deliveryKeys.failure(failure.message_id),
          entity: 'DeliveryFailure',
          ...failure,
          expires_at: expiresAt,
        },
      },
    })),
  );
}

export async function lastDeliveryFailure(messageId: string): Promise<DeliveryFailure | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: deliveryKeys.failure(messageId), ConsistentRead: true }),
  );
  return result.Item ? toDeliveryFailure(result.Item) : null;
}

/**
 * Records the failed delivery unless its message is one already: the dead-letter queue delivers at
 * least once, so the same envelope can come twice. Answers the failed delivery holding the message:
 * this one, or the earlier one by the failed_at its claim keeps (a claim from before claims kept it
 * answers `earlier`, one key for that failure all the same).
 */
export async function recordFailedDelivery(failed: FailedDelivery): Promise<HeldFailure> {
  const claim = deliveryKeys.deadLettered(failed.message_id);
  const recorded = await putWithUniqueClaim(
    { ...claim, entity: 'DeadLetterClaim', data_set_id: failed.data_set_id, failed_at: failed.failed_at },
    {
      ...deliveryKeys.failed(failed.data_set_id, failed.failed_at, failed.message_id),
      entity: 'FailedDelivery',
      ...failed,
    },
  );
  if (recorded) return { now: true, failed_at: failed.failed_at };
  const held = await db.send(new GetCommand({ TableName: table(), Key: claim, ConsistentRead: true }));
  const failedAt = held.Item?.failed_at;
  return { now: false, failed_at: typeof failedAt === 'string' ? failedAt : 'earlier' };
}

export async function listFailedDeliveries(dataSetId: string, page: PageRequest): Promise<Page<FailedDelivery>> {
  const result = await queryPage(
    { partition: deliveryKeys.failedPartition(dataSetId), newestFirst: true },
    page,
    toFailedDelivery,
  );
  // The day (dt) is the data retention's, not part of the list's answer.
  return mapPage(result, ({ dt: _, ...failed }) => failed);
}

/** Every failed delivery of a data set (redrive reads them all; their number is bounded by what failed). */
export async function allFailedDeliveries(dataSetId: string): Promise<FailedDelivery[]> {
  return queryAll({ partition: deliveryKeys.failedPartition(dataSetId) }, toFailedDelivery);
}

/**
 * What forgets a failed delivery and its claim (so the envelope is recorded again should it fail
 * again), as transaction items for the write that counts it redriven: that write fails when the
 * record is gone already (another redrive forgot it and counted it).
 */
export function failedDeliveryRemoval(failed: FailedDelivery) {
  return [
    {
      Delete: {
        TableName: table(),
        Key: deliveryKeys.failed(failed.data_set_id, failed.failed_at, failed.message_id),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    { Delete: { TableName: table(), Key: deliveryKeys.deadLettered(failed.message_id) } },
  ];
}
