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

  it('keeps an entry for the time it is given, from when its read answered, then reads again', async () => {
    let keepMs = 60_000;
    const cache = new TtlCache<string>(() => keepMs);
    const reads: string[] = [];
    const load = (value: string) => async () => {
      reads.push(value);
      return value;
    };
    expect(await cache.get('store', load('first'))).toBe('first');
    expect(await cache.get('store', load('second'))).toBe('first');
    keepMs = 0;
    expect(await cache.get('other', load('third'))).toBe('third');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await cache.get('other', load('fourth'))).toBe('fourth');
    expect(reads).toEqual(['first', 'third', 'fourth']);
  });
});
