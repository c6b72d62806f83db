/**
 * The batch writer: the ingest queue's consumer. Envelopes in, Parquet files and Delta commits out,
 * in each tenant's own store. Records whose commit did not succeed are reported as batch item
 * failures, so only they come back (and move to the dead-letter queue on their fifth receive).
 * The envelopes' receipts raise the ingest door's counts as they arrive (shared/adapters/metrics.ts).
 */
import type { SQSEvent } from 'aws-lambda';
import { tableAt } from '#shared/adapters/delta-tables.ts';
import { getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import {
  markUnwritten,
  markWritten,
  oldestUnwritten,
  recordDeliveryFailures,
} from '#shared/adapters/dynamo/deliveries.ts';
import { count, countReceipts } from '#shared/adapters/metrics.ts';
import { maxRowsPerFile, writeParquet } from '#shared/adapters/parquet/parquet-files.ts';
import { checkOut, claimedPayload } from '#shared/adapters/s3/claim-checks.ts';
import { fixStorage, recordCommit } from '#shared/adapters/table-storage.ts';
import {
  type Envelope,
  type EnvelopeMessage,
  envelopeCells,
  envelopeColumns,
  envelopeMessage,
} from '#shared/domain/ingest/envelope.ts';
import { type BatchWriterDeps, type PendingEnvelope, writeEnvelopeBatch } from '#shared/domain/ingest/write-batch.ts';
import type { DeliveryFailure } from '#shared/domain/monitoring/model.ts';
import { describeFailure, failureReason } from '#shared/domain/tenants/store-failures.ts';
import { logger } from '#shared/observability/logger.ts';
import { batchHandler } from '#shared/queue-handler.ts';

export const batchWriterDeps: BatchWriterDeps = {
  getDataSet,
  fixStorage,
  tableAt,
  async onCommitted(dataSet, entry) {
    await recordCommit(dataSet, entry.version);
    const source = dataSet.origin.type === 'Webhook' ? dataSet.origin.source_id : '';
    count('envelopesWritten', { source_id: source }, entry.rows);
    count('batchesCommitted', {}, 1);
  },
  encode: (rows: Envelope[]) => writeParquet([...envelopeColumns], envelopeCells(rows)),
  maxRowsPerFile,
};

async function resolvePayload(message: EnvelopeMessage): Promise<string> {
  if (message.payload !== undefined) return message.payload;
  if (!message.payload_ref) throw new Error('The envelope has neither a payload nor a claim check');
  const payload = await claimedPayload(message.payload_ref);
  if (payload === null) throw new Error('The claim-checked payload no longer exists');
  return payload;
}

function utcIso(micros: bigint): string {
  return new Date(Number(micros / 1000n)).toISOString();
}

export const handler = batchHandler(async (event: SQSEvent) => {
  const failed: string[] = [];
  const pending: PendingEnvelope[] = [];
  const unreadable: DeliveryFailure[] = [];
  const claims = new Map<string, string>();
  const now = new Date().toISOString();
  await Promise.all(
    event.Records.map(async (record) => {
      const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? 1);
      let message: EnvelopeMessage | undefined;
      try {
        message = envelopeMessage.parse(JSON.parse(record.body));
        countReceipts([{ ...message, ingested_at: utcIso(BigInt(message.ingested_at_us)) }]);
        const payload = await resolvePayload(message);
        if (message.payload_ref) claims.set(record.messageId, message.payload_ref.key);
        pending.push({
          recordId: record.messageId,
          receiveCount,
          envelope: { ...message, ingested_at_us: BigInt(message.ingested_at_us), payload },
        });
      } catch (error) {
        logger.error('Unreadable envelope', { message_id: record.messageId, error: (error as Error).message });
        failed.push(record.messageId);
        if (message) {
          unreadable.push({
            message_id: message.message_id,
            data_set_id: message.data_set_id,
            error: `Unreadable envelope: ${(error as Error).message}`,
            store: null,
            attempt: receiveCount,
            at: now,
          });
        }
      }
    }),
  );

  const outcome = await writeEnvelopeBatch(batchWriterDeps, pending);
  const failures: DeliveryFailure[] = [...unreadable];
  for (const failure of outcome.failures) {
    logger.error('Batch commit failed', {
      data_set_id: failure.dataSetId,
      store: failure.location,
      records: failure.envelopes.length,
      error: failure.error,
    });
    for (const item of failure.envelopes) {
      failures.push({
        message_id: item.envelope.message_id,
        data_set_id: failure.dataSetId,
        error: describeFailure(failure.error).slice(0, 1000),
        store: failure.location,
        attempt: item.receiveCount,
        at: now,
      });
    }
    let oldest = failure.envelopes[0]?.envelope.ingested_at_us ?? 0n;
    for (const item of failure.envelopes)
      if (item.envelope.ingested_at_us < oldest) oldest = item.envelope.ingested_at_us;
    count('batchFailures', { reason: failureReason(failure.error) }, failure.envelopes.length);
    await markUnwritten(failure.dataSetId, utcIso(oldest));
  }
  failed.push(...outcome.failedRecordIds);
  // Why each envelope failed is kept for the dead-letter recorder; a failure to keep it must not
  // turn the written envelopes of this batch into failures.
  await recordDeliveryFailures(failures).catch((error: Error) =>
    logger.warn('Could not record delivery failures', { error: error.message }),
  );
  // A data set whose commit once failed is marked until one succeeds; asking is a fifth of the price
  // of a delete after every batch.
  await Promise.all(
    outcome.committedDataSets.map(async (dataSetId) => {
      if (await oldestUnwritten(dataSetId)) await markWritten(dataSetId);
    }),
  );

  // Claim checks of written envelopes are no longer needed (a lifecycle rule is the backstop).
  const done = [...claims].filter(([recordId]) => !failed.includes(recordId)).map(([, key]) => key);
  if (done.length > 0) {
    await checkOut(done).catch((error: Error) => logger.warn('Claim check clean-up failed', { error: error.message }));
  }
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});
