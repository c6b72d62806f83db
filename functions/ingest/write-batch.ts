/**
 * The batch writer: the ingest queue's consumer. Each batch is staged whole (one object in the
 * platform bucket, a record of each table's slice), committed at once for the tables it made due,
 * and a commit trigger sent for the others (functions/ingest/commit-tables.ts commits them when due).
 * Records that are not envelopes are reported as batch item failures, so only they come back (and
 * move to the dead-letter queue on their fifth receive).
 */
import type { SQSEvent } from 'aws-lambda';
import { recordDeliveryFailures } from '#shared/adapters/dynamo/deliveries.ts';
import { stagingObjects } from '#shared/adapters/s3/staging.ts';
import { stagingDeps } from '#shared/adapters/staged-commits.ts';
import { readEnvelope } from '#shared/domain/ingest/envelope.ts';
import { type BatchWriterDeps, SentTriggers, writeEnvelopeBatch } from '#shared/domain/ingest/write-batch.ts';
import { batchHandler } from '#shared/queue-handler.ts';

const deps: BatchWriterDeps = {
  ...stagingDeps,
  objects: stagingObjects,
  parseEnvelope: readEnvelope,
  recordFailures: recordDeliveryFailures,
  sent: new SentTriggers(),
  // Small tables' commits mostly wait on the store: more at once keep a batch's last table fresh.
  concurrency: 16,
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
