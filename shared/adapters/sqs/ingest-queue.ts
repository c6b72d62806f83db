import { config, setting } from '../../config.ts';
import { notQueuedInTime } from '../../domain/errors.ts';
import type { QueueDeadline } from '../../domain/ingest/accept.ts';
import type { ClaimCheck, EnvelopeMessage } from '../../domain/ingest/envelope.ts';
import { queues } from '../../topology.ts';
import type { CheckIn } from '../s3/claim-check-in.ts';
import { BatchingSender, NotSent } from './batching-sender.ts';
import { SqsJsonClient } from './json-client.ts';

/**
 * Envelopes up to INGEST_INLINE_MAX_BYTES (default 240 KiB, under every SQS message limit) carry
 * the payload inline. Larger bodies go by claim check: the raw bytes are written to the platform
 * bucket first, and the message carries a pointer. Either way this resolves only once SQS holds the
 * message, which is the moment the request may be answered 202. The S3 client loads with the first
 * claim check, so the ingest function's cold start does not pay for what most requests never use.
 */
const inlineMaxBytes = setting('INGEST_INLINE_MAX_BYTES');

/**
 * Queues envelopes through a sender (and checks large bodies in): the ones below in every function,
 * a test's own elsewhere. With `null` for the body, the envelope goes as it is (a claim check it
 * already carries). With a deadline (shared/domain/ingest/accept.ts), an envelope not handed to SQS
 * by `queueBy` is never queued, and the call rejects with the refusal that says so; that includes a
 * body whose claim check is not in the bucket by then (the put is given up). The sender gives up a
 * call to SQS still unanswered at `answerBy`.
 */
export function envelopeQueue(sender: BatchingSender, checkIn?: CheckIn) {
  return async function enqueueEnvelope(
    envelope: EnvelopeMessage,
    body: Buffer | null,
    deadline?: QueueDeadline,
  ): Promise<void> {
    let message: string;
    if (body === null) message = JSON.stringify(envelope);
    else {
      message = JSON.stringify({ ...envelope, payload: body.toString('base64') });
      if (Buffer.byteLength(message) > inlineMaxBytes) {
        const checkingIn = checkIn ?? (await import('../s3/claim-check-in.ts')).checkIn;
        const late = deadline ? AbortSignal.timeout(Math.max(0, deadline.queueBy - Date.now())) : undefined;
        let ref: ClaimCheck;
        try {
          ref = await checkingIn(envelope, body, late);
        } catch (error) {
          throw late?.aborted ? notQueuedInTime() : error;
        }
        message = JSON.stringify({ ...envelope, payload_ref: ref });
      }
    }
    try {
      await sender.send(message, deadline?.queueBy, deadline?.answerBy);
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
