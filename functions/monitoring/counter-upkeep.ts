/**
 * Every five minutes: the shared counters' upkeep, and the figure that shows a loss.
 *  1. Epochs of the counters that settled over an hour ago are folded (shared/adapters/dynamo/counters.ts),
 *     and the sources folded whole keep their unaccounted figure apart while it is not 0.
 *  2. Envelopes missing = accepted envelopes neither written, waiting as failed deliveries, staged for
 *     their commit (read from each table the index lists as pending: EnvelopesStaged), nor on the
 *     ingest queue or its dead-letter queue, over the sources that moved since the last fold and those
 *     settled with a figure. Staged rows are set against their own source's figure (records staged
 *     before they named their sources, and the queues' depth, against the sum), so that one source's
 *     standing staged pool never hides another's loss. It goes to CloudWatch (EnvelopesMissing), where
 *     an alarm watches it. A loss stays in it for good; a figure caught between a count and the queue's
 *     own (approximate) depth lasts one reading, which the alarm's three readings in a row ride out.
 */
import { foldSettledEpochs, keepSettledFigures, readRecentCounters } from '#shared/adapters/dynamo/counters.ts';
import { stagedOverall } from '#shared/adapters/dynamo/staging-heads.ts';
import { emitGauge } from '#shared/adapters/metrics.ts';
import { queueDepth } from '#shared/adapters/sqs/queue-depth.ts';
import { missingEnvelopes } from '#shared/domain/observability/metric-catalogue.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

export const handler = scheduledHandler(async () => {
  const { folded, sources: settled } = await foldSettledEpochs();
  await keepSettledFigures(settled);
  const [{ unaccounted }, queued, deadLetters, staged] = await Promise.all([
    readRecentCounters(),
    queueDepth('ingest'),
    queueDepth('ingestDeadLetter'),
    stagedOverall(),
  ]);
  const missing = missingEnvelopes(unaccounted, {
    stagedBySource: staged.bySource,
    elsewhere: queued + deadLetters + staged.unattributed,
  });
  emitGauge('EnvelopesMissing', missing);
  emitGauge('EnvelopesStaged', staged.rows);
  if (missing > 0) {
    const lossy = [...unaccounted].filter(([source, figure]) => figure > (staged.bySource.get(source) ?? 0));
    logger.warn('Accepted envelopes are neither written, failed deliveries, staged, nor queued', {
      missing,
      queued: queued + deadLetters,
      staged: staged.rows,
      staged_unattributed: staged.unattributed,
      // Each source whose figure its own staged rows do not cover: its figure and its staged rows.
      unaccounted_by_source: Object.fromEntries(
        lossy
          .slice(0, 20)
          .map(([source, figure]) => [source, { unaccounted: figure, staged: staged.bySource.get(source) ?? 0 }]),
      ),
    });
  }
  if (folded > 0) logger.info('Folded settled counter epochs', { folded, sources: settled.size });
});
