/**
 * What the schedule does with staged tables (shared/domain/ingest/staging.ts) that commit triggers
 * do not: the figure of how far past its freshness target the most overdue table is, a trigger for a
 * listed table whose own is overdue (a committer that crashed on it, a trigger dead-lettered), and
 * at a graceful stop of local mode, the commit of everything staged.
 */
import { forEachAtMost } from '../at-most.ts';
import {
  addToReport,
  type CommitOptions,
  type CommitReport,
  type CommitStagedDeps,
  commitStagedTable,
  emptyReport,
} from './commit-staged.ts';

/**
 * How long past its due time a listed table may go before it counts as overdue, and past its
 * trigger's arrival before another trigger is sent: a trigger is handled within seconds of arriving.
 */
export const overdueGraceMs = 60_000;

export interface OverdueReport {
  /**
   * Milliseconds the most overdue listed table is past its due time (0 when none is past the grace); null when the
   * platform's own table or queue failed the check this run (slow, throttling): no figure, rather than a wrong one,
   * and the next run checks again. Minutes without a figure are what the alarm watches for a check that keeps failing.
   */
  overdueMs: number | null;
  /** Tables listed due past the grace. */
  overdue: number;
  /** Tables sent another trigger. */
  triggered: number;
  /** At a graceful stop: what was committed. */
  committed: CommitReport | null;
}

/**
 * Check the staged tables that are overdue.
 * Input: the options (a graceful stop commits everything). Output: the overdue figure, triggers sent.
 *  1. Read the listed tables due before now less the grace (the index holds only tables with staged
 *     rows, each listed once: this reads nothing while every table is on time).
 *  2. A table whose trigger should have arrived over the grace ago, and that no committer holds, is
 *     sent another trigger (one at once), and listed with it.
 *  3. At a graceful stop, every listed table is committed whatever its target (not one waiting
 *     after a failure), before the figure is read.
 *  4. The platform's own table or queue failing the check (slow, throttling) ends the run without a
 *     figure (or without the triggers, for the next run to send), not as a failed invocation: one
 *     slow minute pages no one, and a check that keeps failing leaves the figure missing, which its
 *     alarm takes as breaching.
 */
export async function checkOverdue(
  deps: CommitStagedDeps,
  options: Omit<CommitOptions, 'everything'> & { stopping: boolean; concurrency: number },
): Promise<OverdueReport> {
  let committed: CommitReport | null = null;
  if (options.stopping) {
    const report = emptyReport();
    await forEachAtMost(await deps.records.listed(), options.concurrency, async ({ tableId }) => {
      addToReport(report, tableId, await commitStagedTable(deps, tableId, [], { ...options, everything: true }));
    });
    committed = report;
  }
  const now = deps.now();
  let overdue: Awaited<ReturnType<typeof deps.records.listed>>;
  try {
    overdue = await deps.records.listed(now - overdueGraceMs);
  } catch (error) {
    if (options.stopping || !deps.dependencyFailed(error as Error)) throw error;
    return { overdueMs: null, overdue: 0, triggered: 0, committed };
  }
  let overdueMs = 0;
  const lost = [];
  for (const { tableId, head } of overdue) {
    if (head.dueAt !== null) overdueMs = Math.max(overdueMs, now - head.dueAt);
    const held = head.leases.some((lease) => lease.until > now);
    if (!held && (head.triggerAt === null || head.triggerAt < now - overdueGraceMs))
      lost.push({ tableId, dueAt: head.dueAt ?? now });
  }
  if (lost.length > 0) {
    try {
      await deps.triggers.send(lost.map(({ tableId }) => ({ tableId, at: now })));
      await forEachAtMost(lost, 16, ({ tableId, dueAt }) =>
        deps.records.listPending(tableId, { dueAt, triggerAt: now }, now),
      );
    } catch (error) {
      // The tables stay listed with their overdue trigger: the next run sends them another.
      if (options.stopping || !deps.dependencyFailed(error as Error)) throw error;
      return { overdueMs, overdue: overdue.length, triggered: 0, committed };
    }
  }
  return { overdueMs, overdue: overdue.length, triggered: lost.length, committed };
}
