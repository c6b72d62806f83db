/** Checking a body in as a claim check (shared/adapters/s3/claim-checks.ts says what they are). */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ClaimCheck, EnvelopeMessage } from '../../domain/ingest/envelope.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

export const claimKey = (envelope: Pick<EnvelopeMessage, 'data_set_id' | 'message_id'>) =>
  `claims/${envelope.data_set_id}/${envelope.message_id}`;

export type CheckIn = (
  envelope: Pick<EnvelopeMessage, 'data_set_id' | 'message_id'>,
  body: Buffer,
  signal?: AbortSignal,
) => Promise<ClaimCheck>;

/**
 * Puts the body in the bucket; answers the pointer the envelope carries instead. A put still under
 * way when `signal` aborts is given up (its object, if S3 kept it, expires with the claims area).
 */
export function claimCheckIn(s3: S3Client, bucket: () => string): CheckIn {
  return async (envelope, body, signal) => {
    const ref = { bucket: bucket(), key: claimKey(envelope) };
    await s3.send(new PutObjectCommand({ Bucket: ref.bucket, Key: ref.key, Body: body, ContentLength: body.length }), {
      abortSignal: signal,
    });
    return ref;
  };
}

export const checkIn = claimCheckIn(platformS3, platformBucket);
