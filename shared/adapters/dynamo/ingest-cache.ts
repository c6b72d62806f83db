/**
 * The ingest path's read cache: a source and its tenant, kept for INGEST_CACHE_SECONDS (default 2)
 * so that a busy source costs one table read per instance every two seconds instead of two per
 * request. Unknown sources are cached too, so a flood of random ids cannot turn into table reads.
 * Writes through the management API evict their entry in the instance that made them; other
 * instances see a regenerated token, a pause or a suspension within the cache time.
 */
import type { Source } from '../../domain/connections/model.ts';
import type { Tenant } from '../../domain/tenants/model.ts';

const ttlMs = () => Number(process.env.INGEST_CACHE_SECONDS ?? 2) * 1000;
const maxEntries = 10_000;

export class TtlCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; expires: number }>();

  /**
   * The cached value, or the one `load` gives. Requests that miss together share one load (a
   * busy source's entry expiring under many concurrent requests costs one read, not one each);
   * a load that fails is not kept.
   */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    if (this.entries.size >= maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const entry = { value: load(), expires: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.value.then(
      () => {
        entry.expires = Date.now() + ttlMs();
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
