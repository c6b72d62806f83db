/** Checking a body in as a claim check (shared/adapters/s3/claim-checks.ts says what they are). */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { ClaimCheck, EnvelopeMessage } from '../../domain/ingest/envelope.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

export const claimKey = (envelope: Pick<EnvelopeMessage, 'data_set_id' | 'message_id'>) =>
  `claims/${envelope.data_set_id}/${envelope.message_id}`;

/** Puts the body in the bucket; answers the pointer the envelope carries instead. */
export async function checkIn(
  envelope: Pick<EnvelopeMessage, 'data_set_id' | 'message_id'>,
  body: Buffer,
): Promise<ClaimCheck> {
  const ref = { bucket: platformBucket(), key: claimKey(envelope) };
  await platformS3.send(
    new PutObjectCommand({ Bucket: ref.bucket, Key: ref.key, Body: body, ContentLength: body.length }),
  );
  return ref;
}
