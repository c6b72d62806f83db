/**
 * The ingest dead-letter queue's consumer: every envelope that exhausted its deliveries becomes a
 * failed delivery of its connection, kept whole with the writer's last error, until redriven.
 */

import { getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { lastDeliveryFailure, recordFailedDelivery } from '#shared/adapters/dynamo/deliveries.ts';
import { writtenAfterIngest } from '#shared/adapters/dynamo/delta-log.ts';
import { getSource } from '#shared/adapters/dynamo/sources.ts';
import { count } from '#shared/adapters/metrics.ts';
import { claimedPayload } from '#shared/adapters/s3/claim-checks.ts';
import { deadLetterKey, putDeadLetter } from '#shared/adapters/s3/dead-letters.ts';
import { isStaged } from '#shared/adapters/staged-envelopes.ts';
import { envelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { type DeadLetterDeps, recordDeadLetter } from '#shared/domain/monitoring/failed-deliveries.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordHandler } from '#shared/queue-handler.ts';

const deps: DeadLetterDeps = {
  writtenMessageIds: writtenAfterIngest,
  isStaged,
  lastDeliveryFailure,
  getSource,
  async connectionOfDataSet(dataSetId) {
    const dataSet = await getDataSet(dataSetId);
    return dataSet?.origin.type === 'Webhook' ? dataSet.origin.connection_id : null;
  },
  resolvePayload: async (envelope) => (envelope.payload_ref ? claimedPayload(envelope.payload_ref) : null),
  async keepEnvelope(dataSetId, messageId, envelope) {
    const key = deadLetterKey(dataSetId, messageId);
    await putDeadLetter(key, envelope);
    return key;
  },
  recordFailedDelivery,
  countDeadLettered: async (sourceId) => count('deadLettered', { source_id: sourceId }),
};

export const handler = recordHandler('dead letter', envelopeMessage, async (envelope) => {
  const failed = await recordDeadLetter(deps, envelope);
  if (failed)
    logger.warn('Failed delivery recorded', {
      message_id: failed.message_id,
      data_set_id: failed.data_set_id,
      error: failed.last_error,
    });
});
