/**
 * S3's DeleteObjects answers 200 even when some keys were not deleted: each of those comes back in
 * `Errors` with its own code. Every delete of many objects goes through here, so no caller reads a
 * partial answer as success: keys failing for a reason worth retrying (throttling, S3's own errors)
 * are retried a few times; whatever is still not deleted throws ObjectsNotDeleted, whose name is the
 * S3 error code (the store adapter maps it to a store failure like any other S3 error).
 */
import { DeleteObjectsCommand, type DeleteObjectsCommandOutput } from '@aws-sdk/client-s3';

export class ObjectsNotDeleted extends Error {
  constructor(
    readonly keys: string[],
    code: string,
  ) {
    super(`${keys.length} object(s) were not deleted (S3 error code ${code})`);
    this.name = code;
  }
}

/** What a delete needs of an S3 client (a test gives a fake). */
export interface DeleteObjectsClient {
  send(command: DeleteObjectsCommand): Promise<DeleteObjectsCommandOutput>;
}

/** Per-key codes that mean "try again": S3 throttling or failing, not a refusal. */
const retriedCodes = new Set(['SlowDown', 'InternalError', 'ServiceUnavailable', 'OperationAborted', 'RequestTimeout']);
const attempts = 4;

export async function deleteObjects(
  client: DeleteObjectsClient,
  bucket: string,
  keys: string[],
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    let pending = keys.slice(i, i + 1000);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const answer = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: pending.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = (answer.Errors ?? []).filter((error) => error.Key !== undefined);
      if (failed.length === 0) break;
      const final = failed.find((error) => !retriedCodes.has(error.Code ?? '')) ?? (attempt >= attempts && failed[0]);
      if (final)
        throw new ObjectsNotDeleted(
          failed.map((error) => error.Key as string),
          final.Code ?? 'InternalError',
        );
      pending = failed.map((error) => error.Key as string);
      await pause(100 * 2 ** attempt);
    }
  }
}
