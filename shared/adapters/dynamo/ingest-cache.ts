/**
 * The ingest path's read cache: a source and its tenant, kept for INGEST_CACHE_SECONDS (default 2)
 * so that a busy source costs one table read per instance every two seconds instead of two per
 * request. Unknown sources are cached too, so a flood of random ids cannot turn into table reads.
 * Writes through the management API evict their entry in the instance that made them; other
 * instances see a regenerated token, a pause or a suspension within the cache time. The API key
 * path keeps only its misses (rememberingMisses). The same TtlCache keeps stores' records for the
 * tables' commits and reads, for a time of their own (table-storage.ts).
 */
import { setting } from '../../config.ts';
import type { Source } from '../../domain/connections/model.ts';
import type { Tenant } from '../../domain/tenants/model.ts';

const ttlMs = () => setting('INGEST_CACHE_SECONDS') * 1000;
const maxEntries = 10_000;

/** Drops a map's oldest entry (the first inserted). */
function dropOldest(map: Map<string, unknown>): void {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
}

export class TtlCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; expires: number }>();

  /** `keepMs`: how long an entry is kept from when its read answered (INGEST_CACHE_SECONDS unless said). */
  constructor(private readonly keepMs: () => number = ttlMs) {}

  /**
   * The cached value, or the one `load` gives. Requests that miss together share one load (a
   * busy source's entry expiring under many concurrent requests costs one read, not one each);
   * a load that fails is not kept.
   */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    if (this.entries.size >= maxEntries) dropOldest(this.entries);
    const entry = { value: load(), expires: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.value.then(
      () => {
        entry.expires = Date.now() + this.keepMs();
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

export const sourceCache = new TtlCache<Source | null>();
export const tenantCache = new TtlCache<Tenant | null>();

/**
 * A lookup that remembers which keys it found nothing for, for INGEST_CACHE_SECONDS: the same
 * unknown key asked again within that window is answered null without a read, however often it is
 * sent, and lookups of it that miss together share one read. What it finds is never kept (an API key
 * revoked must stop working on the very next request), and nothing found can become unknown.
 */
export function rememberingMisses<T>(
  lookup: (key: string) => Promise<T | null>,
  now: () => number = Date.now,
): (key: string) => Promise<T | null> {
  const misses = new Map<string, number>();
  const reading = new Map<string, Promise<T | null>>();
  return (key) => {
    const until = misses.get(key);
    if (until !== undefined) {
      if (until > now()) return Promise.resolve(null);
      misses.delete(key);
    }
    const pending = reading.get(key);
    if (pending) return pending;
    const read = lookup(key)
      .then((value) => {
        if (value === null) {
          if (misses.size >= maxEntries) dropOldest(misses);
          misses.set(key, now() + ttlMs());
        }
        return value;
      })
      .finally(() => reading.delete(key));
    reading.set(key, read);
    return read;
  };
}
