/**
 * The metrics Tributary exports at /metrics (Prometheus text format 0.0.4). Counters live in the
 * table (shared/adapters/dynamo/counters.ts) so that every function instance adds to the same figures.
 */

export interface MetricSpec {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  /** The CloudWatch (EMF) metric with the same figure, and the labels that become its dimensions. */
  cloudWatch: { name: string; dimensions: string[] };
}

export const metricCatalogue = {
  ingestRequests: {
    name: 'tributary_ingest_requests_total',
    help: 'Ingest requests by source, HTTP status and code (ACCEPTED or the error code)',
    type: 'counter',
    cloudWatch: { name: 'IngestRequests', dimensions: ['status'] },
  },
  envelopesWritten: {
    name: 'tributary_envelopes_written_total',
    help: 'Envelopes written to Delta tables, by source (each message id once)',
    type: 'counter',
    cloudWatch: { name: 'EnvelopesWritten', dimensions: [] },
  },
  batchesCommitted: {
    name: 'tributary_batches_committed_total',
    help: 'Delta commits made by the batch writer',
    type: 'counter',
    cloudWatch: { name: 'BatchesCommitted', dimensions: [] },
  },
  batchFailures: {
    name: 'tributary_batch_failures_total',
    help: 'Envelopes the batch writer could not commit and left for redelivery, by reason',
    type: 'counter',
    cloudWatch: { name: 'BatchFailures', dimensions: [] },
  },
  deadLettered: {
    name: 'tributary_dead_lettered_total',
    help: 'Envelopes recorded as failed deliveries after exhausting their deliveries, by source',
    type: 'counter',
    cloudWatch: { name: 'DeadLettered', dimensions: [] },
  },
  jobs: {
    name: 'tributary_jobs',
    help: 'Jobs by status (every job counted in its current status)',
    type: 'gauge',
    cloudWatch: { name: 'JobTransitions', dimensions: ['status'] },
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof metricCatalogue;

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function renderPrometheus(samples: ReadonlyMap<MetricKey, Sample[]>): string {
  const lines: string[] = [];
  for (const [key, spec] of Object.entries(metricCatalogue) as [MetricKey, MetricSpec][]) {
    lines.push(`# HELP ${spec.name} ${spec.help}`, `# TYPE ${spec.name} ${spec.type}`);
    const metricSamples = [...(samples.get(key) ?? [])].sort((a, b) =>
      JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)),
    );
    for (const sample of metricSamples) {
      const labels = Object.entries(sample.labels)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, value]) => `${name}="${escapeLabelValue(value)}"`)
        .join(',');
      lines.push(`${spec.name}${labels ? `{${labels}}` : ''} ${sample.value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
