/**
 * The ingest dead-letter queue's consumer: every envelope that exhausted its deliveries becomes a
 * failed delivery of its connection, kept whole with the writer's last error, until redriven; a
 * message that is no envelope is kept too (shared/domain/monitoring/failed-deliveries.ts,
 * recordDeadLetterMessage), so that none goes round the queue unread.
 */

import * as z from 'zod';
import { getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { lastDeliveryFailure, recordFailedDelivery } from '#shared/adapters/dynamo/deliveries.ts';
import { writtenAfterIngest } from '#shared/adapters/dynamo/delta-log.ts';
import { getSource } from '#shared/adapters/dynamo/sources.ts';
import { countOnce } from '#shared/adapters/metrics.ts';
import { claimedPayload } from '#shared/adapters/s3/claim-checks.ts';
import {
  deadLetterKey,
  putDeadLetter,
  putUnreadableDeadLetter,
  unreadableDeadLetterKey,
} from '#shared/adapters/s3/dead-letters.ts';
import { isStaged } from '#shared/adapters/staged-envelopes.ts';
import { type DeadLetterDeps, recordDeadLetterMessage } from '#shared/domain/monitoring/failed-deliveries.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordHandler } from '#shared/queue-handler.ts';

const deps: DeadLetterDeps = {
  writtenMessageIds: writtenAfterIngest,
  isStaged,
  lastDeliveryFailure,
  getSource,
  async originOfDataSet(dataSetId) {
    const dataSet = await getDataSet(dataSetId);
    return dataSet?.origin.type === 'Webhook'
      ? { connection_id: dataSet.origin.connection_id, source_id: dataSet.origin.source_id }
      : null;
  },
  resolvePayload: async (envelope) => (envelope.payload_ref ? claimedPayload(envelope.payload_ref) : null),
  async keepEnvelope(dataSetId, messageId, kept) {
    const key = deadLetterKey(dataSetId, messageId);
    await putDeadLetter(key, kept);
    return key;
  },
  async keepUnreadable(body, queueMessageId) {
    const key = unreadableDeadLetterKey(queueMessageId);
    await putUnreadableDeadLetter(key, body);
    return key;
  },
  recordFailedDelivery,
  countDeadLettered: async (sourceId, failure) =>
    void (await countOnce(`dead-lettered#${failure}`, [
      { metric: 'deadLettered', labels: { source_id: sourceId }, by: 1 },
    ])),
  countUnreadable: async (queueMessageId) =>
    void (await countOnce(`unreadable-dead-letter#${queueMessageId}`, [
      { metric: 'unreadableDeadLetters', labels: {}, by: 1 },
    ])),
};

// Any body: the recorder reads it itself, and keeps what is no envelope rather than refuse it.
export const handler = recordHandler('dead letter', z.unknown(), async (_, record) => {
  const outcome = await recordDeadLetterMessage(deps, record.body, record.messageId);
  if (outcome.kind === 'recorded')
    logger.warn('Failed delivery recorded', {
      message_id: outcome.failed.message_id,
      data_set_id: outcome.failed.data_set_id,
      error: outcome.failed.last_error,
    });
  if (outcome.kind === 'unreadable')
    logger.error('A dead letter names no envelope; kept in the platform bucket', {
      queue_message_id: record.messageId,
      key: outcome.key,
    });
});
