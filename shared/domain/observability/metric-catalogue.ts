/**
 * The metrics Tributary exports at /metrics (Prometheus text format 0.0.4). Counters live in the
 * table (shared/adapters/dynamo/counters.ts) so that every function instance adds to the same figures.
 */

export interface MetricSpec {
  name: string;
  type: 'counter' | 'gauge';
  /** The labels /metrics shows (others are summed away); all when absent. */
  exported?: string[];
  /** The CloudWatch (EMF) metric with the same figure, and the labels that become its dimensions. */
  cloudWatch?: { name: string; dimensions: string[] };
  /**
   * Counted per source (every count carries `source_id`), and also, as it is counted, in a series of
   * all sources (its labels but `source_id`): what GET /metrics reads, a few items however many
   * sources there are.
   */
  bySource?: true;
}

export const metricCatalogue = {
  ingestRequests: {
    bySource: true,
    name: 'tributary_ingest_requests_total',
    type: 'counter',
    cloudWatch: { name: 'IngestRequests', dimensions: ['status'] },
  },
  ingestDuplicates: {
    bySource: true,
    name: 'tributary_ingest_duplicates_total',
    type: 'counter',
  },
  envelopesWritten: {
    bySource: true,
    name: 'tributary_envelopes_written_total',
    type: 'counter',
    cloudWatch: { name: 'EnvelopesWritten', dimensions: [] },
  },
  envelopesExpired: {
    bySource: true,
    name: 'tributary_envelopes_expired_total',
    type: 'counter',
  },
  envelopesLost: {
    bySource: true,
    name: 'tributary_envelopes_lost_total',
    type: 'counter',
    cloudWatch: { name: 'EnvelopesLost', dimensions: [] },
  },
  batchesCommitted: {
    name: 'tributary_batches_committed_total',
    type: 'counter',
    exported: [],
    cloudWatch: { name: 'BatchesCommitted', dimensions: [] },
  },
  batchFailures: {
    name: 'tributary_batch_failures_total',
    type: 'counter',
    exported: [],
    cloudWatch: { name: 'BatchFailures', dimensions: [] },
  },
  deadLettered: {
    bySource: true,
    name: 'tributary_dead_lettered_total',
    type: 'counter',
    exported: [],
    cloudWatch: { name: 'DeadLettered', dimensions: [] },
  },
  unreadableDeadLetters: {
    name: 'tributary_unreadable_dead_letters_total',
    type: 'counter',
    exported: [],
    cloudWatch: { name: 'UnreadableDeadLetters', dimensions: [] },
  },
  redriven: {
    bySource: true,
    name: 'tributary_redriven_total',
    type: 'counter',
    exported: [],
  },
  deadLettersDeleted: {
    bySource: true,
    name: 'tributary_dead_letters_deleted_total',
    type: 'counter',
    exported: [],
  },
  jobsOfferedAgain: {
    name: 'tributary_jobs_offered_again_total',
    type: 'counter',
    exported: [],
    cloudWatch: { name: 'JobsOfferedAgain', dimensions: [] },
  },
  jobs: {
    name: 'tributary_jobs',
    type: 'gauge',
    cloudWatch: { name: 'JobTransitions', dimensions: ['status'] },
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof metricCatalogue;

/** allSourcesLabels' answers by metric and labels object, and one labels object per content. */
const allSourcesMade = new Map<MetricKey, WeakMap<Record<string, string>, Record<string, string> | null>>();
const allSourcesShared = new Map<string, Record<string, string>>();

/**
 * The series of all sources a count of one source also goes to: its labels but `source_id` (null for
 * a metric not counted by source, and for a count of no source). GET /metrics reads these; a source's
 * own series serve its connection's stats, the loss figure and GET /metrics?shards=. Asked once per
 * count (a receipt raised per envelope), so made once per labels object (the door's are made once per
 * source), and the same object for the same labels, whose series key a tally then makes once.
 */
export function allSourcesLabels(metric: MetricKey, labels: Record<string, string>): Record<string, string> | null {
  let made = allSourcesMade.get(metric);
  if (!made) {
    made = new WeakMap();
    allSourcesMade.set(metric, made);
  }
  const known = made.get(labels);
  if (known !== undefined) return known;
  let all: Record<string, string> | null = null;
  // A pipeline's rows (source "") are no source's envelopes.
  if ((metricCatalogue[metric] as MetricSpec).bySource && labels.source_id) {
    const { source_id: _source, ...rest } = labels;
    const key = `${metric}|${JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)))}`;
    if (allSourcesShared.size >= 10_000) allSourcesShared.clear();
    all = allSourcesShared.get(key) ?? rest;
    allSourcesShared.set(key, all);
  }
  made.set(labels, all);
  return all;
}

/** Whether a series is one of all sources (a metric counted by source, without `source_id`). */
export const isAllSources = (metric: MetricKey, labels: Record<string, string>) =>
  Boolean((metricCatalogue[metric] as MetricSpec).bySource) && labels.source_id === undefined;

/** Whether a metric's name (as a counter item stores it) is one the catalogue holds. */
export const isMetricKey = (name: string): name is MetricKey => Object.hasOwn(metricCatalogue, name);

/** What each metric counts, as /metrics says it (apart from the catalogue: the functions that only count never carry it). */
export const metricHelp: Record<MetricKey, string> = {
  ingestRequests: 'Ingest requests by source, HTTP status and code (ACCEPTED or the error code)',
  ingestDuplicates:
    'Accepted requests that repeated an earlier one inside its deduplication window, by source: they add no row',
  envelopesWritten: 'Envelopes written to Delta tables, by source (each message id once)',
  envelopesExpired:
    "Staged envelopes not written because their day was already past the table's data retention, by source",
  envelopesLost:
    'Staged envelopes lost, by source: their staged object was gone at their last commit attempt, so they were set aside and never written',
  batchesCommitted: 'Delta commits made by the batch writer',
  batchFailures: 'Envelopes the batch writer could not commit and left for redelivery',
  deadLettered: 'Envelopes recorded as failed deliveries after exhausting their deliveries',
  unreadableDeadLetters:
    'Messages of the ingest dead-letter queue that named no envelope, kept as they were under dead-letters/unreadable/ in the platform bucket',
  redriven: 'Failed deliveries put back on the ingest queue',
  deadLettersDeleted:
    'Failed deliveries deleted without a redrive: their day was past the data retention, or their data set was deleted',
  jobsOfferedAgain:
    'Queued jobs the sweep offered again because their latest offer went unanswered for 15 minutes (lost on the jobs queue, or never sent)',
  jobs: 'Jobs by status (every job counted in its current status)',
};

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/**
 * Accepted envelopes neither written nor waiting as failed deliveries, nor known lost: accepted −
 * duplicates − written − expired − lost − (dead-lettered − redriven). While the writer works they are
 * on the ingest queue or staged; a figure that stays above that means envelopes went missing.
 */
export interface Accounting {
  accepted: number;
  duplicates: number;
  written: number;
  /** Left out on their way into the table: their day was past the data retention. */
  expired: number;
  /** Staged, and set aside unwritten when their staged object was gone: a loss with a figure (and an alarm) of its own. */
  lost: number;
  deadLettered: number;
  redriven: number;
}

export function unaccounted(figures: Accounting): number {
  return (
    figures.accepted -
    figures.duplicates -
    figures.written -
    figures.expired -
    figures.lost -
    (figures.deadLettered - figures.redriven)
  );
}

/** The counters the account is made of. */
export const accountingMetrics = [
  'ingestRequests',
  'ingestDuplicates',
  'envelopesWritten',
  'envelopesExpired',
  'envelopesLost',
  'deadLettered',
  'redriven',
] as const satisfies MetricKey[];

/**
 * Each source's unaccounted figure (only those not zero). Sources are accounted one by one: a source
 * whose `accepted` reads low (a door's counts lost with its instance) must not hide another's loss.
 */
export function unaccountedBySource(samples: ReadonlyMap<MetricKey, Sample[]>): Map<string, number> {
  const bySource = new Map<string, Accounting>();
  const add = (key: MetricKey, field: keyof Accounting, filter: (labels: Record<string, string>) => boolean) => {
    for (const sample of samples.get(key) ?? []) {
      const source = sample.labels.source_id;
      if (!source || source === 'unknown' || !filter(sample.labels)) continue;
      const figures = bySource.get(source) ?? {
        accepted: 0,
        duplicates: 0,
        written: 0,
        expired: 0,
        lost: 0,
        deadLettered: 0,
        redriven: 0,
      };
      figures[field] += sample.value;
      bySource.set(source, figures);
    }
  };
  add('ingestRequests', 'accepted', (labels) => labels.code === 'ACCEPTED');
  add('ingestDuplicates', 'duplicates', () => true);
  add('envelopesWritten', 'written', () => true);
  add('envelopesExpired', 'expired', () => true);
  add('envelopesLost', 'lost', () => true);
  add('deadLettered', 'deadLettered', () => true);
  add('redriven', 'redriven', () => true);
  const figures = new Map<string, number>();
  for (const [source, accounting] of bySource) {
    const figure = unaccounted(accounting);
    if (figure !== 0) figures.set(source, figure);
  }
  return figures;
}

/**
 * Envelopes unaccounted for across all sources, from the series of all sources (every count of a
 * source went to them too, receipts included): exact once what is counted has landed. Unlike the
 * sum of each source's figure, one source reading low for a while (a door's counts not written yet,
 * the envelopes already in their table) offsets another's; EnvelopesMissing, which pages, is
 * reckoned source by source. Never below 0.
 */
export function unaccountedOfAllSources(samples: ReadonlyMap<MetricKey, Sample[]>): number {
  const sum = (key: MetricKey, filter: (labels: Record<string, string>) => boolean = () => true) =>
    (samples.get(key) ?? [])
      .filter((sample) => isAllSources(key, sample.labels) && filter(sample.labels))
      .reduce((total, sample) => total + sample.value, 0);
  return Math.max(
    0,
    unaccounted({
      accepted: sum('ingestRequests', (labels) => labels.code === 'ACCEPTED'),
      duplicates: sum('ingestDuplicates'),
      written: sum('envelopesWritten'),
      expired: sum('envelopesExpired'),
      lost: sum('envelopesLost'),
      deadLettered: sum('deadLettered'),
      redriven: sum('redriven'),
    }),
  );
}

/** Envelopes unaccounted for across sources: each source's figure above zero, summed. */
export function unaccountedTotal(bySource: ReadonlyMap<string, number>): number {
  return [...bySource.values()].reduce((total, figure) => total + Math.max(0, figure), 0);
}

/** Where accepted envelopes wait, as the loss figure reads it. */
export interface Waiting {
  /** Rows staged for their commit, by source. */
  stagedBySource: ReadonlyMap<string, number>;
  /** Envelopes known only overall: on the ingest queue, on its dead-letter queue, and staged in records that name no sources. */
  elsewhere: number;
}

/**
 * Envelopes missing: those unaccounted for that are not where envelopes wait either. Staged rows are
 * set against their own source's figure: a staged row's accepted count has rarely landed yet (the
 * door defers its counts, receipts are raised at commit), so the standing staged pool, set against
 * the sum, would hide another source's loss of up to its size for as long as traffic flows. What is
 * known only overall (the queues' depth) is set against the sum.
 */
export function missingEnvelopes(bySource: ReadonlyMap<string, number>, waiting: Waiting): number {
  let total = 0;
  for (const [source, figure] of bySource) total += Math.max(0, figure - (waiting.stagedBySource.get(source) ?? 0));
  return Math.max(0, total - waiting.elsewhere);
}

/** Derived figures /metrics shows beside the stored ones. */
export const derivedMetrics = {
  unaccounted: {
    name: 'tributary_envelopes_unaccounted',
    help: 'Accepted envelopes neither written, waiting as failed deliveries, nor counted lost: on the ingest queue or staged while the writer works; above that, missing',
    type: 'gauge',
  },
} as const;

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function sampleLines(name: string, samples: Sample[]): string[] {
  return [...samples]
    .sort((a, b) => JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)))
    .map((sample) => {
      const labels = Object.entries(sample.labels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([label, value]) => `${label}="${escapeLabelValue(value)}"`)
        .join(',');
      return `${name}${labels ? `{${labels}}` : ''} ${sample.value}`;
    });
}

/** Samples reduced to the labels a metric exports (others summed away). */
function exportedSamples(spec: MetricSpec, samples: Sample[]): Sample[] {
  if (!spec.exported) return samples;
  const kept = spec.exported;
  const totals = new Map<string, Sample>();
  for (const sample of samples) {
    const labels = Object.fromEntries(Object.entries(sample.labels).filter(([label]) => kept.includes(label)));
    const key = JSON.stringify(labels);
    const total = totals.get(key) ?? { labels, value: 0 };
    total.value += sample.value;
    totals.set(key, total);
  }
  return [...totals.values()];
}

/**
 * The exposition. A metric without labels reads 0 before anything was counted (the Prometheus
 * client convention), so that an alert on its rate works from the first scrape. `unaccounted` is the
 * figure of envelopes unaccounted for the samples cover.
 */
export function renderPrometheus(samples: ReadonlyMap<MetricKey, Sample[]>, unaccounted: number): string {
  const lines: string[] = [];
  for (const [key, spec] of Object.entries(metricCatalogue) as [MetricKey, MetricSpec][]) {
    lines.push(`# HELP ${spec.name} ${metricHelp[key]}`, `# TYPE ${spec.name} ${spec.type}`);
    const exported = exportedSamples(spec, samples.get(key) ?? []);
    if (exported.length === 0 && spec.exported?.length === 0) exported.push({ labels: {}, value: 0 });
    lines.push(...sampleLines(spec.name, exported));
  }
  const { unaccounted: derived } = derivedMetrics;
  lines.push(`# HELP ${derived.name} ${derived.help}`, `# TYPE ${derived.name} ${derived.type}`);
  lines.push(`${derived.name} ${unaccounted}`);
  return `${lines.join('\n')}\n`;
}
