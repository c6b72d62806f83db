/**
 * The data set's freshness target: shown to everyone, set by those the table-properties route lets
 * (it asks for data-sets.delete, a tenant admin's: table properties decide when files go).
 */
import { api, type Body, type TableProperties } from '../../api.ts';
import { el, errorBox, facts, notice, outcomeRegion, replace, showOutcome } from '../../dom.ts';
import { freshnessText } from '../figures.ts';

const freshnessProperty = 'tributary.freshness';
const units = [
  ['seconds', 1],
  ['minutes', 60],
  ['hours', 3600],
] as const;

/** `load` reads the table's properties (once: nothing else changes them while the page is open). */
export function freshnessTarget(dataSetId: string, mayTune: boolean) {
  const path = `api/data-sets/${dataSetId}/table-properties`;
  const element = el('div');
  const outcome = outcomeRegion();
  let current: TableProperties | null = null;

  const value = el('input', {
    id: 'freshness-value',
    name: 'freshness-value',
    type: 'number',
    min: 0,
    step: 1,
    required: true,
    size: 6,
  });
  const unit = el(
    'select',
    { id: 'freshness-unit', name: 'freshness-unit', 'aria-label': 'Unit of the freshness target' },
    units.map(([name]) => el('option', { value: name }, name)),
  );
  const set = (properties: Record<string, string>) =>
    showOutcome(outcome, async () => {
      const body: Body<'/api/data-sets/{data_set_id}/table-properties', 'put'> = { properties };
      current = await api<TableProperties>(path, { method: 'PUT', body });
      draw();
      return notice(`Freshness target set to ${freshnessText(current.effective.freshness_seconds)}.`);
    });
  const form = el(
    'form',
    {
      class: 'lookup',
      'aria-label': 'Set the freshness target',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void set({ [freshnessProperty]: `interval ${value.value} ${unit.value}` });
      },
    },
    el('label', { for: 'freshness-value' }, 'New target'),
    value,
    unit,
    el('button', { type: 'submit' }, 'Set target'),
  );
  const useDefault = el(
    'button',
    { type: 'button', onclick: () => void set({ [freshnessProperty]: '' }) },
    'Use the deployment’s default',
  );

  function draw() {
    const seconds = current?.effective.freshness_seconds;
    const own = current?.properties[freshnessProperty];
    // The form shows the target in force, in the largest unit that holds it whole (not while being typed in).
    if (seconds !== undefined && !value.matches(':focus')) {
      const [name, size] = [...units].reverse().find(([, size]) => seconds > 0 && seconds % size === 0) ?? units[0];
      value.value = String(seconds / size);
      unit.value = name;
    }
    replace(
      element,
      facts([
        'Freshness target',
        seconds === undefined
          ? '—'
          : `${freshnessText(seconds)} (${own ? `set on this table: ${own}` : 'the deployment’s default'})`,
        'freshness-target',
      ]),
      el(
        'p',
        { class: 'muted' },
        'Accepted webhooks are staged, kept safe, then committed to the table together once the oldest has waited this long (sooner when enough bytes are staged). Until then the events view lists them as pending. A longer target makes fewer commits and larger files.',
      ),
      mayTune ? [form, own ? useDefault : null] : null,
      outcome,
    );
  }

  draw();
  return {
    element,
    async load() {
      try {
        current = await api<TableProperties>(path);
        draw();
      } catch (error) {
        draw();
        replace(outcome, errorBox(error));
      }
    },
  };
}
