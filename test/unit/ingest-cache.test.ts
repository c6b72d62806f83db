/** The ingest path's read cache: one load for requests that miss together, none kept when it fails. */
import { describe, expect, it } from 'vitest';
import { TtlCache } from '#shared/adapters/dynamo/ingest-cache.ts';

describe('the ingest read cache', () => {
  it('loads once for requests that miss together, and answers each of them', async () => {
    const cache = new TtlCache<string>();
    let loads = 0;
    let finish: (value: string) => void = () => undefined;
    const load = () => {
      loads++;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    };
    const waiting = Array.from({ length: 20 }, () => cache.get('source', load));
    finish('the source');
    expect(await Promise.all(waiting)).toEqual(Array(20).fill('the source'));
    expect(await cache.get('source', load)).toBe('the source');
    expect(loads).toBe(1);
  });

  it('keeps no failed load: the next request loads again', async () => {
    const cache = new TtlCache<string>();
    await expect(cache.get('source', () => Promise.reject(new Error('table down')))).rejects.toThrow('table down');
    expect(await cache.get('source', async () => 'loaded again')).toBe('loaded again');
  });

  it('forgets an entry evicted while it loads', async () => {
    const cache = new TtlCache<string>();
    let finish: (value: string) => void = () => undefined;
    const first = cache.get('source', () => new Promise<string>((resolve) => (finish = resolve)));
    cache.forget('source');
    finish('stale');
    await first;
    expect(await cache.get('source', async () => 'fresh')).toBe('fresh');
  });
});
