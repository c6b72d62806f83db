/**
 * Every five minutes: the counters' upkeep handed to its workers, and the figure that shows a loss.
 *  1. Each settled window of the counters' index, and each settled quarter to fold, goes to the
 *     upkeep queue as a piece per shard (shared/domain/observability/counter-upkeep.ts), for
 *     functions/monitoring/counter-upkeep-worker.ts: the work follows what moved, over as many workers
 *     as it takes. This run reads no source.
 *  2. Envelopes missing = accepted envelopes neither written, waiting as failed deliveries, staged for
 *     their commit, nor on the ingest queue or its dead-letter queue: the figures the workers keep,
 *     each a source's envelopes unaccounted for beyond its own staged rows when they last read it
 *     (so that one source's standing staged pool never hides another's loss), summed, less the
 *     queues' depth. It goes to CloudWatch (EnvelopesMissing), where an alarm watches it. A loss
 *     stays in it for good; a figure caught between a count and the queue's own (approximate) depth
 *     lasts a reading or two, which the alarm's three readings in a row ride out.
 */
import {
  keptFiguresOf,
  moveFiguresKeptBeforeShards,
  shardOfSource,
  upkeepMarks,
  upkeepProbe,
  upkeepSettings,
} from '#shared/adapters/dynamo/counters.ts';
import { emitGauge } from '#shared/adapters/metrics.ts';
import { queueDepth } from '#shared/adapters/sqs/queue-depth.ts';
import { sendUpkeepPieces } from '#shared/adapters/sqs/upkeep-queue.ts';
import { planUpkeep } from '#shared/domain/observability/counter-upkeep.ts';
import { missingEnvelopes } from '#shared/domain/observability/metric-catalogue.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

export const handler = scheduledHandler(async () => {
  const now = Date.now();
  await moveFiguresKeptBeforeShards();
  const [kept, queued, deadLetters] = await Promise.all([
    keptFiguresOf(),
    queueDepth('ingest'),
    queueDepth('ingestDeadLetter'),
  ]);
  // Pieces only for the shards with something to read: a window's that moved or keep a figure, a quarter's with entries.
  const probe = upkeepProbe(new Set([...kept.keys()].map(shardOfSource)), now);
  const plan = await planUpkeep({ ...upkeepMarks, ...probe, send: sendUpkeepPieces }, now, upkeepSettings());
  const missing = missingEnvelopes(new Map([...kept].map(([source, figure]) => [source, figure.unaccounted])), {
    stagedBySource: new Map([...kept].map(([source, figure]) => [source, figure.staged])),
    elsewhere: queued + deadLetters,
  });
  emitGauge('EnvelopesMissing', missing);
  if (missing > 0)
    logger.warn('Accepted envelopes are neither written, failed deliveries, staged, nor queued', {
      missing,
      queued: queued + deadLetters,
      // Each source whose figure its own staged rows did not cover: its figure and its staged rows.
      unaccounted_by_source: Object.fromEntries([...kept].slice(0, 20)),
    });
  if (plan.windows > 0 || plan.folds > 0) logger.info('Handed out the counters’ upkeep', plan);
});
