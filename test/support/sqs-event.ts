/** Envelopes as the ingest function queues them, and SQS events as the event source hands them on. */
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';

/** The envelope of one webhook request with this body, received now. */
export function envelopeFor(
  hook: { tenantId: string; sourceId: string; dataSetId: string },
  body: string,
  messageId: string = randomUUID(),
): EnvelopeMessage {
  return {
    v: 1,
    message_id: messageId,
    data_set_id: hook.dataSetId,
    dt: new Date().toISOString().slice(0, 10),
    ingested_at_us: (BigInt(Date.now()) * 1000n).toString(),
    source_id: hook.sourceId,
    tenant_id: hook.tenantId,
    content_type: 'application/json',
    payload_size: Buffer.byteLength(body),
    payload: Buffer.from(body).toString('base64'),
  };
}

/** One record per envelope. */
export function sqsEvent(envelopes: EnvelopeMessage[], receiveCount = 1): SQSEvent {
  return {
    Records: envelopes.map((envelope) => ({
      messageId: randomUUID(),
      receiptHandle: 'r',
      body: JSON.stringify(envelope),
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ingest',
      awsRegion: 'us-east-1',
    })),
  };
}
