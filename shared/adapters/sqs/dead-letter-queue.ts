import { config } from '../../config.ts';
import type { EnvelopeMessage } from '../../domain/ingest/envelope.ts';
import { queues } from '../../topology.ts';
import { BatchingSender } from './batching-sender.ts';
import { SqsJsonClient } from './json-client.ts';

const sender = new BatchingSender(new SqsJsonClient(), () => config.queueUrl(queues.ingestDeadLetter.envVar));

/**
 * Moves staged envelopes whose commits kept failing to the ingest dead-letter queue, as they were
 * queued (a claim check stays a claim check): its recorder makes each a failed delivery, as it does
 * for envelopes that exhausted their receives. Resolves once SQS holds every one.
 */
export async function sendToDeadLetterQueue(envelopes: EnvelopeMessage[]): Promise<void> {
  await Promise.all(envelopes.map((envelope) => sender.send(JSON.stringify(envelope))));
}
