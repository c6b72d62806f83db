/**
 * A connection's figures since it was created, polled; and, above everything on the page, a
 * failing commit: its rows wait in staging and become failed deliveries after the last attempt.
 */
import { api, type Stats } from '../../api.ts';
import { el, replace, replaceOnChange, table } from '../../dom.ts';
import { polledPart } from '../../view.ts';
import { commitFailureAlert, statsCells } from '../figures.ts';

export function connectionFigures(base: string) {
  const alert = el('div');
  const figures = polledPart(
    () => api<Stats>(`${base}/stats`),
    (element, stats) => {
      replaceOnChange(alert, JSON.stringify([stats.commit_failure, stats.staged_rows]), commitFailureAlert(stats));
      replace(element, table<{ stats: Stats }>('Since the connection was created', statsCells(), [{ stats }]));
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
        'Staged: accepted, kept safe and waiting for the table’s next commit (within its freshness target, below); they are listed as pending events meanwhile. Oldest staged: how long the oldest of them has waited since its 202.',
      ),
    ),
    refresh: figures.refresh,
  };
}
