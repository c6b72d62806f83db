/**
 * Staged batches in the platform bucket (shared/domain/ingest/staging.ts):
 *   staging/<yyyy-mm-dd>/<shard>/<id>.ndjson   the queue messages of one writer batch, one contiguous
 *                                              slice per data set; 16 shards (00..15, by the id): S3's
 *                                              request rates are per prefix. One that holds a single
 *                                              table's slice is removed by the committer of that
 *                                              slice; the bucket's lifecycle rule removes the others
 *                                              once every table is long committed
 * A table's rows are read back by a ranged GET of its slice (or the whole object, when small).
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { StagedObjectGone, type StagingObjects } from '../../domain/ingest/staging.ts';
import { deleteObjects } from './delete-objects.ts';
import { objectBytes } from './object-body.ts';
import { platformBucket, platformS3 } from './platform-bucket.ts';

export const stagingObjects: StagingObjects = {
  async put(key, body) {
    await platformS3.send(
      new PutObjectCommand({
        Bucket: platformBucket(),
        Key: key,
        Body: body,
        ContentLength: body.length,
        ContentType: 'application/x-ndjson',
      }),
    );
  },

  async read(key, offset, length) {
    const object = await platformS3
      .send(
        new GetObjectCommand({ Bucket: platformBucket(), Key: key, Range: `bytes=${offset}-${offset + length - 1}` }),
      )
      .catch((error: Error) => {
        throw error.name === 'NoSuchKey' ? new StagedObjectGone(key) : error;
      });
    const bytes = await objectBytes(object);
    if (bytes.length !== length)
      throw new Error(`Staged slice ${key}@${offset} came back with ${bytes.length} of ${length} bytes`);
    return bytes;
  },

  remove: (keys) => deleteObjects(platformS3, platformBucket(), keys),
};
