/** An SQS event as the event source hands it to the batch writer: one record per envelope. */
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';

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
