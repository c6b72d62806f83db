import type { LogEntry } from '../delta/commit.ts';
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
  dead_lettered: number;
  redriven: number;
  /** Accepted envelopes neither written nor waiting as failed deliveries (metric-catalogue.ts). */
  unaccounted: number;
  last_ingest_at: string | null;
  last_write_at: string | null;
  /** How long the oldest envelope has waited since a write of its data set failed; null when none waits. */
  oldest_unwritten_age_seconds: number | null;
}

/** A connection's figures, from the same counters as /metrics (a refusal code per rejected entry). */
export function statsFrom(
  series: SeriesReading[],
  oldestUnwrittenAt: string | null,
  now = new Date(),
): ConnectionStats {
  const stats: ConnectionStats = {
    accepted: 0,
    duplicates: 0,
    rejected: {},
    written_rows: 0,
    dead_lettered: 0,
    redriven: 0,
    unaccounted: 0,
    last_ingest_at: null,
    last_write_at: null,
    oldest_unwritten_age_seconds: oldestUnwrittenAt
      ? Math.max(0, Math.round((now.getTime() - Date.parse(oldestUnwrittenAt)) / 1000))
      : null,
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
    } else if (reading.metric === 'ingestDuplicates') {
      stats.duplicates += reading.value;
    } else if (reading.metric === 'deadLettered') {
      stats.dead_lettered += reading.value;
    } else if (reading.metric === 'redriven') {
      stats.redriven += reading.value;
    }
  }
  stats.unaccounted = unaccounted({
    accepted: stats.accepted,
    duplicates: stats.duplicates,
    written: stats.written_rows,
    deadLettered: stats.dead_lettered,
    redriven: stats.redriven,
  });
  return stats;
}

/** A committed batch as the data set's run history shows it. */
export function runOf(entry: LogEntry & { completedAt: string | null }) {
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
