/**
 * The ingest dead-letter queue's consumer: every envelope that exhausted its deliveries becomes a
 * failed delivery of its connection, kept whole with the writer's last error, until redriven.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSource } from '#shared/adapters/dynamo/connections.ts';
import { getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { lastDeliveryFailure, recordFailedDelivery } from '#shared/adapters/dynamo/deliveries.ts';
import { deltaLog } from '#shared/adapters/dynamo/delta-log.ts';
import { countQuietly } from '#shared/adapters/metrics.ts';
import { deadLetterKey, putDeadLetter } from '#shared/adapters/s3/dead-letters.ts';
import { objectBytes } from '#shared/adapters/s3/object-body.ts';
import { platformS3 } from '#shared/adapters/s3/platform-bucket.ts';
import { envelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { type DeadLetterDeps, recordDeadLetter } from '#shared/domain/monitoring/failed-deliveries.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordHandler } from '#shared/queue-handler.ts';

const deps: DeadLetterDeps = {
  writtenMessageIds: (dataSetId, ids, since) => deltaLog.writtenMessageIds(dataSetId, ids, since),
  lastDeliveryFailure,
  getSource,
  async connectionOfDataSet(dataSetId) {
    const dataSet = await getDataSet(dataSetId);
    return dataSet?.origin.type === 'Webhook' ? dataSet.origin.connection_id : null;
  },
  async resolvePayload(envelope) {
    if (!envelope.payload_ref) return null;
    try {
      const object = await platformS3.send(
        new GetObjectCommand({ Bucket: envelope.payload_ref.bucket, Key: envelope.payload_ref.key }),
      );
      return (await objectBytes(object)).toString('base64');
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return null;
      throw error;
    }
  },
  async keepEnvelope(dataSetId, messageId, envelope) {
    const key = deadLetterKey(dataSetId, messageId);
    await putDeadLetter(key, envelope);
    return key;
  },
  recordFailedDelivery,
  countDeadLettered: (sourceId) => countQuietly('deadLettered', { source_id: sourceId }),
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
