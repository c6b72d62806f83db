/**
 * Traffic over time: a connection's figures (the same as its stats) per interval, from the shared
 * counters. Counters are kept per 15-minute epoch of the clock (shared/domain/observability/tally.ts);
 * once settled, each source's epochs are folded into one history item per interval, kept
 * `historyRetentionDays` (shared/adapters/dynamo/counters.ts). A history is these intervals, added
 * up into the step asked for (15 minutes, an hour or a day).
 */
import type { Connection } from '../connections/model.ts';
import { visibleConnection } from '../connections/use-cases.ts';
import { invalid } from '../errors.ts';
import type { MetricKey } from '../observability/metric-catalogue.ts';
import type { Principal } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';

/** The counters' epochs, and the finest step of a history. */
export const historyIntervalMs = 15 * 60_000;
/** How long per-interval history is kept; a history reaches no further back. */
export const historyRetentionDays = 30;
const dayMs = 24 * 60 * 60_000;

export const historySteps = { '15m': historyIntervalMs, '1h': 60 * 60_000, '1d': dayMs } as const;
export type HistoryStep = keyof typeof historySteps;

/**
 * The figure of a connection's history a counter series adds to, or null for series no connection
 * owns (batches committed, jobs). A refusal adds to `rejected:<CODE>`.
 */
export function historyFigure(metric: MetricKey, labels: Record<string, string>): string | null {
  if (!labels.source_id) return null;
  switch (metric) {
    case 'ingestRequests':
      return labels.code === 'ACCEPTED' ? 'accepted' : `rejected:${labels.code ?? 'UNKNOWN'}`;
    case 'ingestDuplicates':
      return 'duplicates';
    case 'envelopesWritten':
      return 'written_rows';
    case 'deadLettered':
      return 'dead_lettered';
    case 'redriven':
      return 'redriven';
    default:
      return null;
  }
}

/** What a figure moved by in one 15-minute interval (ms since the epoch, on the interval's start). */
export interface HistoryReading {
  interval: number;
  figure: string;
  value: number;
}

export type HistoryDeps = Parameters<typeof visibleConnection>[0] & {
  /** Every connection of the tenant. */
  allConnectionsOfTenant(tenantId: string): Promise<Connection[]>;
  /** A source's readings of the intervals starting in [from, to). */
  readSourceHistory(sourceId: string, from: number, to: number): Promise<HistoryReading[]>;
};

export interface HistoryQuery {
  from?: string | undefined;
  to?: string | undefined;
  step: HistoryStep;
}

export interface HistoryInterval {
  start: string;
  accepted: number;
  duplicates: number;
  rejected: Record<string, number>;
  written_rows: number;
  dead_lettered: number;
  redriven: number;
}

export interface History {
  from: string;
  to: string;
  step_seconds: number;
  intervals: HistoryInterval[];
}

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;

/**
 * The intervals a query asks for: `to` defaults to now, `from` to a day before it; both go to the
 * step's boundaries (the interval holding `to` is included). `from` reaches back at most the
 * retention: earlier intervals are not kept, so the answer starts at the first step kept whole,
 * and says so in its `from`.
 */
export function historyRange(query: HistoryQuery, now: number): { from: number; to: number; step: number } {
  const step = historySteps[query.step];
  const to = query.to ? Date.parse(query.to) : now;
  const from = query.from ? Date.parse(query.from) : to - dayMs;
  if (from >= to) throw invalid('The time range is empty', [{ path: 'from', message: 'Must be before to' }]);
  // The oldest interval kept whole; a step reaching before it is left out rather than shown short.
  const kept = floorTo(now - historyRetentionDays * dayMs, historyIntervalMs) + historyIntervalMs;
  const start = from >= kept ? floorTo(from, step) : Math.ceil(kept / step) * step;
  const end = floorTo(to - 1, step) + step;
  if ((end - start) / step > 3000)
    throw invalid('Too many intervals', [{ path: 'step', message: 'At most 3,000 intervals: choose a longer step' }]);
  return { from: start, to: Math.max(end, start + step), step };
}

/** Readings added up per step, every step of the range listed (zeros included) so that a chart reads it as is. */
export function historyOf(readings: HistoryReading[], range: { from: number; to: number; step: number }): History {
  const intervals: HistoryInterval[] = [];
  for (let start = range.from; start < range.to; start += range.step)
    intervals.push({
      start: new Date(start).toISOString(),
      accepted: 0,
      duplicates: 0,
      rejected: {},
      written_rows: 0,
      dead_lettered: 0,
      redriven: 0,
    });
  for (const reading of readings) {
    if (reading.interval < range.from || reading.interval >= range.to) continue;
    const interval = intervals[Math.floor((reading.interval - range.from) / range.step)] as HistoryInterval;
    if (reading.figure.startsWith('rejected:')) {
      const code = reading.figure.slice('rejected:'.length);
      interval.rejected[code] = (interval.rejected[code] ?? 0) + reading.value;
    } else if (
      reading.figure === 'accepted' ||
      reading.figure === 'duplicates' ||
      reading.figure === 'written_rows' ||
      reading.figure === 'dead_lettered' ||
      reading.figure === 'redriven'
    ) {
      interval[reading.figure] += reading.value;
    }
  }
  for (const interval of intervals)
    for (const [code, count] of Object.entries(interval.rejected)) if (count === 0) delete interval.rejected[code];
  return {
    from: new Date(range.from).toISOString(),
    to: new Date(range.to).toISOString(),
    step_seconds: range.step / 1000,
    intervals,
  };
}

/**
 * A connection's traffic over time.
 * Input: the caller, the connection, the range and step. Output: one entry per step of the range.
 *  1. The connection must be visible to the caller (404 otherwise, as its stats).
 *  2. Its source's readings of the range: folded history items and the epochs not folded yet.
 *  3. Added up per step.
 */
export async function connectionHistory(
  deps: HistoryDeps,
  principal: Principal,
  connectionId: string,
  query: HistoryQuery,
  now = Date.now(),
): Promise<History> {
  const range = historyRange(query, now);
  const connection = await visibleConnection(deps, principal, connectionId, 'read');
  return historyOf(await deps.readSourceHistory(connection.source_id, range.from, range.to), range);
}

/**
 * A tenant's traffic over time: its connections' histories added up.
 * Input: the caller, the tenant, the range and step. Output: as a connection's, and how many
 * connections it adds up.
 *  1. The tenant must be visible to the caller.
 *  2. Every connection of the tenant, read a few at a time; a deleted connection's
 *     traffic leaves the tenant's history with it.
 */
export async function tenantHistory(
  deps: HistoryDeps,
  principal: Principal,
  tenantId: string,
  query: HistoryQuery,
  now = Date.now(),
): Promise<History & { connections: number }> {
  const range = historyRange(query, now);
  await tenantFor(deps, principal, tenantId, 'read');
  const connections = await deps.allConnectionsOfTenant(tenantId);
  const readings: HistoryReading[] = [];
  const queue = [...connections];
  const worker = async () => {
    for (let connection = queue.shift(); connection; connection = queue.shift())
      readings.push(...(await deps.readSourceHistory(connection.source_id, range.from, range.to)));
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  return { ...historyOf(readings, range), connections: connections.length };
}
