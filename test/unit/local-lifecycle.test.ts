import { describe, expect, it } from 'vitest';
import { type ExpiringBucket, expireObjects, expiresAt } from '../../local/s3/lifecycle.ts';

/** A bucket in memory, listed two objects a page (as S3 pages a listing). */
function bucketOf(objects: Record<string, string>) {
  const kept = new Map(Object.entries(objects).map(([key, at]) => [key, new Date(at)]));
  const bucket: ExpiringBucket = {
    async *list(prefix) {
      const under = [...kept].filter(([key]) => key.startsWith(prefix));
      for (let start = 0; start < under.length; start += 2)
        yield under.slice(start, start + 2).map(([key, lastModified]) => ({ key, lastModified }));
    },
    async remove(keys) {
      for (const key of keys) kept.delete(key);
    },
  };
  return { bucket, keys: () => [...kept.keys()].sort() };
}

describe("local mode's platform bucket lifecycle", () => {
  it('expires an object at the first midnight UTC after its creation plus the days, as S3 does', () => {
    expect(expiresAt(new Date('2026-03-01T10:30:00.000Z'), 7).toISOString()).toBe('2026-03-09T00:00:00.000Z');
    expect(expiresAt(new Date('2026-03-01T00:00:00.000Z'), 30).toISOString()).toBe('2026-03-31T00:00:00.000Z');
  });

  it("removes what each rule expired, only under the rule's prefix, and leaves the rest", async () => {
    const { bucket, keys } = bucketOf({
      'job-results/old.json': '2026-03-01T10:30:00.000Z',
      'job-results/older.json': '2026-02-01T00:00:00.000Z',
      'job-results/young.json': '2026-03-09T00:00:01.000Z',
      // Expiring at 2026-03-10T00:00 (12:00 + 30 days, to the next midnight), the run's time; b a day later.
      'dead-letters/unreadable/2026-02-07/a.txt': '2026-02-07T12:00:00.000Z',
      'dead-letters/unreadable/2026-02-08/b.txt': '2026-02-08T12:00:00.000Z',
      // A failed delivery waits for its redrive: no rule takes it, however old.
      'dead-letters/src_1/2025-01-01/c.json': '2025-01-01T00:00:00.000Z',
    });
    const removed = await expireObjects(
      bucket,
      [
        { prefix: 'dead-letters/unreadable/', days: 30 },
        { prefix: 'job-results/', days: 7 },
      ],
      new Date('2026-03-10T00:00:00.000Z'),
    );
    expect(removed).toEqual({ 'dead-letters/unreadable/': 1, 'job-results/': 2 });
    expect(keys()).toEqual([
      'dead-letters/src_1/2025-01-01/c.json',
      'dead-letters/unreadable/2026-02-08/b.txt',
      'job-results/young.json',
    ]);
  });
});
