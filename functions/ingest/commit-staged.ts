/**
 * The table-commits schedule: commits every staged table that is due (its oldest envelope reached its
 * freshness target, or its staged bytes the size target), one pass at a time, and reports what stays
 * staged (EnvelopesStaged) and how far past its target the most overdue table is (StagedOverdueSeconds:
 * commits falling behind, or a store failing) for the dashboard and the alarms. At a graceful stop of
 * local mode (`detail.stopping`) it commits everything staged, so the tables are whole while it is down.
 */
import { emitGauge } from '#shared/adapters/metrics.ts';
import { stagingDeps } from '#shared/adapters/staged-commits.ts';
import { commitStaged } from '#shared/domain/ingest/staging.ts';
import { logger } from '#shared/observability/logger.ts';
import { scheduledHandler } from '#shared/queue-handler.ts';

export const handler = scheduledHandler(async (event, context) => {
  const stopping = (event.detail as { stopping?: unknown } | undefined)?.stopping === true;
  const deadline = stagingDeps.now() + context.getRemainingTimeInMillis();
  const report = await commitStaged(stagingDeps, { everything: stopping, deadline });
  if (!report.ran) return;
  let rows = 0;
  for (const totals of report.staged.values()) rows += totals.rows;
  emitGauge('EnvelopesStaged', rows);
  emitGauge('StagedOverdueSeconds', Math.max(0, Math.round(report.overdueMs / 1000)));
  if (report.committed.length + report.deadLettered.length + report.failed.length > 0)
    logger.info('Staged tables committed', {
      committed: report.committed.length,
      written: report.written,
      skipped: report.skipped,
      expired: report.expired,
      dead_lettered: report.deadLettered.length,
      failed: report.failed.length,
      staged_tables: report.staged.size,
      staged_rows: rows,
    });
});
