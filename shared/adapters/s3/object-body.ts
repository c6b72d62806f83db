import type { GetObjectCommandOutput } from '@aws-sdk/client-s3';

/** The body of a GetObject answer, read whole. */
export async function objectBytes(object: GetObjectCommandOutput): Promise<Buffer> {
  if (!object.Body) throw new Error('The object came without a body');
  return Buffer.from(await object.Body.transformToByteArray());
}
