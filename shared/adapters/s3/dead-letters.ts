/**
 * Envelopes that exhausted their deliveries, kept whole (payload inline) until redriven:
 * dead-letters/<data_set_id>/<message_id>.json (a message that named its ids but was no envelope the
 * writer read: {"unreadable_body": <the message as it was>}). A message of the dead-letter queue that
 * names no envelope at all: dead-letters/unreadable/<day>/<queue message id>.txt, as it was, for an
 * operator to read (UnreadableDeadLetters counts them).
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { deleteObjects } from './delete-objects.ts';
import { objectBytes } from './object-body.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

export const deadLetterKey = (dataSetId: string, messageId: string) => `dead-letters/${dataSetId}/${messageId}.json`;

export const unreadableDeadLetterKey = (queueMessageId: string, at = new Date()) =>
  `dead-letters/unreadable/${at.toISOString().slice(0, 10)}/${encodeURIComponent(queueMessageId)}.txt`;

export async function putUnreadableDeadLetter(key: string, body: string): Promise<void> {
  const bytes = Buffer.from(body, 'utf8');
  await platformS3.send(
    new PutObjectCommand({
      Bucket: platformBucket(),
      Key: key,
      Body: bytes,
      ContentLength: bytes.length,
      ContentType: 'text/plain; charset=utf-8',
    }),
  );
}

export async function putDeadLetter(key: string, envelope: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(envelope));
  await platformS3.send(
    new PutObjectCommand({
      Bucket: platformBucket(),
      Key: key,
      Body: body,
      ContentLength: body.length,
      ContentType: 'application/json',
    }),
  );
}

export async function getDeadLetter(key: string): Promise<unknown> {
  const object = await platformS3.send(new GetObjectCommand({ Bucket: platformBucket(), Key: key }));
  return JSON.parse((await objectBytes(object)).toString('utf8'));
}

/** A kept dead letter, or null once it is gone (a redrive beside this one deleted it). */
export async function getDeadLetterIfExists(key: string): Promise<unknown> {
  try {
    return await getDeadLetter(key);
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return null;
    throw error;
  }
}

export async function deleteDeadLetters(keys: string[]): Promise<void> {
  await deleteObjects(platformS3, platformBucket(), keys);
}
