import { config, intEnv } from '../../config.ts';
import { notQueuedInTime } from '../../domain/errors.ts';
import type { EnvelopeMessage } from '../../domain/ingest/envelope.ts';
import { queues } from '../../topology.ts';
import { BatchingSender, NotSent } from './batching-sender.ts';
import { SqsJsonClient } from './json-client.ts';

/**
 * Envelopes up to INGEST_INLINE_MAX_BYTES (default 240 KiB, under every SQS message limit) carry
 * the payload inline. Larger bodies go by claim check: the raw bytes are written to the platform
 * bucket first, and the message carries a pointer. Either way this resolves only once SQS holds the
 * message, which is the moment the request may be answered 202. The S3 client loads with the first
 * claim check, so the ingest function's cold start does not pay for what most requests never use.
 */
const inlineMaxBytes = intEnv('INGEST_INLINE_MAX_BYTES', 240 * 1024);

/**
 * Queues envelopes through a sender: the one below in every function, a test's own elsewhere.
 * With `null` for the body, the envelope goes as it is (a claim check it already carries). With
 * `queueBy` (ms since the epoch), an envelope not handed to SQS by then is never queued, and the
 * call rejects with the refusal that says so.
 */
export function envelopeQueue(sender: BatchingSender) {
  return async function enqueueEnvelope(
    envelope: EnvelopeMessage,
    body: Buffer | null,
    queueBy?: number,
  ): Promise<void> {
    let message: string;
    if (body === null) message = JSON.stringify(envelope);
    else {
      message = JSON.stringify({ ...envelope, payload: body.toString('base64') });
      if (Buffer.byteLength(message) > inlineMaxBytes) {
        const { checkIn } = await import('../s3/claim-check-in.ts');
        message = JSON.stringify({ ...envelope, payload_ref: await checkIn(envelope, body) });
      }
    }
    try {
      await sender.send(message, queueBy);
    } catch (error) {
      throw error instanceof NotSent ? notQueuedInTime() : error;
    }
  };
}

const ingestSender = new BatchingSender(new SqsJsonClient(), () => config.queueUrl(queues.ingest.envVar));

export const enqueueEnvelope = envelopeQueue(ingestSender);

/** Puts a message back on the ingest queue exactly as it was (a redrive of one the writer could not read). */
export async function requeueBody(body: string): Promise<void> {
  await ingestSender.send(body);
}
