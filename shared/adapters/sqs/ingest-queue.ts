import { config, intEnv } from '../../config.ts';
import type { EnvelopeMessage } from '../../domain/ingest/envelope.ts';
import { queues } from '../../topology.ts';
import { BatchingSender } from './batching-sender.ts';
import { sqs } from './client.ts';

/**
 * Envelopes up to INGEST_INLINE_MAX_BYTES (default 240 KiB, under every SQS message limit) carry
 * the payload inline. Larger bodies go by claim check: the raw bytes are written to the platform
 * bucket first, and the message carries a pointer. Either way this resolves only once SQS holds the
 * message, which is the moment the request may be answered 202. The S3 client loads with the first
 * claim check, so the ingest function's cold start does not pay for what most requests never use.
 */
const inlineMaxBytes = intEnv('INGEST_INLINE_MAX_BYTES', 240 * 1024);

const sender = new BatchingSender(sqs, () => config.queueUrl(queues.ingest.envVar));

/** Queues an envelope with its body; with `null`, the envelope goes as it is (a claim check it already carries). */
export async function enqueueEnvelope(envelope: EnvelopeMessage, body: Buffer | null): Promise<void> {
  if (body === null) {
    await sender.send(JSON.stringify(envelope));
    return;
  }
  const inline: EnvelopeMessage = { ...envelope, payload: body.toString('base64') };
  let message = JSON.stringify(inline);
  if (Buffer.byteLength(message) > inlineMaxBytes) {
    const { checkIn } = await import('../s3/claim-checks.ts');
    message = JSON.stringify({ ...envelope, payload_ref: await checkIn(envelope, body) });
  }
  await sender.send(message);
}
