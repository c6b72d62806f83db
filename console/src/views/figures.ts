/**
 * A connection's figures as the overview and the connection view both show them: the counts, what
 * waits in staging, and a failing commit, which must not go unnoticed (its rows become failed
 * deliveries after the last attempt).
 */
import type { Stats } from '../api.ts';
import { age, type Child, counted, el, when } from '../dom.ts';

/** Commit attempts before staged rows become failed deliveries (the API's five, as the queue's five receives). */
export const commitAttempts = 5;

export const rejectedText = (rejected: Record<string, number>): string =>
  Object.entries(rejected)
    .filter(([, count]) => count > 0)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ') || '0';

/** Staged rows are safe, only not in the table yet: the label says so, lest they read as a loss. */
export const stagedLabel = 'Staged (awaiting commit)';

export function statsCells<T extends { stats: Stats | null }>() {
  const figure = (pick: (stats: Stats) => Child) => (row: T) => (row.stats ? pick(row.stats) : '…');
  return [
    { label: 'Accepted', cell: figure((stats) => stats.accepted) },
    { label: 'Duplicates', cell: figure((stats) => stats.duplicates) },
    { label: 'Rejected', cell: figure((stats) => rejectedText(stats.rejected)) },
    { label: 'Written', cell: figure((stats) => stats.written_rows) },
    {
      label: stagedLabel,
      cell: figure((stats) =>
        stats.commit_failure ? el('span', { class: 'bad' }, `${stats.staged_rows}, commit failing`) : stats.staged_rows,
      ),
    },
    { label: 'Dead-lettered', cell: figure((stats) => stats.dead_lettered) },
    {
      label: 'Lost',
      cell: figure((stats) => (stats.lost_rows > 0 ? el('span', { class: 'bad' }, stats.lost_rows) : 0)),
    },
    { label: 'Last ingest', cell: figure((stats) => when(stats.last_ingest_at)) },
    { label: 'Last write', cell: figure((stats) => when(stats.last_write_at)) },
    { label: 'Oldest staged', cell: figure((stats) => age(stats.oldest_unwritten_age_seconds)) },
  ];
}

/** What a failing commit means for the rows it holds, in words. */
export function commitFailureText(stats: Stats & { commit_failure: NonNullable<Stats['commit_failure']> }): string {
  const one = stats.staged_rows === 1;
  const left = commitAttempts - stats.commit_failure.attempts;
  const waiting = `${counted(stats.staged_rows, 'row')} accepted and staged ${one ? 'waits' : 'wait'} for the table, kept safe`;
  const then = `${one ? 'it becomes a failed delivery' : 'they become failed deliveries'} (redrivable once the table can be written)`;
  return left > 0
    ? `${waiting}, and ${one ? 'is' : 'are'} tried again shortly. If ${left === 1 ? 'the last attempt fails' : `the ${left} attempts left fail`}, ${then}.`
    : `${waiting}; ${then}.`;
}

/**
 * Where a connection's accepted requests are, in terms that add up to `accepted` (the API's
 * `unaccounted` is what is staged plus what is still on the ingest queue). Only `lost` is a loss.
 */
export function accountOf(stats: Stats): [term: string, value: Child, id: string][] {
  const waitingFailed = stats.dead_lettered - stats.redriven - stats.deleted_dead_letters;
  const onQueue = stats.unaccounted - stats.staged_rows;
  return [
    ['Accepted (answered 202)', stats.accepted, 'account-accepted'],
    ['Written to the table', stats.written_rows, 'account-written'],
    ['Duplicates (repeats of an earlier request: no row of their own)', stats.duplicates, 'account-duplicates'],
    ['Staged (waiting for the table’s commit, kept safe)', stats.staged_rows, 'account-staged'],
    [
      'On the ingest queue (on their way to staging; should one stay there once nothing arrives, it went missing)',
      onQueue,
      'account-queued',
    ],
    [
      'Failed deliveries waiting for a redrive',
      `${waitingFailed} (${stats.dead_lettered} dead-lettered, ${stats.redriven} redriven${stats.deleted_dead_letters > 0 ? `, ${stats.deleted_dead_letters} deleted past the data retention` : ''})`,
      'account-failed',
    ],
    ['Expired (their day was past the table’s data retention)', stats.expired_rows, 'account-expired'],
    [
      'Lost (staged, but the staged copy was gone at its commit)',
      stats.lost_rows > 0 ? el('span', { class: 'bad' }, stats.lost_rows) : 0,
      'account-lost',
    ],
  ];
}

/** The connection view's warning: prominent, with the error as the API gives it. */
export function commitFailureAlert(stats: Stats): HTMLElement | null {
  if (!stats.commit_failure) return null;
  const failure = stats.commit_failure;
  return el(
    'div',
    { class: 'warning', role: 'alert' },
    el('strong', {}, `Commits to the table are failing: attempt ${failure.attempts} of ${commitAttempts} failed.`),
    el('p', {}, 'Last error: ', el('code', { class: 'last-error' }, failure.last_error)),
    el('p', {}, commitFailureText({ ...stats, commit_failure: failure })),
  );
}

/** A freshness target in words (seconds). */
export const freshnessText = (seconds: number): string =>
  seconds === 0 ? '0 s: each batch is committed as it arrives' : age(seconds);
