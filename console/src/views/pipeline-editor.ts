/**
 * The pipeline editor: a definition built from what the data set holds. "Suggest columns" asks
 * the API for the paths and types of recent payloads and fills the column table (./pipeline-editor/columns.ts);
 * "Preview" runs the definition as a query job and shows its first rows and counts (./pipeline-editor/preview.ts);
 * "Save" creates the pipeline or writes a new working version, "Save and deploy" deploys it too.
 * Once saved, the page heads with the pipeline's name and its state, with Run, Disable and Enable
 * (./pipeline-editor/state.ts).
 */
import { type Answer, api, type Body, qs, type Schemas } from '../api.ts';
import { chosen, el, notice, outcomeRegion, replace, section, select, showOutcome } from '../dom.ts';
import type { View } from '../view.ts';
import { columnTable, type Definition } from './pipeline-editor/columns.ts';
import { queryPreview } from './pipeline-editor/preview.ts';
import { pipelineState } from './pipeline-editor/state.ts';

const formats = ['auto', 'json', 'xml', 'form', 'ndjson'] as const;

const field = (id: string, label: string, control: HTMLElement, hint?: string) =>
  el('div', { class: 'field' }, el('label', { for: id }, label), control, hint ? el('small', {}, hint) : null);

/** `equals` is a JSON value: what parses as JSON is that value, anything else a string. */
function jsonValue(text: string): Schemas['JsonValue'] {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The definition's own fields, as the form shows them (the columns have their table). */
function definitionFields(definition: Definition | null, sources: Schemas['DataSet'][]) {
  return {
    source: el(
      'select',
      { id: 'source', name: 'source' },
      sources.map((dataSet) =>
        el(
          'option',
          { value: dataSet.data_set_id, selected: dataSet.data_set_id === definition?.source.data_set_id },
          `${dataSet.name} (${dataSet.data_set_id.slice(0, 8)})`,
        ),
      ),
    ),
    format: select('format', formats, definition?.decode.format ?? 'auto', {
      auto: 'auto (by content type)',
      form: 'form (x-www-form-urlencoded)',
      ndjson: 'ndjson (one row per line)',
    }),
    wherePath: el('input', { id: 'where-path', name: 'where-path', value: definition?.where?.path ?? '' }),
    whereEquals: el('input', {
      id: 'where-equals',
      name: 'where-equals',
      value: definition?.where ? JSON.stringify(definition.where.equals) : '',
    }),
    output: el('input', { id: 'output', name: 'output', value: definition?.output.name ?? '', required: true }),
    onNewData: el('input', {
      id: 'on-new-data',
      name: 'on-new-data',
      type: 'checkbox',
      checked: Boolean(definition?.on_new_data),
    }),
  };
}

export function pipelineEditorView(pipelineId: string | null): View {
  return async (main, caller, signal) => {
    const [existing, { data_sets: dataSets }] = await Promise.all([
      pipelineId ? api<Answer<'/api/pipelines/{pipeline_id}'>>(`api/pipelines/${pipelineId}`, { signal }) : null,
      api<Answer<'/api/data-sets'>>(`api/data-sets${qs({ tenant_id: caller.tenant_id, limit: 1000 })}`, { signal }),
    ]);
    const sources = dataSets.filter((dataSet) => dataSet.origin.type === 'Webhook');
    const name = el('input', {
      id: 'pipeline-name',
      name: 'pipeline-name',
      value: existing?.name ?? '',
      required: true,
    });
    const { source, format, wherePath, whereEquals, output, onNewData } = definitionFields(
      existing?.definition ?? null,
      sources,
    );
    const columns = columnTable(existing?.definition?.columns ?? []);
    const preview = queryPreview(signal);
    const outcome = outcomeRegion();
    const heading = el('h1', {}, existing ? `Pipeline ${existing.name}` : 'New pipeline');
    const may = {
      run: caller.permissions.includes('jobs.write'),
      write: caller.permissions.includes('pipelines.write'),
    };
    /** The saved pipeline's state and actions: shown once there is a pipeline. */
    const stateSlot = el('div');
    let state: ReturnType<typeof pipelineState> | null = null;
    const showState = (id: string) => {
      state = pipelineState(id, may, signal);
      replace(stateSlot, section('State and runs', 'state-title', state.element));
      return state;
    };
    if (existing) showState(existing.pipeline_id).draw(existing);

    const definition = (): Definition => ({
      source: { data_set_id: source.value },
      decode: { format: chosen(formats, format.value) },
      ...(wherePath.value.trim()
        ? { where: { path: wherePath.value.trim(), equals: jsonValue(whereEquals.value.trim()) } }
        : {}),
      columns: columns.inUse(),
      output: { name: output.value.trim() },
      ...(onNewData.checked ? { on_new_data: true } : {}),
    });
    const tenantOfSource = () => sources.find((dataSet) => dataSet.data_set_id === source.value)?.tenant_id;

    let savedId = pipelineId;
    // One save at a time: a second click while the first is on its way would create a second pipeline.
    let saving = false;
    const save = (deploy: boolean) => {
      if (saving) return;
      saving = true;
      for (const one of main.querySelectorAll<HTMLButtonElement>('form.editor button')) one.disabled = true;
      void saveOnce(deploy).finally(() => {
        saving = false;
        for (const one of main.querySelectorAll<HTMLButtonElement>('form.editor button')) one.disabled = false;
      });
    };
    const saveOnce = (deploy: boolean) =>
      showOutcome(outcome, async () => {
        // The version this save makes: what is deployed is this one, or nothing (409) if another editor saved since.
        let version = 1;
        if (savedId) {
          const before = await api<Answer<'/api/pipelines/{pipeline_id}', 'get'>>(`api/pipelines/${savedId}`);
          const body: Body<'/api/pipelines/{pipeline_id}/update-definition', 'post'> = { definition: definition() };
          await api(`api/pipelines/${savedId}/update-definition`, { method: 'POST', body });
          version = before.working_version + 1;
        } else {
          const body: Body<'/api/pipelines', 'post'> = {
            tenant_id: tenantOfSource(),
            name: name.value.trim(),
            definition: definition(),
          };
          savedId = (await api<Answer<'/api/pipelines', 'post'>>('api/pipelines', { method: 'POST', body }))
            .pipeline_id;
          // The address and the heading name the pipeline now (without reloading the view): further
          // saves are new versions of it, and its name is changed no more here.
          history.replaceState(null, '', `#/pipelines/${savedId}`);
          heading.textContent = `Pipeline ${body.name}`;
          name.closest('.field')?.remove();
          showState(savedId);
        }
        if (deploy) await api(`api/pipelines/${savedId}/deploy`, { method: 'POST', body: { version } });
        await state?.load();
        return notice(deploy ? 'Saved and deployed.' : 'Saved as the working version.');
      });

    const button = (label: string, onclick: () => void, primary = false) =>
      el('button', { type: 'button', class: primary ? 'primary' : null, onclick }, label);
    replace(
      main,
      heading,
      el('p', {}, el('a', { href: '#/pipelines' }, '← pipelines and jobs')),
      stateSlot,
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
          button('Suggest columns', () => void columns.suggest(source.value, chosen(formats, format.value))),
        ),
        columns.element,
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
          may.run
            ? button('Preview', () => {
                const { output: _output, on_new_data: _onNewData, ...query } = definition();
                void preview.run(tenantOfSource(), query);
              })
            : null,
          may.write ? button('Save', () => void save(false)) : null,
          may.write ? button('Save and deploy', () => void save(true), true) : null,
        ),
      ),
      outcome,
      section('Preview', 'preview-title', preview.element),
    );
    return undefined;
  };
}
