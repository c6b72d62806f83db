/**
 * A connection's figures since it was created, polled, with where its accepted requests are (in
 * terms that add up); and, above everything on the page, a failing commit: its rows wait in
 * staging and become failed deliveries after the last attempt.
 */
import { api, type Stats } from '../../api.ts';
import { el, facts, replace, replaceOnChange, table } from '../../dom.ts';
import { polledPart } from '../../view.ts';
import { accountOf, commitFailureAlert, statsCells } from '../figures.ts';

export function connectionFigures(base: string) {
  const alert = el('div');
  const figures = polledPart(
    () => api<Stats>(`${base}/stats`),
    (element, stats) => {
      replaceOnChange(alert, JSON.stringify([stats.commit_failure, stats.staged_rows]), commitFailureAlert(stats));
      replace(
        element,
        table<{ stats: Stats }>('Since the connection was created', statsCells(), [{ stats }]),
        el('h3', { id: 'account-title' }, 'Where the accepted requests are'),
        el('div', { 'aria-labelledby': 'account-title', role: 'group' }, facts(...accountOf(stats))),
      );
    },
  );
  return {
    alert,
    element: el(
      'div',
      {},
      figures.element,
      el(
        'p',
        { class: 'muted' },
        'Staged: accepted, kept safe and waiting for the table’s next commit (within its freshness target, below); they are listed as pending events meanwhile. Oldest staged: how long the oldest of them has waited since its 202. Lost: staged, but their staged copy was gone at their commit; they never reach the table, the only figure that is a loss (failed deliveries can be redriven).',
      ),
    ),
    refresh: figures.refresh,
  };
}
