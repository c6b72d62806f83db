/** Envelopes that exhausted their deliveries, kept whole (payload inline) until redriven: dead-letters/<data_set_id>/<message_id>.json */
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
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
  for (let i = 0; i < keys.length; i += 1000) {
    await platformS3.send(
      new DeleteObjectsCommand({
        Bucket: platformBucket(),
        Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
  }
}
