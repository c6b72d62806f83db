/**
 * Store boundaries. Where the platform reaches a store with credentials that tenants share (its own
 * role on a bucket the operator listed in tenantBuckets; an endpoint reached anonymously, as local
 * mode's S3 stand-in is), nothing but the platform's word keeps one tenant out of another's data. So
 * two tenants' stores there never overlap: not at the same prefix, not one inside the other, not a
 * whole bucket over a prefix. Paths compare by segment: `lake/t-abc` and `lake/t-abcx` are apart.
 *
 * Each path of a bucket that such a store sits at, or sits below, has a claim: the tenant whose store
 * sits exactly there (`owner`), and the tenant whose stores sit below it (`beneath`, or `*` once two
 * tenants' do). A store at `a/b` reads and writes three claims — the bucket (``), `a` and `a/b` —
 * however many stores the bucket holds: at most one per segment of its prefix and one for the bucket.
 * Two registrations that would overlap both touch the path of the shallower one, and each claim is
 * written only at the version it was read at, so the second to write fails and is decided again with
 * what the first wrote. Claims are never given back: a tenant's tables stay where they were written.
 */
import type { ObjectStoreOptions } from './object-stores.ts';

export interface StorePathClaim {
  bucket: string;
  /** Segments joined by `/`; empty for the bucket itself. */
  path: string;
  /** The tenant whose store sits at this path. */
  owner: string | null;
  /** The tenant whose stores sit below this path, or `*` (manyTenants) once two tenants' do. */
  beneath: string | null;
  /** 0 for a path never claimed; each claim that passes through adds one. */
  version: number;
}

export const manyTenants = '*';

/**
 * Whether the store is reached with credentials other tenants' stores share: neither keys nor a role
 * of its own (the platform's own role, or no credentials at all at a custom endpoint).
 */
export function sharesCredentials(options: ObjectStoreOptions): boolean {
  return options.access_key_id === undefined && options.role_arn === undefined;
}

/** The paths a store at `prefix` claims, the bucket first and the prefix itself last. */
export function claimedPaths(prefix: string): string[] {
  const segments = prefix === '' ? [] : prefix.split('/');
  return ['', ...segments.map((_, i) => segments.slice(0, i + 1).join('/'))];
}

/**
 * The claims after `tenantId` places a store at the last of `current` (the claims of claimedPaths, as
 * read), or `overlaps` when another tenant's store sits there, above it, or below it.
 */
export function claimStorePath(current: StorePathClaim[], tenantId: string): StorePathClaim[] | 'overlaps' {
  const place = current.at(-1);
  if (!place) return [];
  const foreign = (held: string | null) => held !== null && held !== tenantId;
  if (current.some((claim) => foreign(claim.owner)) || foreign(place.beneath)) return 'overlaps';
  return current.map((claim) =>
    claim === place
      ? { ...claim, owner: tenantId, version: claim.version + 1 }
      : {
          ...claim,
          beneath: claim.beneath === null || claim.beneath === tenantId ? tenantId : manyTenants,
          version: claim.version + 1,
        },
  );
}
