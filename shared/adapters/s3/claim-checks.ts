/**
 * Claim checks: bodies too large for a queue message wait in the platform bucket, and the envelope
 * on the queue carries a pointer to them (`payload_ref`).
 *   claims/<data_set_id>/<message_id>   the raw body, until its envelope is written (a lifecycle rule
 *                                       on the bucket is the backstop)
 * Checking a body in is a module of its own (claim-check-in.ts): the ingest function carries that
 * alone, not the reads and deletes the writer makes.
 */
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import type { ClaimCheck } from '../../domain/ingest/envelope.ts';
import { deleteObjects } from './delete-objects.ts';
import { objectBytes } from './object-body.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

export { checkIn, claimKey } from './claim-check-in.ts';

/** The body, base64 (as the envelope's payload); null when it no longer exists. */
export async function claimedPayload(ref: ClaimCheck): Promise<string | null> {
  try {
    const object = await platformS3.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
    return (await objectBytes(object)).toString('base64');
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return null;
    throw error;
  }
}

/** Whether the body is still there (a commit leaves out an envelope whose body is gone, rather than fail). */
export async function claimExists(ref: ClaimCheck): Promise<boolean> {
  try {
    await platformS3.send(new HeadObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'NotFound' || (error as Error).name === 'NoSuchKey') return false;
    throw error;
  }
}

/** Removes claim checks whose envelopes are written. */
export async function checkOut(keys: string[]): Promise<void> {
  await deleteObjects(platformS3, platformBucket(), keys);
}
