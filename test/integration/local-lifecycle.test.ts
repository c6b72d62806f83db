/**
 * Local mode's lifecycle expiry against the running S3 stand-in (s3rver runs no rules of its own):
 * the objects a rule expired are gone, the others stay.
 */
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { expireObjects, standInBucket } from '../../local/s3/lifecycle.ts';
import { localS3 } from '../support/delta.ts';

describe("local mode's platform bucket lifecycle, on the S3 stand-in", () => {
  it('removes every object under an expired prefix, a page at a time, and nothing under another', async () => {
    const s3 = localS3();
    const bucket = 'demo-bucket';
    const root = `lifecycle/${randomUUID()}/`;
    // More than a listing page (1,000) under the expiring prefix.
    const expiring = Array.from(
      { length: 1_003 },
      (_, index) => `${root}job-results/${String(index).padStart(4, '0')}.json`,
    );
    const kept = [`${root}kept/a.json`, `${root}kept/b.json`];
    for (let start = 0; start < expiring.length + kept.length; start += 50)
      await Promise.all(
        [...expiring, ...kept]
          .slice(start, start + 50)
          .map((Key) => s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: '{}' }))),
      );
    // Ten days on, a rule of 7 days has expired everything written now; the other prefix has no rule.
    const removed = await expireObjects(
      standInBucket(s3, bucket),
      [{ prefix: `${root}job-results/`, days: 7 }],
      new Date(Date.now() + 10 * 86_400_000),
    );
    expect(removed).toEqual({ [`${root}job-results/`]: 1_003 });
    const left = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: root }));
    expect((left.Contents ?? []).map((object) => object.Key)).toEqual(kept);
    // Today nothing of the rule's has expired yet.
    expect(await expireObjects(standInBucket(s3, bucket), [{ prefix: `${root}kept/`, days: 7 }], new Date())).toEqual({
      [`${root}kept/`]: 0,
    });
  });
});
