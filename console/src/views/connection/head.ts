/**
 * The head of a connection's page: its name and state, where senders send, its token (the prefix
 * only: the whole token is shown once), its data set and a link to its events; and, for those who
 * may operate it, pausing and resuming its source.
 */
import { api, type Connection } from '../../api.ts';
import { el, facts, replace } from '../../dom.ts';
import type { Act } from '../../view.ts';

export function connectionHead(first: Connection, ingestUrl: string, mayOperate: boolean, act: Act): HTMLElement {
  const element = el('div');
  const base = `api/connections/${first.connection_id}`;
  let connection = first;

  const move = async (action: 'pause-source' | 'resume-source', done: string) => {
    await api(`${base}/${action}`, { method: 'POST' });
    connection = await api<Connection>(base);
    draw();
    return done;
  };

  const sourceButton = () => {
    const [action, label, done] =
      connection.source_status === 'Paused'
        ? (['resume-source', 'Resume source', 'Source resumed.'] as const)
        : (['pause-source', 'Pause source', 'Source paused.'] as const);
    return el('button', { type: 'button', onclick: () => void act(() => move(action, done)) }, label);
  };

  function draw() {
    replace(
      element,
      el('h1', {}, `Connection ${connection.name}`),
      facts(
        ['State', `${connection.status}, source ${connection.source_status}`],
        ['Ingest URL', el('code', {}, ingestUrl)],
        ['Token', `${connection.token_prefix}… (shown once, when the connection was created or its token regenerated)`],
        ['Data set', el('code', {}, connection.data_set_id)],
      ),
      mayOperate ? el('div', { class: 'actions' }, sourceButton()) : null,
      el(
        'p',
        {},
        el('a', { href: `#/connections/${connection.connection_id}/events` }, 'Events: what arrived, with bodies'),
      ),
    );
  }

  draw();
  return element;
}
