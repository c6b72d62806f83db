/**
 * What one warm instance of a committer (the batch writer, the table committer, the table-commits
 * schedule) keeps between its invocations, and what it may hold at once: each table's freshness
 * target, kept a minute; the small staged objects it read whole (staged-reads.ts); and the staged
 * payload bytes its commits hold side by side, bounded by the function's memory.
 */

import type { StagedReadLimits } from './staged-reads.ts';
import { freshnessKeptMs, stagedSizeTargetBytes } from './staging.ts';

const mb = 1024 * 1024;

/** Where a table's freshness target comes from. */
export interface FreshnessSource {
  /** The targets the tables' properties set, in milliseconds; a table that sets none is absent. */
  read(tableIds: string[]): Promise<Map<string, number>>;
  /** The deployment's default target, for a table that sets none. */
  defaultMs(): number;
  now(): number;
}

/** Tables whose targets an instance keeps at most: past it, it forgets them all and reads them again. */
const keptTablesAtMost = 100_000;

/**
 * Freshness targets change rarely (a table property): an instance reads each at most once every
 * `freshnessKeptMs`, however many triggers and batches name its table meanwhile.
 */
export class FreshnessTargets {
  private readonly kept = new Map<string, { ms: number | null; until: number }>();

  constructor(private readonly source: FreshnessSource) {}

  /** Each table's freshness target in milliseconds (its own, or the deployment's default). */
  async of(tableIds: string[]): Promise<Map<string, number>> {
    const now = this.source.now();
    const missing = tableIds.filter((id) => (this.kept.get(id)?.until ?? 0) <= now);
    if (missing.length > 0) {
      const found = await this.source.read(missing);
      if (this.kept.size > keptTablesAtMost) this.kept.clear();
      for (const id of missing) this.kept.set(id, { ms: found.get(id) ?? null, until: now + freshnessKeptMs });
    }
    return new Map(tableIds.map((id) => [id, this.kept.get(id)?.ms ?? this.source.defaultMs()]));
  }
}

/**
 * Staged objects a warm committer keeps: those up to 1 MB (a writer batch of sparse traffic holds
 * dozens of tables' slices in a few hundred KB), 64 MB of them at most.
 */
export const committerReadLimits: StagedReadLimits = { wholeMaxBytes: 1 * mb, keptMaxBytes: 64 * mb };

/**
 * Staged payload bytes the commits of an invocation hold at once: the function's memory less the
 * table states (a quarter, shared/adapters/table-storage.ts), the staged objects kept (64 MB) and the
 * code (150 MB), at 3 bytes held per payload byte (a commit's rows read back, then its files encoded:
 * the writer bench peaks at 2.6). At 1,769 MB, 370 MB: five commits of a whole size target side by
 * side, where ten would run the function out of memory. Never less than one size target; unbounded
 * where the function's memory is not known (0: tests, benches).
 */
export function commitMemoryBytes(functionMemoryMb: number): number {
  if (!(functionMemoryMb > 0)) return Number.POSITIVE_INFINITY;
  const heldMb = (functionMemoryMb * 3) / 4 - committerReadLimits.keptMaxBytes / mb - 150;
  return Math.max(stagedSizeTargetBytes, (heldMb * mb) / 3);
}
