/**
 * Every five minutes: the shared counters' upkeep, and the figure that shows a loss.
 *  1. Epochs of the counters that settled over an hour ago are folded (shared/adapters/dynamo/counters.ts).
 *  2. Envelopes missing = accepted envelopes neither written, waiting as failed deliveries, staged for
 *     their commit (read from each table listed as pending: EnvelopesStaged), nor on the ingest queue
 *     or its dead-letter queue; it goes to CloudWatch (EnvelopesMissing), where an alarm watches it. A loss stays in it for good; a figure caught between a count and the queue's own
 *     (approximate) depth lasts one reading, which the alarm's three readings in a row ride out.
 */
import { foldSettledEpochs, readCounter } from '#shared/adapters/dynamo/counters.ts';
import { stagedOverall } from '#shared/adapters/dynamo/staging-heads.ts';
import { emitGauge } from '#shared/adapters/metrics.ts';
import { queueDepth } from '#shared/adapters/sqs/queue-depth.ts';
import {
  accountingMetrics,
  type MetricKey,
  type Sample,
  unaccountedBySource,
  unaccountedTotal,
} from '#shared/domain/observability/metric-catalogue.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

export const handler = scheduledHandler(async () => {
  const folded = await foldSettledEpochs();
  const [samples, queued, deadLetters, staged] = await Promise.all([
    Promise.all(accountingMetrics.map(async (metric) => [metric, await readCounter(metric)] as const)),
    queueDepth('ingest'),
    queueDepth('ingestDeadLetter'),
    stagedOverall(),
  ]);
  const counters = new Map<MetricKey, Sample[]>(samples);
  const sources = unaccountedBySource(counters);
  const total = unaccountedTotal(counters);
  const missing = Math.max(0, total - queued - deadLetters - staged.rows);
  emitGauge('EnvelopesMissing', missing);
  emitGauge('EnvelopesStaged', staged.rows);
  if (missing > 0)
    logger.warn('Accepted envelopes are neither written, failed deliveries, nor queued', {
      missing,
      queued: queued + deadLetters,
      staged: staged.rows,
      unaccounted_by_source: Object.fromEntries([...sources].filter(([, figure]) => figure > 0).slice(0, 20)),
    });
  if (folded > 0) logger.info('Folded settled counter epochs', { folded });
});
