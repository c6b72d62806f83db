/** Query results, kept in the platform bucket as JSON: job-results/<job_id>.json. */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { objectBytes } from './object-body.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

const keyOf = (jobId: string) => `job-results/${jobId}.json`;

export async function putResult(jobId: string, result: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(result));
  await platformS3.send(
    new PutObjectCommand({
      Bucket: platformBucket(),
      Key: keyOf(jobId),
      Body: body,
      ContentLength: body.length,
      ContentType: 'application/json',
    }),
  );
}

export async function getResult(jobId: string): Promise<unknown | null> {
  try {
    const object = await platformS3.send(new GetObjectCommand({ Bucket: platformBucket(), Key: keyOf(jobId) }));
    return JSON.parse((await objectBytes(object)).toString('utf8'));
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return null;
    throw error;
  }
}
