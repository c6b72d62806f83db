import { api, type Caller, type Connection, qs, type Stats, type TableProperties } from '../api.ts';
import { trafficChart } from '../chart.ts';
import { bytes, type Child, el, errorBox, replace, replaceOnChange, table, when } from '../dom.ts';
import { pollMs, type Stop } from '../view.ts';
import { commitFailureAlert, freshnessText, statsCells } from './figures.ts';
import { type Security, senderSetupSection } from './sender-setup.ts';

interface Rejection {
  at: string;
  status: number;
  code: string;
  content_type: string | null;
  payload_size: number;
  headers: Record<string, string>;
}
interface FailedDelivery {
  message_id: string;
  failed_at: string;
  attempts: number;
  last_error: string;
}
interface Run {
  version: number;
  files: number;
  rows: number;
  bytes: number;
  completed_at: string | null;
  duration_ms: number | null;
  attempt: number;
}
interface DataFile {
  path: string;
  size: number;
  num_records: number;
  url: string;
}

const section = (title: string, id: string, ...children: Child[]) =>
  el('section', { 'aria-labelledby': id }, el('h2', { id }, title), ...children);

/** The curl a person pastes to try the connection (the token is theirs: shown once at creation). */
export function curlFor(ingestUrl: string): string {
  return `curl -X POST '${ingestUrl}' \\\n  -H 'Authorization: Bearer <ingest token>' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"hello": "world"}'`;
}

const freshnessProperty = 'tributary.freshness';
const units = [
  ['seconds', 1],
  ['minutes', 60],
  ['hours', 3600],
] as const;

/**
 * The data set's freshness target: shown to everyone, set by those the table-properties route lets
 * (it asks for data-sets.delete, a tenant admin's: table properties decide when files go).
 */
function freshnessSection(dataSetId: string, mayTune: boolean) {
  const path = `api/data-sets/${dataSetId}/table-properties`;
  const element = el('div');
  const outcome = el('div', { 'aria-live': 'polite' });
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
  const set = async (properties: Record<string, string>) => {
    try {
      current = await api<TableProperties>(path, { method: 'PUT', body: { properties } });
      render();
      replace(
        outcome,
        el('p', { class: 'notice' }, `Freshness target set to ${freshnessText(current.effective.freshness_seconds)}.`),
      );
    } catch (error) {
      replace(outcome, errorBox(error));
    }
  };
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

  function render() {
    const seconds = current?.effective.freshness_seconds;
    const own = current?.properties[freshnessProperty];
    if (seconds !== undefined && !value.matches(':focus')) {
      const [name, size] = [...units].reverse().find(([, size]) => seconds > 0 && seconds % size === 0) ?? units[0];
      value.value = String(seconds / size);
      unit.value = name;
    }
    replace(
      element,
      el(
        'dl',
        { class: 'facts' },
        el('dt', {}, 'Freshness target'),
        el(
          'dd',
          { id: 'freshness-target' },
          seconds === undefined
            ? '—'
            : `${freshnessText(seconds)} (${own ? `set on this table: ${own}` : 'the deployment’s default'})`,
        ),
      ),
      el(
        'p',
        { class: 'muted' },
        'Accepted webhooks are staged, kept safe, then committed to the table together once the oldest has waited this long (sooner when enough bytes are staged). Until then the events view lists them as pending. A longer target makes fewer commits and larger files.',
      ),
      mayTune ? [form, own ? useDefault : null] : null,
      outcome,
    );
  }

  render();
  return {
    element,
    async load() {
      try {
        current = await api<TableProperties>(path);
        render();
      } catch (error) {
        render();
        replace(outcome, errorBox(error));
      }
    },
  };
}

export function connectionView(connectionId: string) {
  return async (main: HTMLElement, caller: Caller): Promise<Stop> => {
    const mayOperate = caller.permissions.includes('connections.operate');
    const base = `api/connections/${connectionId}`;
    const selected = new Set<string>();
    const notice = el('div', { 'aria-live': 'polite' });
    const parts = {
      head: el('div'),
      failure: el('div'),
      figures: el('div'),
      rejections: el('div'),
      failed: el('div'),
      runs: el('div'),
      files: el('div'),
    };
    const dialog = el('dialog', { 'aria-labelledby': 'confirm-title' });
    let connection = await api<Connection>(base);
    let security = await api<Security>(`${base}/security`);
    const ingestUrl = new URL(`api/ingest/${connection.source_id}`, location.href).href;
    const traffic = trafficChart(`${base}/stats/history`, 'Traffic of this connection');
    const freshness = freshnessSection(connection.data_set_id, caller.permissions.includes('data-sets.delete'));

    const act = async (run: () => Promise<string>) => {
      try {
        replace(notice, el('p', { class: 'notice' }, await run()));
      } catch (error) {
        replace(notice, errorBox(error));
      }
      await refresh();
    };

    const confirmRedrive = (ids: string[] | undefined, count: number) => {
      replace(
        dialog,
        el('h2', { id: 'confirm-title' }, 'Redrive failed deliveries?'),
        el(
          'p',
          {},
          `${count} failed ${count === 1 ? 'delivery goes' : 'deliveries go'} back on the ingest queue and will be written to the data set (a message already written is never written twice).`,
        ),
        el(
          'div',
          { class: 'actions' },
          el(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: () => {
                dialog.close();
                void act(async () => {
                  // One call redrives at most 250: a selection goes in slices, "all" until none waits.
                  const call = (body: { message_ids?: string[] }) =>
                    api<{ redriven: number; remaining: number }>(`${base}/failed-deliveries/redrive`, {
                      method: 'POST',
                      body,
                    });
                  let redriven = 0;
                  if (ids) {
                    for (let i = 0; i < ids.length; i += 250)
                      redriven += (await call({ message_ids: ids.slice(i, i + 250) })).redriven;
                  } else {
                    for (let remaining = 1; remaining > 0; ) {
                      const result = await call({});
                      redriven += result.redriven;
                      remaining = result.redriven > 0 ? result.remaining : 0;
                    }
                  }
                  selected.clear();
                  return `${redriven} redriven.`;
                });
              },
            },
            'Redrive',
          ),
          el('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'),
        ),
      );
      dialog.showModal();
    };

    const renderHead = () =>
      replace(
        parts.head,
        el('h1', {}, `Connection ${connection.name}`),
        el(
          'dl',
          { class: 'facts' },
          el('dt', {}, 'State'),
          el('dd', {}, `${connection.status}, source ${connection.source_status}`),
          el('dt', {}, 'Ingest URL'),
          el('dd', {}, el('code', {}, ingestUrl)),
          el('dt', {}, 'Token'),
          el(
            'dd',
            {},
            `${connection.token_prefix}… (shown once, when the connection was created or its token regenerated)`,
          ),
          el('dt', {}, 'Data set'),
          el('dd', {}, el('code', {}, connection.data_set_id)),
        ),
        mayOperate
          ? el(
              'div',
              { class: 'actions' },
              connection.source_status === 'Paused'
                ? el(
                    'button',
                    { type: 'button', onclick: () => void act(() => move('resume-source', 'Source resumed.')) },
                    'Resume source',
                  )
                : el(
                    'button',
                    { type: 'button', onclick: () => void act(() => move('pause-source', 'Source paused.')) },
                    'Pause source',
                  ),
            )
          : null,
        el('p', {}, el('a', { href: `#/connections/${connectionId}/events` }, 'Events: what arrived, with bodies')),
      );

    const move = async (action: string, done: string) => {
      await api(`${base}/${action}`, { method: 'POST' });
      connection = await api<Connection>(base);
      renderHead();
      return done;
    };

    const curl = curlFor(ingestUrl);
    const curlBlock = el('pre', { id: 'curl', tabindex: 0, 'aria-label': 'curl command' }, curl);
    const securityFacts = el('div');
    const renderSecurity = () =>
      replace(
        securityFacts,
        el(
          'dl',
          { class: 'facts' },
          el('dt', {}, 'Authentication'),
          el('dd', {}, security.auth_mode),
          el('dt', {}, 'Signature'),
          el(
            'dd',
            { id: 'signature-scheme' },
            security.signature
              ? `${security.signature.scheme}${security.signature.header ? ` in ${security.signature.header}` : ''}${security.signature.tolerance_seconds ? `, tolerance ${security.signature.tolerance_seconds} s` : ''}`
              : 'none',
          ),
          el('dt', {}, 'Deduplication window'),
          el('dd', {}, security.dedup_window_seconds ? `${security.dedup_window_seconds} s` : 'off'),
          el('dt', {}, 'Rate limit'),
          el(
            'dd',
            {},
            security.rate_limit
              ? `${security.rate_limit.requests_per_second}/s, burst ${security.rate_limit.burst}`
              : 'none',
          ),
          el('dt', {}, 'IP allowlist'),
          el('dd', {}, security.ip_allowlist?.join(', ') || 'any address'),
        ),
      );
    renderSecurity();
    const senders = senderSetupSection(
      base,
      ingestUrl,
      security,
      caller.permissions.includes('connections.manage'),
      (saved) => {
        security = saved;
        renderSecurity();
      },
    );

    renderHead();
    replace(
      main,
      parts.head,
      notice,
      parts.failure,
      section(
        'Try it',
        'try-title',
        el('p', {}, 'Send a test webhook with the token you were given:'),
        curlBlock,
        el(
          'button',
          {
            type: 'button',
            onclick: async () => {
              try {
                await navigator.clipboard.writeText(curl);
                replace(notice, el('p', { class: 'notice' }, 'Copied.'));
              } catch {
                getSelection()?.selectAllChildren(curlBlock);
                replace(notice, el('p', { class: 'notice' }, 'Selected: copy it with Ctrl-C.'));
              }
            },
          },
          'Copy curl',
        ),
      ),
      section(
        'Figures',
        'figures-title',
        parts.figures,
        el(
          'p',
          { class: 'muted' },
          'Staged: accepted, kept safe and waiting for the table’s next commit (within its freshness target, below); they are listed as pending events meanwhile. Oldest staged: how long the oldest of them has waited since its 202.',
        ),
      ),
      section('Freshness', 'freshness-title', freshness.element),
      section('Traffic', 'traffic-title', traffic.element),
      section('Security settings', 'security-title', securityFacts),
      section('Point a provider at it', 'senders-title', senders),
      section('Failed deliveries', 'failed-title', parts.failed),
      section('Recent rejections', 'rejections-title', parts.rejections),
      section('Runs', 'runs-title', parts.runs),
      section('Files', 'files-title', parts.files),
      dialog,
    );

    /**
     * Each part asks and draws on its own, so that the figures (and a failing commit) still show while
     * the tenant's store does not answer, when the runs and files cannot. A part still waiting for its
     * last answer is not asked again.
     */
    const waiting = new Set<keyof typeof parts>();
    const part = async <T>(name: keyof typeof parts, ask: () => Promise<T>, draw: (answer: T) => void) => {
      if (waiting.has(name)) return;
      waiting.add(name);
      try {
        draw(await ask());
      } catch (error) {
        delete parts[name].dataset.shown;
        replace(parts[name], errorBox(error));
      } finally {
        waiting.delete(name);
      }
    };
    const refresh = () =>
      Promise.all([
        part(
          'figures',
          () => api<Stats>(`${base}/stats`),
          (stats) => {
            replaceOnChange(
              parts.failure,
              JSON.stringify([stats.commit_failure, stats.staged_rows]),
              commitFailureAlert(stats),
            );
            replace(
              parts.figures,
              table<{ stats: Stats }>('Since the connection was created', statsCells(), [{ stats }]),
            );
          },
        ),
        part(
          'rejections',
          () => api<{ rejections: Rejection[] }>(`${base}/rejections${qs({ limit: 20 })}`),
          (rejections) => {
            replace(
              parts.rejections,
              table<Rejection>(
                'The last 20 refused requests',
                [
                  { label: 'At', cell: (r) => when(r.at) },
                  { label: 'Status', cell: (r) => r.status },
                  { label: 'Code', cell: (r) => r.code },
                  { label: 'Content type', cell: (r) => r.content_type ?? '—' },
                  { label: 'Size', cell: (r) => bytes(r.payload_size) },
                  {
                    label: 'Headers',
                    cell: (r) =>
                      el(
                        'ul',
                        { class: 'headers' },
                        Object.entries(r.headers).map(([n, v]) => el('li', {}, `${n}: ${v}`)),
                      ),
                  },
                ],
                rejections.rejections,
                'No rejections',
              ),
            );
          },
        ),
        part(
          'failed',
          () => api<{ failed_deliveries: FailedDelivery[] }>(`${base}/failed-deliveries${qs({ limit: 100 })}`),
          (failed) => {
            const present = new Set(failed.failed_deliveries.map((f) => f.message_id));
            for (const id of selected) if (!present.has(id)) selected.delete(id);
            // Drawn again only when the list changed: a button or a checkbox being clicked stays.
            replaceOnChange(
              parts.failed,
              JSON.stringify(failed.failed_deliveries),
              mayOperate && failed.failed_deliveries.length > 0
                ? el(
                    'div',
                    { class: 'actions' },
                    el(
                      'button',
                      {
                        type: 'button',
                        onclick: () =>
                          selected.size > 0 &&
                          confirmRedrive(
                            [...selected],
                            failed.failed_deliveries.filter((f) => selected.has(f.message_id)).length,
                          ),
                      },
                      'Redrive selected',
                    ),
                    el(
                      'button',
                      {
                        type: 'button',
                        onclick: () => confirmRedrive(undefined, failed.failed_deliveries.length),
                      },
                      'Redrive all',
                    ),
                  )
                : null,
              table<FailedDelivery>(
                'Envelopes whose write failed five times',
                [
                  ...(mayOperate
                    ? [
                        {
                          label: 'Select',
                          cell: (f: FailedDelivery) =>
                            el('input', {
                              type: 'checkbox',
                              'aria-label': `Select ${f.message_id}`,
                              checked: selected.has(f.message_id),
                              onchange: (event: Event) => {
                                if ((event.target as HTMLInputElement).checked) selected.add(f.message_id);
                                else selected.delete(f.message_id);
                              },
                            }),
                        },
                      ]
                    : []),
                  { label: 'Message id', header: true, cell: (f) => el('code', {}, f.message_id) },
                  { label: 'Failed at', cell: (f) => when(f.failed_at) },
                  { label: 'Attempts', cell: (f) => f.attempts },
                  { label: 'Last error', cell: (f) => f.last_error },
                  ...(mayOperate
                    ? [
                        {
                          label: 'Redrive',
                          cell: (f: FailedDelivery) =>
                            el(
                              'button',
                              {
                                type: 'button',
                                'aria-label': `Redrive ${f.message_id}`,
                                onclick: () =>
                                  confirmRedrive(
                                    [f.message_id],
                                    failed.failed_deliveries.filter((other) => other.message_id === f.message_id)
                                      .length,
                                  ),
                              },
                              'Redrive',
                            ),
                        },
                      ]
                    : []),
                ],
                failed.failed_deliveries,
                'No failed deliveries',
              ),
            );
          },
        ),
        part(
          'runs',
          () => api<{ runs: Run[] }>(`api/data-sets/${connection.data_set_id}/runs${qs({ limit: 20 })}`),
          (runs) => {
            replace(
              parts.runs,
              table<Run>(
                'The data set’s last 20 commits',
                [
                  { label: 'Version', header: true, cell: (r) => r.version },
                  { label: 'Files', cell: (r) => r.files },
                  { label: 'Rows', cell: (r) => r.rows },
                  { label: 'Bytes', cell: (r) => bytes(r.bytes) },
                  { label: 'Duration', cell: (r) => (r.duration_ms === null ? '—' : `${r.duration_ms} ms`) },
                  { label: 'Attempt', cell: (r) => r.attempt },
                  { label: 'Completed', cell: (r) => when(r.completed_at) },
                ],
                runs.runs,
                'Nothing written yet',
              ),
            );
          },
        ),
        part(
          'files',
          () =>
            api<{ version: number | null; files: DataFile[]; next_cursor: string | null }>(
              `api/data-sets/${connection.data_set_id}/files${qs({ limit: 50 })}`,
            ),
          (files) => {
            replace(
              parts.files,
              table<DataFile>(
                files.version === null
                  ? 'No snapshot yet'
                  : `Latest snapshot, version ${files.version}: ${files.next_cursor ? `the newest ${files.files.length} files` : `${files.files.length} files`}`,
                [
                  { label: 'Path', header: true, cell: (f) => el('a', { href: f.url, rel: 'noreferrer' }, f.path) },
                  { label: 'Rows', cell: (f) => f.num_records },
                  { label: 'Size', cell: (f) => bytes(f.size) },
                ],
                files.files,
                'No files yet',
              ),
            );
          },
        ),
      ]);
    // Not awaited: a part whose answer is slow (a store that hangs) must not hold the others, nor the
    // stop function the console calls when the operator goes elsewhere.
    void Promise.all([refresh(), traffic.load(), freshness.load()]);
    const timer = setInterval(() => {
      // A poll would redraw the rows under an open confirmation.
      if (!dialog.open) void Promise.all([refresh(), traffic.follow()]);
    }, pollMs);
    return () => clearInterval(timer);
  };
}
