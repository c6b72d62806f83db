/**
 * Every five minutes: the shared counters' upkeep, and the figure that shows a loss.
 *  1. Epochs of the counters that settled over an hour ago are folded (shared/adapters/dynamo/counters.ts).
 *  2. Envelopes missing = accepted envelopes neither written, waiting as failed deliveries, nor on the
 *     ingest queue or its dead-letter queue; it goes to CloudWatch (EnvelopesMissing), where an alarm
 *     watches it. A loss stays in it for good; a figure caught between a count and the queue's own
 *     (approximate) depth lasts one reading, which the alarm's three readings in a row ride out.
 */
import { foldSettledEpochs, readCounter } from '#shared/adapters/dynamo/counters.ts';
import { emitGauge } from '#shared/adapters/metrics.ts';
import { queueDepth } from '#shared/adapters/sqs/queue-depth.ts';
import { type MetricKey, unaccounted } from '#shared/domain/observability/metric-catalogue.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

async function bySource(metric: MetricKey, filter: (labels: Record<string, string>) => boolean = () => true) {
  const totals = new Map<string, number>();
  for (const sample of await readCounter(metric)) {
    const source = sample.labels.source_id;
    if (!source || !filter(sample.labels)) continue;
    totals.set(source, (totals.get(source) ?? 0) + sample.value);
  }
  return totals;
}

export const handler = scheduledHandler(async () => {
  const folded = await foldSettledEpochs();
  const [accepted, duplicates, written, deadLettered, redriven, queued, deadLetters] = await Promise.all([
    bySource('ingestRequests', (labels) => labels.code === 'ACCEPTED'),
    bySource('ingestDuplicates'),
    bySource('envelopesWritten'),
    bySource('deadLettered'),
    bySource('redriven'),
    queueDepth('ingest'),
    queueDepth('ingestDeadLetter'),
  ]);
  const sources = new Map<string, number>();
  for (const source of accepted.keys()) {
    const figure = unaccounted({
      accepted: accepted.get(source) ?? 0,
      duplicates: duplicates.get(source) ?? 0,
      written: written.get(source) ?? 0,
      deadLettered: deadLettered.get(source) ?? 0,
      redriven: redriven.get(source) ?? 0,
    });
    if (figure !== 0) sources.set(source, figure);
  }
  const total = [...sources.values()].reduce((sum, figure) => sum + figure, 0);
  const missing = Math.max(0, total - queued - deadLetters);
  emitGauge('EnvelopesMissing', missing);
  if (missing > 0)
    logger.warn('Accepted envelopes are neither written, failed deliveries, nor queued', {
      missing,
      queued: queued + deadLetters,
      unaccounted_by_source: Object.fromEntries([...sources].filter(([, figure]) => figure > 0).slice(0, 20)),
    });
  if (folded > 0) logger.info('Folded settled counter epochs', { folded });
});
