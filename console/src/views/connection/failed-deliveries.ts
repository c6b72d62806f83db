/**
 * A connection's failed deliveries (polled): envelopes whose write failed five times, kept to be
 * written again. Those who may operate the connection redrive some, one or all of them, after a
 * confirmation: they go back on the ingest queue.
 */
import { type Answer, api, type Body, qs, type Schemas } from '../../api.ts';
import { type Column, counted, el, replace, replaceOnChange, table, when } from '../../dom.ts';
import { type Act, type PolledPart, polledPart } from '../../view.ts';

type FailedDelivery = Schemas['FailedDelivery'];
type Redrive = '/api/connections/{connection_id}/failed-deliveries/redrive';

/** What one call of the redrive route takes at most. */
const redrivenPerCall = 250;

/** Redrives `ids` (all when undefined) and says how many went: a selection in slices, "all" until none waits. */
async function redrive(base: string, ids: string[] | undefined): Promise<number> {
  const call = (body: Body<Redrive, 'post'>) =>
    api<Answer<Redrive, 'post'>>(`${base}/failed-deliveries/redrive`, { method: 'POST', body });
  let redriven = 0;
  if (ids) {
    for (let i = 0; i < ids.length; i += redrivenPerCall)
      redriven += (await call({ message_ids: ids.slice(i, i + redrivenPerCall) })).redriven;
  } else {
    for (let remaining = 1; remaining > 0; ) {
      const result = await call({});
      redriven += result.redriven;
      remaining = result.redriven > 0 ? result.remaining : 0;
    }
  }
  return redriven;
}

/**
 * The list, and the confirmation it asks in; while that is open the page does not poll (`dialog[open]`),
 * which would redraw the rows under it.
 */
export function failedDeliveries(base: string, mayOperate: boolean, act: Act): PolledPart {
  const selected = new Set<string>();
  const dialog = el('dialog', { 'aria-labelledby': 'confirm-title' });
  let listed: FailedDelivery[] = [];

  /** Asks before redriving `ids` (all when undefined), with how many of those listed go. */
  const confirm = (ids: string[] | undefined) => {
    const chosen = ids && new Set(ids);
    const count = chosen ? listed.filter((f) => chosen.has(f.message_id)).length : listed.length;
    const go = () => {
      dialog.close();
      void act(async () => {
        const redriven = await redrive(base, ids);
        selected.clear();
        return `${redriven} redriven.`;
      });
    };
    replace(
      dialog,
      el('h2', { id: 'confirm-title' }, 'Redrive failed deliveries?'),
      el(
        'p',
        {},
        `${counted(count, 'failed delivery', 'failed deliveries')} ${count === 1 ? 'goes' : 'go'} back on the ingest queue and will be written to the data set (a message already written is never written twice).`,
      ),
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'button', class: 'primary', onclick: go }, 'Redrive'),
        el('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'),
      ),
    );
    dialog.showModal();
  };

  const selectColumn: Column<FailedDelivery> = {
    label: 'Select',
    cell: (f) =>
      el('input', {
        type: 'checkbox',
        'aria-label': `Select ${f.message_id}`,
        checked: selected.has(f.message_id),
        onchange: (event: Event) => {
          if ((event.target as HTMLInputElement).checked) selected.add(f.message_id);
          else selected.delete(f.message_id);
        },
      }),
  };
  const redriveColumn: Column<FailedDelivery> = {
    label: 'Redrive',
    cell: (f) =>
      el(
        'button',
        { type: 'button', 'aria-label': `Redrive ${f.message_id}`, onclick: () => confirm([f.message_id]) },
        'Redrive',
      ),
  };
  const columns: Column<FailedDelivery>[] = [
    ...(mayOperate ? [selectColumn] : []),
    { label: 'Message id', header: true, cell: (f) => el('code', {}, f.message_id) },
    { label: 'Failed at', cell: (f) => when(f.failed_at) },
    { label: 'Attempts', cell: (f) => f.attempts },
    { label: 'Last error', cell: (f) => f.last_error },
    ...(mayOperate ? [redriveColumn] : []),
  ];
  const actions = () =>
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'button', onclick: () => selected.size > 0 && confirm([...selected]) }, 'Redrive selected'),
      el('button', { type: 'button', onclick: () => confirm(undefined) }, 'Redrive all'),
    );

  const list = polledPart(
    () =>
      api<Answer<'/api/connections/{connection_id}/failed-deliveries'>>(
        `${base}/failed-deliveries${qs({ limit: 100 })}`,
      ),
    (element, { failed_deliveries: failed }) => {
      listed = failed;
      const present = new Set(failed.map((f) => f.message_id));
      for (const id of selected) if (!present.has(id)) selected.delete(id);
      // Drawn again only when the list changed: a button or a checkbox being clicked stays.
      replaceOnChange(
        element,
        JSON.stringify(failed),
        mayOperate && failed.length > 0 ? actions() : null,
        table<FailedDelivery>('Envelopes whose write failed five times', columns, failed, 'No failed deliveries'),
      );
    },
  );
  return { element: el('div', {}, list.element, dialog), refresh: list.refresh };
}
