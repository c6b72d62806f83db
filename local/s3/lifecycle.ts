/**
 * The platform bucket's lifecycle rules, locally: s3rver runs none, so local mode removes what a
 * rule expires itself, at each start and every hour while it runs. The rules are the synthesised
 * template's (local/cloud-assembly.ts), so a deployment's settings (`jobResultDays`, …) hold here too.
 *
 * As S3 counts it: an object expires at the first midnight UTC after its creation plus the rule's
 * days (https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-expire-general-considerations.html).
 */
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** A rule that expires the objects under a prefix, `days` after their creation. */
export interface ExpiryRule {
  prefix: string;
  days: number;
}

export interface StoredObject {
  key: string;
  lastModified: Date;
}

/** What the expiry needs of a bucket. */
export interface ExpiringBucket {
  list(prefix: string): AsyncIterable<StoredObject[]>;
  remove(keys: string[]): Promise<void>;
}

const dayMs = 86_400_000;

/** When S3 expires an object created at `created` under a rule of `days`: the next midnight UTC after created + days. */
export const expiresAt = (created: Date, days: number): Date =>
  new Date(Math.ceil((created.getTime() + days * dayMs) / dayMs) * dayMs);

/** Removes every object a rule has expired at `now`; answers how many, by prefix. */
export async function expireObjects(
  bucket: ExpiringBucket,
  rules: ExpiryRule[],
  now: Date,
): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const rule of rules) {
    let count = 0;
    for await (const page of bucket.list(rule.prefix)) {
      const expired = page
        .filter((object) => expiresAt(object.lastModified, rule.days).getTime() <= now.getTime())
        .map((object) => object.key);
      if (expired.length === 0) continue;
      await bucket.remove(expired);
      count += expired.length;
    }
    removed[rule.prefix] = count;
  }
  return removed;
}

/** The bucket on the S3 stand-in. */
export function standInBucket(client: S3Client, bucket: string): ExpiringBucket {
  return {
    async *list(prefix) {
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        yield (page.Contents ?? []).flatMap((object) =>
          object.Key && object.LastModified ? [{ key: object.Key, lastModified: object.LastModified }] : [],
        );
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async remove(keys) {
      const answer = await client.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = answer.Errors ?? [];
      if (failed.length > 0)
        throw new Error(
          `the S3 stand-in kept ${failed.length} expired object(s): ${failed[0]?.Key} ${failed[0]?.Message}`,
        );
    },
  };
}

export interface Expiry {
  stop(): Promise<void>;
}

/**
 * Applies the rules now and every `intervalMs` (an hour), one run at a time; a run that fails is
 * logged and the next one tries again.
 */
export function startExpiry(options: {
  bucket: ExpiringBucket;
  rules: ExpiryRule[];
  log: (line: string) => void;
  intervalMs?: number;
}): Expiry {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const run = () => {
    if (busy || options.rules.length === 0) return;
    busy = true;
    running = expireObjects(options.bucket, options.rules, new Date())
      .then((removed) => {
        const gone = Object.entries(removed).filter(([, count]) => count > 0);
        if (gone.length > 0)
          options.log(
            `Lifecycle: removed ${gone.map(([prefix, count]) => `${count} under ${prefix}`).join(', ')} (the platform bucket's expiry rules)`,
          );
      })
      .catch((error: Error) =>
        options.log(`Lifecycle: the platform bucket's expiry failed, tried again within the hour: ${error.message}`),
      )
      .finally(() => {
        busy = false;
      });
  };
  run();
  const timer = setInterval(run, options.intervalMs ?? 3_600_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

export const standInClient = (
  endpoint: string,
  region: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
) => new S3Client({ endpoint, region, credentials, forcePathStyle: true });
