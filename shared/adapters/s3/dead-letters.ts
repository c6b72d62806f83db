/** Envelopes that exhausted their deliveries, kept whole (payload inline) until redriven: dead-letters/<data_set_id>/<message_id>.json */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { deleteObjects } from './delete-objects.ts';
import { objectBytes } from './object-body.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

export const deadLetterKey = (dataSetId: string, messageId: string) => `dead-letters/${dataSetId}/${messageId}.json`;

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

export async function deleteDeadLetters(keys: string[]): Promise<void> {
  await deleteObjects(platformS3, platformBucket(), keys);
}
