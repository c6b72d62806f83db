/**
 * The dead-letter recorder's dependencies (record-dead-letters.ts,
 * shared/domain/monitoring/failed-deliveries.ts), built in one place, beside the ingest family's
 * other wiring (wiring.ts, wiring-door.ts); its bundle loads only these.
 */
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
import type { DeadLetterDeps } from '#shared/domain/monitoring/failed-deliveries.ts';

/** The dead-letter recorder's: what was written or staged of an envelope, where it is kept, its counts. */
export const deadLetterDeps: DeadLetterDeps = {
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
  dataSetExists: async (dataSetId) => (await getDataSet(dataSetId)) !== null,
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
