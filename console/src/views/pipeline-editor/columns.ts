/**
 * The columns of a pipeline being edited: a table in which each can be left out, renamed, pointed
 * at another path or given another type, and a column added. `suggest` fills it from what the data
 * set's recent payloads hold: their paths, the type each looks like, and how often each was seen.
 */
import { type Answer, api, type Body, type Schemas } from '../../api.ts';
import { type Child, chosen, counted, el, errorBox, replace, select, table } from '../../dom.ts';

export type Definition = Body<'/api/pipelines/{pipeline_id}/update-definition', 'post'>['definition'];
type SuggestBody = Body<'/api/data-sets/{data_set_id}/suggest-columns', 'post'>;
/** A column being edited: as a definition holds it, with how often a suggestion saw its path. */
type Column = Definition['columns'][number] & Partial<Pick<Schemas['ColumnSuggestion']['columns'][number], 'seen'>>;
type Row = Column & { index: number };

const types = ['string', 'long', 'double', 'boolean', 'timestamp'] as const;

/** What a suggestion saw, in a sentence. */
function suggestionText(suggestion: Answer<'/api/data-sets/{data_set_id}/suggest-columns', 'post'>): string {
  const seen = Object.entries(suggestion.formats)
    .map(([decoded, count]) => `${count} ${decoded}`)
    .join(', ');
  return (
    `Suggested ${counted(suggestion.columns.length, 'column')} from ${counted(suggestion.sampled_rows, 'row')} of the ` +
    `${suggestion.sampled_envelopes === 1 ? 'newest payload' : `${suggestion.sampled_envelopes} newest payloads`}` +
    `${seen ? ` (${seen})` : ''}; ${suggestion.rows_rejected} did not decode` +
    `${suggestion.more_paths ? `; ${counted(suggestion.more_paths, 'more path')} left out` : ''}.`
  );
}

export function columnTable(initial: Definition['columns']) {
  let columns: Column[] = initial.map((column) => ({ ...column }));
  const included = new Set(columns.map((_, i) => i));
  const element = el('div', { 'aria-live': 'polite' });

  const textCell = (key: 'name' | 'path', label: string, size?: number) => (row: Row) =>
    el('input', {
      value: row[key],
      size,
      'aria-label': `${label} of column ${row.index + 1}`,
      onchange: (event: Event) => {
        (columns[row.index] as Column)[key] = (event.target as HTMLInputElement).value;
      },
    });
  const typeCell = (row: Row) => {
    const control = select(`type-${row.index}`, types, row.type);
    control.setAttribute('aria-label', `Type of column ${row.index + 1}`);
    control.addEventListener('change', () => {
      (columns[row.index] as Column).type = chosen(types, control.value);
    });
    return control;
  };
  const useCell = (row: Row) =>
    el('input', {
      type: 'checkbox',
      checked: included.has(row.index),
      'aria-label': `Use column ${row.index + 1}`,
      onchange: (event: Event) => {
        if ((event.target as HTMLInputElement).checked) included.add(row.index);
        else included.delete(row.index);
      },
    });

  const add = () => {
    columns = [...columns, { name: `column_${columns.length + 1}`, path: '$.', type: 'string' }];
    included.add(columns.length - 1);
    draw();
  };

  /** `summary`: what the last suggestion saw, or why it failed. */
  const draw = (summary?: Child) =>
    replace(
      element,
      summary ?? null,
      table<Row>(
        'Columns',
        [
          { label: 'Use', cell: useCell },
          { label: 'Name', cell: textCell('name', 'Name') },
          { label: 'Path', cell: textCell('path', 'Path', 36) },
          { label: 'Type', cell: typeCell },
          { label: 'Seen in sample', cell: (row) => (row.seen === undefined ? '—' : row.seen) },
        ],
        columns.map((column, index) => ({ ...column, index })),
        'No columns yet: suggest them from the data set, or add one',
      ),
      el('button', { type: 'button', onclick: add }, 'Add a column'),
    );

  const suggest = async (dataSetId: string, format: SuggestBody['format']) => {
    replace(element, el('p', { class: 'muted' }, 'Reading recent payloads…'));
    try {
      const body: SuggestBody = { format, sample: 200 };
      const suggestion = await api<Answer<'/api/data-sets/{data_set_id}/suggest-columns', 'post'>>(
        `api/data-sets/${dataSetId}/suggest-columns`,
        { method: 'POST', body },
      );
      columns = suggestion.columns;
      included.clear();
      for (let i = 0; i < columns.length; i++) included.add(i);
      draw(el('p', { class: 'notice' }, suggestionText(suggestion)));
    } catch (error) {
      draw(errorBox(error));
    }
  };

  /** The columns the definition takes: those in use, as a definition holds them. */
  const inUse = (): Definition['columns'] =>
    columns
      .filter((_, index) => included.has(index))
      .map((column) => ({ name: column.name, path: column.path, type: column.type }));

  draw();
  return { element, suggest, inUse };
}
