/**
 * The pipeline editor: a definition built from what the data set holds. "Suggest columns" asks
 * the API for the paths and types of recent payloads and fills the column table; "Preview" runs
 * the definition as a query job and shows its first rows and counts; "Save" creates the pipeline
 * or writes a new working version, "Save and deploy" deploys it too.
 */
import { type Answer, api, type Body, type Caller, qs, type Schemas } from '../api.ts';
import { type Child, el, errorBox, replace, table } from '../dom.ts';

const formats = ['auto', 'json', 'xml', 'form', 'ndjson'] as const;
const types = ['string', 'long', 'double', 'boolean', 'timestamp'] as const;

type Definition = Body<'/api/pipelines/{pipeline_id}/update-definition', 'post'>['definition'];
/** A column being edited: as a definition holds it, with how often a suggestion saw its path. */
type Column = Definition['columns'][number] & Partial<Pick<Schemas['ColumnSuggestion']['columns'][number], 'seen'>>;
type Job = Schemas['Job'];

/** The option of `options` a control shows (a control only offers those). */
const chosen = <T extends string>(options: readonly T[], value: string): T =>
  options.find((option) => option === value) ?? (options[0] as T);

const field = (id: string, label: string, control: HTMLElement, hint?: string) =>
  el('div', { class: 'field' }, el('label', { for: id }, label), control, hint ? el('small', {}, hint) : null);

const select = (id: string, options: readonly string[], value: string, labels: Record<string, string> = {}) =>
  el(
    'select',
    { id, name: id },
    options.map((option) => el('option', { value: option, selected: option === value }, labels[option] ?? option)),
  );

/** `equals` is a JSON value: what parses as JSON is that value, anything else a string. */
function jsonValue(text: string): Schemas['JsonValue'] {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function pipelineEditorView(pipelineId: string | null) {
  return async (main: HTMLElement, caller: Caller): Promise<undefined> => {
    const [existing, { data_sets: dataSets }] = await Promise.all([
      pipelineId ? api<Answer<'/api/pipelines/{pipeline_id}'>>(`api/pipelines/${pipelineId}`) : null,
      api<Answer<'/api/data-sets'>>(`api/data-sets${qs({ tenant_id: caller.tenant_id, limit: 1000 })}`),
    ]);
    const sources = dataSets.filter((dataSet) => dataSet.origin.type === 'Webhook');
    const definition = existing?.definition ?? null;
    let columns: Column[] = definition?.columns.map((column) => ({ ...column })) ?? [];
    const included = new Set(columns.map((_, i) => i));

    const name = el('input', {
      id: 'pipeline-name',
      name: 'pipeline-name',
      value: existing?.name ?? '',
      required: true,
    });
    const source = el(
      'select',
      { id: 'source', name: 'source' },
      sources.map((dataSet) =>
        el(
          'option',
          { value: dataSet.data_set_id, selected: dataSet.data_set_id === definition?.source.data_set_id },
          `${dataSet.name} (${dataSet.data_set_id.slice(0, 8)})`,
        ),
      ),
    );
    const format = select('format', formats, definition?.decode.format ?? 'auto', {
      auto: 'auto (by content type)',
      form: 'form (x-www-form-urlencoded)',
      ndjson: 'ndjson (one row per line)',
    });
    const wherePath = el('input', { id: 'where-path', name: 'where-path', value: definition?.where?.path ?? '' });
    const whereEquals = el('input', {
      id: 'where-equals',
      name: 'where-equals',
      value: definition?.where ? JSON.stringify(definition.where.equals) : '',
    });
    const output = el('input', { id: 'output', name: 'output', value: definition?.output.name ?? '', required: true });
    const onNewData = el('input', {
      id: 'on-new-data',
      name: 'on-new-data',
      type: 'checkbox',
      checked: Boolean(definition?.on_new_data),
    });
    const columnArea = el('div', { 'aria-live': 'polite' });
    const previewArea = el('div', { 'aria-live': 'polite' });
    const notice = el('div', { 'aria-live': 'polite' });

    const drawColumns = (summary?: Child) => {
      replace(
        columnArea,
        summary ?? null,
        table<Column & { index: number }>(
          'Columns',
          [
            {
              label: 'Use',
              cell: (c) =>
                el('input', {
                  type: 'checkbox',
                  checked: included.has(c.index),
                  'aria-label': `Use column ${c.index + 1}`,
                  onchange: (event: Event) => {
                    if ((event.target as HTMLInputElement).checked) included.add(c.index);
                    else included.delete(c.index);
                  },
                }),
            },
            {
              label: 'Name',
              cell: (c) =>
                el('input', {
                  value: c.name,
                  'aria-label': `Name of column ${c.index + 1}`,
                  onchange: (event: Event) => {
                    (columns[c.index] as Column).name = (event.target as HTMLInputElement).value;
                  },
                }),
            },
            {
              label: 'Path',
              cell: (c) =>
                el('input', {
                  value: c.path,
                  size: 36,
                  'aria-label': `Path of column ${c.index + 1}`,
                  onchange: (event: Event) => {
                    (columns[c.index] as Column).path = (event.target as HTMLInputElement).value;
                  },
                }),
            },
            {
              label: 'Type',
              cell: (c) => {
                const control = select(`type-${c.index}`, types, c.type);
                control.setAttribute('aria-label', `Type of column ${c.index + 1}`);
                control.addEventListener('change', () => {
                  (columns[c.index] as Column).type = chosen(types, control.value);
                });
                return control;
              },
            },
            { label: 'Seen in sample', cell: (c) => (c.seen === undefined ? '—' : c.seen) },
          ],
          columns.map((column, index) => ({ ...column, index })),
          'No columns yet: suggest them from the data set, or add one',
        ),
        el(
          'button',
          {
            type: 'button',
            onclick: () => {
              columns = [...columns, { name: `column_${columns.length + 1}`, path: '$.', type: 'string' }];
              included.add(columns.length - 1);
              drawColumns();
            },
          },
          'Add a column',
        ),
      );
    };

    const currentDefinition = (): Definition => {
      const where = wherePath.value.trim()
        ? { where: { path: wherePath.value.trim(), equals: jsonValue(whereEquals.value.trim()) } }
        : {};
      return {
        source: { data_set_id: source.value },
        decode: { format: chosen(formats, format.value) },
        ...where,
        columns: columns
          .filter((_, index) => included.has(index))
          .map((column) => ({ name: column.name, path: column.path, type: column.type })),
        output: { name: output.value.trim() },
        ...(onNewData.checked ? { on_new_data: true } : {}),
      };
    };
    const tenantOfSource = () => sources.find((dataSet) => dataSet.data_set_id === source.value)?.tenant_id;

    const suggest = async () => {
      replace(columnArea, el('p', { class: 'muted' }, 'Reading recent payloads…'));
      try {
        const body: Body<'/api/data-sets/{data_set_id}/suggest-columns', 'post'> = {
          format: chosen(formats, format.value),
          sample: 200,
        };
        const suggestion = await api<Answer<'/api/data-sets/{data_set_id}/suggest-columns', 'post'>>(
          `api/data-sets/${source.value}/suggest-columns`,
          { method: 'POST', body },
        );
        columns = suggestion.columns;
        included.clear();
        for (let i = 0; i < columns.length; i++) included.add(i);
        const seen = Object.entries(suggestion.formats)
          .map(([decoded, count]) => `${count} ${decoded}`)
          .join(', ');
        drawColumns(
          el(
            'p',
            { class: 'notice' },
            `Suggested ${columns.length} columns from ${suggestion.sampled_rows} rows of the ${suggestion.sampled_envelopes} newest payloads` +
              `${seen ? ` (${seen})` : ''}; ${suggestion.rows_rejected} did not decode` +
              `${suggestion.more_paths ? `; ${suggestion.more_paths} more paths left out` : ''}.`,
          ),
        );
      } catch (error) {
        drawColumns(errorBox(error));
      }
    };

    const preview = async () => {
      replace(previewArea, el('p', { class: 'muted' }, 'Running a query over the data set…'));
      try {
        const { output: _output, on_new_data: _onNewData, ...query } = currentDefinition();
        const body: Body<'/api/jobs', 'post'> = { type: 'query', tenant_id: tenantOfSource(), query, limit: 20 };
        const started = await api<Answer<'/api/jobs', 'post'>>('api/jobs', { method: 'POST', body });
        let job = await api<Job>(`api/jobs/${started.job_id}`);
        for (let polls = 0; !['Succeeded', 'Failed', 'Cancelled'].includes(job.status) && polls < 120; polls++) {
          await wait(500);
          job = await api<Job>(`api/jobs/${started.job_id}`);
        }
        if (job.status !== 'Succeeded') {
          replace(
            previewArea,
            el(
              'p',
              { class: 'error', role: 'alert' },
              `The query ${job.status}: ${job.error_message ?? 'still running'}`,
            ),
          );
          return;
        }
        const result = await api<Answer<'/api/jobs/{job_id}/result'>>(`api/jobs/${started.job_id}/result`);
        replace(
          previewArea,
          el(
            'p',
            { class: 'notice', id: 'preview-counts' },
            `Rows in ${job.rows_in}, out ${job.rows_out}, rejected ${job.rows_rejected}, filtered out ${job.rows_filtered}` +
              `${result.truncated ? ' (the first 20 shown)' : ''}.`,
          ),
          table<(string | number | boolean | null)[]>(
            'Preview',
            result.columns.map((column, i) => ({
              label: column.name,
              cell: (row) => (row[i] === null || row[i] === undefined ? '—' : String(row[i])),
            })),
            result.rows,
            'No rows',
          ),
          job.rejection_samples.length
            ? table<Job['rejection_samples'][number]>(
                'Rejected rows (a sample)',
                [
                  { label: 'Message id', header: true, cell: (r) => el('code', {}, r.message_id) },
                  { label: 'Reason', cell: (r) => r.reason },
                ],
                job.rejection_samples,
              )
            : null,
        );
      } catch (error) {
        replace(previewArea, errorBox(error));
      }
    };

    let savedId = pipelineId;
    const save = async (deploy: boolean) => {
      try {
        let id = savedId;
        if (id) {
          const body: Body<'/api/pipelines/{pipeline_id}/update-definition', 'post'> = {
            definition: currentDefinition(),
          };
          await api(`api/pipelines/${id}/update-definition`, { method: 'POST', body });
        } else {
          const body: Body<'/api/pipelines', 'post'> = {
            tenant_id: tenantOfSource(),
            name: name.value.trim(),
            definition: currentDefinition(),
          };
          const created = await api<Answer<'/api/pipelines', 'post'>>('api/pipelines', { method: 'POST', body });
          id = created.pipeline_id;
          savedId = id;
          name.disabled = true;
          // The address names the pipeline now (without reloading the view): further saves are new versions.
          history.replaceState(null, '', `#/pipelines/${id}`);
        }
        if (deploy) await api(`api/pipelines/${id}/deploy`, { method: 'POST', body: {} });
        replace(notice, el('p', { class: 'notice' }, deploy ? 'Saved and deployed.' : 'Saved as the working version.'));
      } catch (error) {
        replace(notice, errorBox(error));
      }
    };

    const mayWrite = caller.permissions.includes('pipelines.write');
    const mayQuery = caller.permissions.includes('jobs.write');
    replace(
      main,
      el('h1', {}, existing ? `Pipeline ${existing.name}` : 'New pipeline'),
      el('p', {}, el('a', { href: '#/pipelines' }, '← pipelines and jobs')),
      sources.length === 0
        ? el('p', { class: 'muted' }, 'No webhook data set to read from yet: create a connection first.')
        : null,
      el(
        'form',
        { class: 'editor', onsubmit: (event: Event) => event.preventDefault() },
        existing ? null : field('pipeline-name', 'Name', name),
        field('source', 'Source data set', source),
        field('format', 'Decode as', format),
        el(
          'div',
          { class: 'actions' },
          el('button', { type: 'button', onclick: () => void suggest() }, 'Suggest columns'),
        ),
        columnArea,
        el(
          'fieldset',
          {},
          el('legend', {}, 'Keep only rows where (optional)'),
          field('where-path', 'Path', wherePath, 'e.g. $.type'),
          field('where-equals', 'Equals', whereEquals, 'a JSON value: "invoice.paid", 7, true; plain text is a string'),
        ),
        field('output', 'Output table name', output),
        el(
          'div',
          { class: 'field' },
          onNewData,
          el('label', { for: 'on-new-data' }, 'Run by itself when new rows arrive'),
        ),
        el(
          'div',
          { class: 'actions' },
          mayQuery ? el('button', { type: 'button', onclick: () => void preview() }, 'Preview') : null,
          mayWrite ? el('button', { type: 'button', onclick: () => void save(false) }, 'Save') : null,
          mayWrite
            ? el('button', { type: 'button', class: 'primary', onclick: () => void save(true) }, 'Save and deploy')
            : null,
        ),
      ),
      notice,
      el('section', { 'aria-labelledby': 'preview-title' }, el('h2', { id: 'preview-title' }, 'Preview'), previewArea),
    );
    drawColumns();
    return undefined;
  };
}
