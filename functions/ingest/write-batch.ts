/**
 * The batch writer: the ingest queue's consumer. Each batch is staged whole (one object in the
 * platform bucket, a record of each table's slice), committed at once for the tables it made due,
 * and a commit trigger sent for the others (functions/ingest/commit-tables.ts commits them when due).
 * Records that are not envelopes are reported as batch item failures, so only they come back (and
 * move to the dead-letter queue on their fifth receive). A batch that could not be staged (a
 * dependency slow, throttling or failing) comes back whole, each record after a wait that grows with
 * its receives (shared/domain/ingest/write-batch.ts says why the queue waits, not the invocation).
 */
import type { SQSEvent } from 'aws-lambda';
import { writeEnvelopeBatch } from '#shared/domain/ingest/write-batch.ts';
import { logger } from '#shared/observability/logger.ts';
import { batchHandler } from '#shared/queue-handler.ts';
import { batchWriterDeps, deferIngestRecords } from './wiring.ts';

export const handler = batchHandler(async (event: SQSEvent, context, lastly) => {
  const outcome = await writeEnvelopeBatch(
    batchWriterDeps,
    event.Records.map((record) => ({
      recordId: record.messageId,
      body: record.body,
      receiveCount: Number(record.attributes.ApproximateReceiveCount ?? 1),
    })),
    batchWriterDeps.now() + context.getRemainingTimeInMillis(),
  );
  if (outcome.deferred.length > 0) {
    const handles = new Map(event.Records.map((record) => [record.messageId, record.receiptHandle]));
    // After everything else the invocation does (its counts written): the last act before it answers.
    lastly(async () => {
      const refused = await deferIngestRecords(
        outcome.deferred.map(({ recordId, seconds }) => ({ receiptHandle: handles.get(recordId) ?? '', seconds })),
      ).catch((error: Error) => {
        logger.warn('Could not defer the records; they come back after the queue’s visibility timeout', { error });
        return 0;
      });
      if (refused > 0) logger.warn('SQS refused to defer some records', { refused });
    });
  }
  return { batchItemFailures: outcome.failedRecordIds.map((itemIdentifier) => ({ itemIdentifier })) };
});
