/**
 * The batch writer: the ingest queue's consumer. Each batch is staged whole (the platform bucket and
 * one ledger item), acknowledged, and committed to its tables when they are due: at once for a table
 * whose freshness target is 0, else by the table-commits schedule (functions/ingest/commit-staged.ts).
 * Records that are not envelopes are reported as batch item failures, so only they come back (and
 * move to the dead-letter queue on their fifth receive).
 */
import type { SQSEvent } from 'aws-lambda';
import { recordDeliveryFailures } from '#shared/adapters/dynamo/deliveries.ts';
import { stagingDeps } from '#shared/adapters/staged-commits.ts';
import { envelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { type BatchWriterDeps, writeEnvelopeBatch } from '#shared/domain/ingest/write-batch.ts';
import { batchHandler } from '#shared/queue-handler.ts';

const deps: BatchWriterDeps = {
  ...stagingDeps,
  parseEnvelope: (body) => envelopeMessage.parse(JSON.parse(body)),
  recordFailures: recordDeliveryFailures,
};

export const handler = batchHandler(async (event: SQSEvent, context) => {
  const outcome = await writeEnvelopeBatch(
    deps,
    event.Records.map((record) => ({
      recordId: record.messageId,
      body: record.body,
      receiveCount: Number(record.attributes.ApproximateReceiveCount ?? 1),
    })),
    deps.now() + context.getRemainingTimeInMillis(),
  );
  return { batchItemFailures: outcome.failedRecordIds.map((itemIdentifier) => ({ itemIdentifier })) };
});
