import { type MetricKey, unaccounted } from '../observability/metric-catalogue.ts';

export interface SeriesReading {
  metric: MetricKey;
  labels: Record<string, string>;
  value: number;
  lastAt: string | null;
}

export interface ConnectionStats {
  /** Requests answered 202. */
  accepted: number;
  /** Of those, repeats inside a deduplication window (no row of their own). */
  duplicates: number;
  rejected: Record<string, number>;
  written_rows: number;
  /** Staged envelopes left out of the table: their day was already past its data retention. */
  expired_rows: number;
  /** Staged envelopes set aside unwritten because their staged object was gone: lost, ever. */
  lost_rows: number;
  dead_lettered: number;
  redriven: number;
  /** Failed deliveries deleted without a redrive (past the data retention): no longer waiting, never written. */
  deleted_dead_letters: number;
  /** Accepted envelopes neither written, waiting as failed deliveries, nor known lost (metric-catalogue.ts). */
  unaccounted: number;
  last_ingest_at: string | null;
  last_write_at: string | null;
  /** Accepted envelopes staged and not yet committed to the table (they are listed as pending events). */
  staged_rows: number;
  /** How long the oldest envelope not yet in the table has waited since it was accepted; null when none waits. */
  oldest_unwritten_age_seconds: number | null;
  /** Why the table's last commit failed, while its envelopes wait to be tried again; null when it did not. */
  commit_failure: { attempts: number; last_error: string } | null;
}

/** What waits to be committed for the connection's table (shared/domain/ingest/staging.ts). */
export interface StagedReading {
  rows: number;
  /** Milliseconds: the oldest waiting envelope's ingest time (Infinity when none waits). */
  oldest: number;
  failure: { attempts: number; lastError: string } | null;
}

/**
 * A connection's figures, from the same counters as /metrics (a refusal code per rejected entry).
 * The door writes its own counts of accepted requests every few minutes; meanwhile each envelope it
 * accepted is on the queue for a moment, then staged until its commit raises the count to the
 * receipt it carries. Every envelope staged, written, deduplicated, left out or failed was accepted:
 * `accepted` is never shown below them, so the figures agree within seconds of a 202 (as soon as
 * its envelope is staged) without a write per request. The floor never hides a loss: an envelope
 * that went missing is in the door's count and in none of them. For the moment between a commit's
 * count and its letting the staged records go (milliseconds, seconds on a loaded machine), those rows
 * are both written and staged, and a reading then shows accepted too high by them: a test waits for
 * staged_rows to reach 0 before it reads accepted.
 */
export function statsFrom(series: SeriesReading[], staged: StagedReading, now = new Date()): ConnectionStats {
  const stats: ConnectionStats = {
    accepted: 0,
    duplicates: 0,
    rejected: {},
    written_rows: 0,
    expired_rows: 0,
    lost_rows: 0,
    dead_lettered: 0,
    redriven: 0,
    deleted_dead_letters: 0,
    unaccounted: 0,
    last_ingest_at: null,
    last_write_at: null,
    staged_rows: staged.rows,
    oldest_unwritten_age_seconds:
      staged.rows > 0 && Number.isFinite(staged.oldest)
        ? Math.max(0, Math.round((now.getTime() - staged.oldest) / 1000))
        : null,
    commit_failure: staged.failure ? { attempts: staged.failure.attempts, last_error: staged.failure.lastError } : null,
  };
  const later = (a: string | null, b: string | null) => (a && (!b || a > b) ? a : b);
  for (const reading of series) {
    if (reading.metric === 'ingestRequests') {
      if (reading.labels.code === 'ACCEPTED') {
        stats.accepted += reading.value;
        stats.last_ingest_at = later(reading.lastAt, stats.last_ingest_at);
      } else {
        const code = reading.labels.code ?? 'UNKNOWN';
        stats.rejected[code] = (stats.rejected[code] ?? 0) + reading.value;
      }
    } else if (reading.metric === 'envelopesWritten') {
      stats.written_rows += reading.value;
      stats.last_write_at = later(reading.lastAt, stats.last_write_at);
    } else if (reading.metric === 'envelopesExpired') {
      stats.expired_rows += reading.value;
    } else if (reading.metric === 'envelopesLost') {
      stats.lost_rows += reading.value;
    } else if (reading.metric === 'ingestDuplicates') {
      stats.duplicates += reading.value;
    } else if (reading.metric === 'deadLettered') {
      stats.dead_lettered += reading.value;
    } else if (reading.metric === 'redriven') {
      stats.redriven += reading.value;
    } else if (reading.metric === 'deadLettersDeleted') {
      stats.deleted_dead_letters += reading.value;
    }
  }
  const accountedFor =
    stats.written_rows +
    stats.duplicates +
    stats.expired_rows +
    stats.lost_rows +
    stats.dead_lettered -
    stats.redriven +
    staged.rows;
  stats.accepted = Math.max(stats.accepted, accountedFor);
  if (staged.rows > 0 && Number.isFinite(staged.oldest))
    stats.last_ingest_at = later(new Date(staged.oldest).toISOString(), stats.last_ingest_at);
  stats.unaccounted = unaccounted({
    accepted: stats.accepted,
    duplicates: stats.duplicates,
    written: stats.written_rows,
    expired: stats.expired_rows,
    lost: stats.lost_rows,
    deadLettered: stats.dead_lettered,
    redriven: stats.redriven,
  });
  return stats;
}

/** A version Tributary committed, as the table's records of its writers keep it. */
export interface TableRun {
  runId: string;
  version: number;
  files: number;
  rows: number;
  bytes: number;
  startedAt: string;
  completedAt: string | null;
  attempt: number;
}

/** A committed batch as the data set's run history shows it. */
export function runOf(entry: TableRun) {
  return {
    run_id: entry.runId,
    version: entry.version,
    files: entry.files,
    rows: entry.rows,
    bytes: entry.bytes,
    started_at: entry.startedAt,
    completed_at: entry.completedAt,
    duration_ms: entry.completedAt ? Date.parse(entry.completedAt) - Date.parse(entry.startedAt) : null,
    attempt: entry.attempt,
  };
}
