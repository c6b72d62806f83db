/**
 * The table-commits schedule: reports how far past its freshness target the most overdue staged
 * table is (StagedOverdueSeconds, every run: 0 when none is, so that its alarm sees a missing figure
 * as a stopped schedule), and sends another commit trigger for a table whose own is overdue (a
 * committer that crashed on it). Commit triggers do the committing (functions/ingest/commit-tables.ts).
 * At a graceful stop of local mode (`detail.stopping`) it commits everything staged itself, so the
 * tables are whole while it is down. Each run also syncs the Iceberg metadata of the tables marked
 * due (shared/domain/datasets/iceberg.ts), so that it trails their Delta version by minutes at most.
 */
import { catchUpIceberg } from '#shared/domain/datasets/iceberg.ts';
import { checkOverdue } from '#shared/domain/ingest/staged-overdue.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';
import { committing, scheduleDeps, stagingDeps } from './wiring.ts';

export const handler = scheduledHandler(async (event, context) => {
  const stopping = (event.detail as { stopping?: unknown } | undefined)?.stopping === true;
  const report = await checkOverdue(stagingDeps, {
    ...committing(context.getRemainingTimeInMillis(), 8),
    stopping,
  });
  if (report.overdueMs === null)
    logger.warn('The overdue check could not read the staged tables this minute; the next run checks again', {});
  else scheduleDeps.emitGauge('StagedOverdueSeconds', Math.max(0, Math.round(report.overdueMs / 1000)));
  if (report.triggered > 0)
    logger.warn('Staged tables whose commit trigger is overdue were sent another', {
      tables: report.triggered,
      overdue: report.overdue,
    });
  const committed = report.committed;
  if (committed && committed.committed.length + committed.deadLettered.length + committed.failed.length > 0)
    logger.info('Staged tables committed at the stop', {
      committed: committed.committed.length,
      written: committed.written,
      skipped: committed.skipped,
      dead_lettered: committed.deadLettered.length,
      failed: committed.failed.length,
    });
  const iceberg = await catchUpIceberg(scheduleDeps.icebergCatchUp, {
    deadline: stagingDeps.now() + context.getRemainingTimeInMillis(),
    concurrency: 4,
  });
  if (iceberg.synced + iceberg.failed > 0) logger.info('Iceberg metadata caught up', iceberg);
  if (iceberg.interrupted)
    logger.warn('The Iceberg catch-up met a slow dependency; the tables still marked due wait for the next run', {});
});
