/**
 * Counting, for /metrics, connection stats, alarms and the dashboard, without a table write per
 * event. Counts gather in this process (shared/domain/observability/tally.ts) and are written as
 * totals to the shared counters (shared/adapters/dynamo/counters.ts):
 *  - urgent counts before the invocation that made them answers (writes, failures, jobs), and
 *    refusals too, but a series at most once a second per instance;
 *  - the ingest door's per-request counts once the oldest has waited COUNTER_FLUSH_SECONDS
 *    (default 300) or a thousand have gathered. Meanwhile each envelope carries a receipt of them,
 *    and the door's series is raised to the receipts as the envelopes are committed (one write per
 *    commit and connection, not per writer batch and connection): the figure is exact once they are
 *    in their table, whether or not the door's instance ever writes its own counts.
 * Each count of a source also goes to the series of all sources (its labels but source_id), in the
 * same epoch and write, its total on the receipt beside the source's: GET /metrics reads those.
 * Each write also emits how much it grew the shared figures, in CloudWatch Embedded Metric Format
 * (one line per metric and dimension set; only low-cardinality labels become dimensions): summed over
 * processes, CloudWatch then reads what the shared figures read, counts a door's instance never wrote
 * itself (raised from receipts) included, none twice.
 */
import { setting } from '../config.ts';
import type { Receipt } from '../domain/ingest/envelope.ts';
import {
  allSourcesLabels,
  isAllSources,
  type MetricKey,
  type MetricSpec,
  metricCatalogue,
} from '../domain/observability/metric-catalogue.ts';
import { type SeriesChoice, Tally, TallyWriter, type TotalWrite } from '../domain/observability/tally.ts';
import { beforeAnswering, outsideInvocations } from '../observability/invocation.ts';
import { logger } from '../observability/logger.ts';
import { countOnce as countOnceInTable, writeTotals } from './dynamo/counters.ts';

/** Each count of a source also goes to the series of all sources, which GET /metrics reads. */
const tally = new Tally({ maxAgeMs: setting('COUNTER_FLUSH_SECONDS') * 1000, alsoCounts: allSourcesLabels });

/** Adds to a counter (a negative `by` takes from a gauge), written before the invocation answers. */
export function count(metric: MetricKey, labels: Record<string, string>, by = 1): void {
  if (by >= 0) tally.add(metric, labels, by);
  else tally.add(metric, { ...labels, change: 'down' }, -by);
}

/** As count; kept for callers that await it. Counting never fails a request. */
export async function countQuietly(metric: MetricKey, labels: Record<string, string>, by = 1): Promise<void> {
  count(metric, labels, by);
}

/** The door's labels per source, made once (the tally keys series by them on every request). */
const labelsBySource = new Map<string, { accepted: Record<string, string>; duplicates: Record<string, string> }>();
function sourceLabels(sourceId: string) {
  let labels = labelsBySource.get(sourceId);
  if (!labels) {
    if (labelsBySource.size >= 10_000) labelsBySource.clear();
    labels = {
      accepted: { source_id: sourceId, status: '202', code: 'ACCEPTED' },
      duplicates: { source_id: sourceId },
    };
    labelsBySource.set(sourceId, labels);
  }
  return labels;
}
const acceptedLabels = (sourceId: string) => sourceLabels(sourceId).accepted;

/** The ingest door: a 202 about to be answered for this source; the receipt its envelope carries. */
export function countAccepted(sourceId: string, duplicate: boolean): Receipt {
  const accepted = tally.add('ingestRequests', acceptedLabels(sourceId), 1, { deferred: true });
  const { epoch } = accepted;
  const { duplicates: duplicateLabels } = sourceLabels(sourceId);
  const duplicates = duplicate
    ? tally.add('ingestDuplicates', duplicateLabels, 1, { deferred: true })
    : tally.totals('ingestDuplicates', duplicateLabels, epoch);
  return {
    epoch,
    accepted: accepted.total,
    duplicates: duplicates.total,
    all_accepted: accepted.alsoTotal ?? undefined,
    all_duplicates: duplicates.alsoTotal ?? undefined,
  };
}

/**
 * The ingest door: a request refused (source 'unknown' when it named none that exists). Written at
 * the end of the invocation, but a series at most once a second per instance: a flood of refusals
 * (over a rate limit, bad tokens) must not write one item per request.
 */
export function countRefused(sourceId: string, status: number, code: string): void {
  tally.add('ingestRequests', { source_id: sourceId, status: String(status), code }, 1, { coalesced: true });
}

/** The ingest door: the envelope of a counted 202 could not be queued; the request fails instead. */
export function withdrawAccepted(sourceId: string, duplicate: boolean): void {
  count('ingestRequests', acceptedLabels(sourceId), -1);
  if (duplicate) count('ingestDuplicates', { source_id: sourceId }, -1);
}

/** Envelopes leaving staging: raises the door's counts to the receipts they carry. */
export function countReceipts(envelopes: { source_id: string; ingested_at: string; receipt?: Receipt }[]): void {
  for (const { source_id, ingested_at, receipt } of envelopes) {
    if (!receipt) continue;
    const { epoch } = receipt;
    tally.raise(
      'ingestRequests',
      acceptedLabels(source_id),
      epoch,
      receipt.accepted,
      ingested_at,
      receipt.all_accepted,
    );
    if (receipt.duplicates > 0)
      tally.raise('ingestDuplicates', { source_id }, epoch, receipt.duplicates, ingested_at, receipt.all_duplicates);
  }
}

function writeEmf(name: string, dimensions: Record<string, string>, value: number): void {
  if (process.env.POWERTOOLS_METRICS_DISABLED === 'true') return;
  const emf = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Tributary',
          Dimensions: [Object.keys(dimensions)],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    ...dimensions,
    [name]: value,
  };
  process.stdout.write(`${JSON.stringify(emf)}\n`);
}

const service = () => process.env.POWERTOOLS_SERVICE_NAME ?? 'tributary';

/**
 * Counts once per key, at once (not at the invocation's end): false when the key was counted before.
 * `alongside` is written in the same transaction (see dynamo/counters.ts countOnce).
 * What it adds goes to CloudWatch too, once, like any growth of the shared figures.
 */
export async function countOnce(
  key: string,
  counts: { metric: MetricKey; labels: Record<string, string>; by: number }[],
  alongside?: Parameters<typeof countOnceInTable>[3],
): Promise<boolean> {
  const positive = counts
    .filter((entry) => entry.by > 0)
    .flatMap((entry) => {
      const all = allSourcesLabels(entry.metric, entry.labels);
      return all ? [entry, { ...entry, labels: all }] : [entry];
    });
  if (positive.length === 0) return false;
  const counted = await countOnceInTable(key, positive, Date.now(), alongside);
  if (counted)
    emitEmf(
      positive.map(({ metric, labels, by }) => ({
        write: { metric, labels, epoch: 'once', value: by, lastAt: new Date().toISOString() },
        by,
      })),
    );
  return counted;
}

/** A figure read now rather than counted (CloudWatch keeps it as a metric like the counts). */
export function emitGauge(name: string, value: number): void {
  writeEmf(name, { service: service() }, value);
}

/** How much a write grew its series' shared figure. */
interface Growth {
  write: TotalWrite;
  by: number;
}

function emitEmf(grown: Growth[]): void {
  const lines = new Map<string, { name: string; dimensions: Record<string, string>; value: number }>();
  for (const { write, by } of grown) {
    const spec = (metricCatalogue[write.metric] as MetricSpec).cloudWatch;
    // CloudWatch adds up the sources' growth itself: that of all sources would count it twice.
    if (!spec || isAllSources(write.metric, write.labels)) continue;
    const dimensions: Record<string, string> = { service: service() };
    for (const dimension of spec.dimensions) dimensions[dimension] = write.labels[dimension] ?? 'none';
    const sign = write.labels.change === 'down' ? -1 : 1;
    const key = `${spec.name}|${JSON.stringify(dimensions)}`;
    const line = lines.get(key) ?? { name: spec.name, dimensions, value: 0 };
    line.value += sign * by;
    lines.set(key, line);
  }
  for (const { name, dimensions, value } of lines.values()) writeEmf(name, dimensions, value);
}

/** What partial writes grew, published to CloudWatch with the next whole write: a line per metric, not per write. */
const heldForEmf: Growth[] = [];

/** Due totals are written one write at a time; a total that fails stays pending for the next. */
const writer = new TallyWriter(
  tally,
  async (writes, { partial }) => {
    const grown: Growth[] = [];
    const failed = await writeTotals(writes, Date.now(), (write, by) => grown.push({ write, by }));
    if (partial) heldForEmf.push(...grown);
    else emitEmf([...heldForEmf.splice(0), ...grown]);
    for (const write of failed) tally.failed(write);
    if (failed.length > 0)
      logger.warn('Could not write counters; they are kept for the next write', { failed: failed.length });
  },
  (error) => logger.warn('Counter write failed; the counts are kept for the next write', { error: error.message }),
);
const flush = () => writer.flush();

/**
 * A source's counts due before the invocation answers (a committer's, not the door's deferred ones),
 * and those of all sources beside them.
 */
const urgentOfSources: SeriesChoice = (series) =>
  series.urgent &&
  ((Boolean(series.labels.source_id) && series.labels.source_id !== 'unknown') ||
    isAllSources(series.metric, series.labels));

/**
 * Writes now the pending totals of the sources' series due before answering (what a committer counted
 * for the tables it just committed); the platform's own series wait for the invocation's end as before.
 */
export const settleSourceCounts = (): Promise<void> => writer.flushOnly(urgentOfSources);

beforeAnswering(async () => {
  if (tally.due()) await flush();
  if (heldForEmf.length > 0) emitEmf(heldForEmf.splice(0));
});

// A process that lives on between invocations (local mode) writes deferred counts on time too.
setInterval(() => {
  if (tally.due()) void outsideInvocations(flush);
}, 1000).unref();
