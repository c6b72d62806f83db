import { type Answer, api, type Connection, type Health, qs, type Stats, type Tenant } from '../api.ts';
import { trafficChart } from '../chart.ts';
import { counted, el, errorBox, replace, replaceOnChange, section, table } from '../dom.ts';
import { every, pollMs, type View } from '../view.ts';
import { commitAttempts, commitFailureText, statsCells } from './figures.ts';

interface Row {
  connection: Connection;
  stats: Stats | null;
}

/** The connections whose commits fail, above their table: their rows wait and may become failed deliveries. */
function commitFailures(rows: Row[]): HTMLElement | null {
  const failing = rows.filter((row) => row.stats?.commit_failure);
  if (failing.length === 0) return null;
  return el(
    'div',
    { class: 'warning', role: 'alert' },
    el('strong', {}, failing.length === 1 ? 'A connection’s commits are failing' : 'Connections’ commits are failing'),
    el(
      'ul',
      {},
      failing.map(({ connection, stats }) => {
        const failure = stats?.commit_failure;
        if (!stats || !failure) return null;
        return el(
          'li',
          {},
          el('a', { href: `#/connections/${connection.connection_id}` }, connection.name),
          `: attempt ${failure.attempts} of ${commitAttempts} failed, `,
          el('code', { class: 'last-error' }, failure.last_error),
          `. ${commitFailureText({ ...stats, commit_failure: failure })}`,
        );
      }),
    ),
  );
}

async function healthSection(signal: AbortSignal): Promise<HTMLElement> {
  const report = await api<Health>('health', { signal });
  return el(
    'section',
    { 'aria-labelledby': 'health-title' },
    el(
      'h2',
      { id: 'health-title' },
      'Health: ',
      el('span', { class: report.status === 'Healthy' ? 'ok' : 'bad' }, report.status),
    ),
    el(
      'ul',
      { class: 'checks' },
      report.checks.map((check) =>
        el('li', { class: check.healthy ? 'ok' : 'bad' }, `${check.name}: ${check.healthy ? 'healthy' : 'unhealthy'}`),
      ),
    ),
  );
}

/** A tenant's connections with their figures, polled, and its traffic of the last day or week. */
export function tenantView(tenantId: string): View {
  return async (main, _caller, signal) => {
    const tenant = await api<Tenant>(`api/tenants/${tenantId}`, { signal });
    const health = el('div');
    const failures = el('div');
    const figures = el('div');
    const traffic = trafficChart(`api/tenants/${tenantId}/stats/history`, `Traffic of ${tenant.name}`, signal);
    replace(
      main,
      el('h1', {}, `Overview of ${tenant.name}`),
      health,
      section('Traffic', 'traffic-title', traffic.element),
      section('Connections', 'connections-title', failures, figures),
    );
    const refresh = async () => {
      try {
        const { connections } = await api<Answer<'/api/tenants/{tenant_id}/connections'>>(
          `api/tenants/${tenantId}/connections${qs({ limit: 100 })}`,
          { signal },
        );
        const [report, rows] = await Promise.all([
          healthSection(signal),
          Promise.all(
            connections.map(
              async (connection): Promise<Row> => ({
                connection,
                stats: await api<Stats>(`api/connections/${connection.connection_id}/stats`, { signal }),
              }),
            ),
          ),
        ]);
        replace(health, report);
        const failing = rows.filter((row) => row.stats?.commit_failure);
        replaceOnChange(
          failures,
          JSON.stringify(
            failing.map((row) => [row.connection.connection_id, row.stats?.commit_failure, row.stats?.staged_rows]),
          ),
          commitFailures(rows),
        );
        replace(
          figures,
          table<Row>(
            `Tenant ${tenant.name} (${tenant.slug}, ${tenant.status}): accepted, rejected and written since each connection was created`,
            [
              {
                label: 'Connection',
                header: true,
                cell: (row) => el('a', { href: `#/connections/${row.connection.connection_id}` }, row.connection.name),
              },
              { label: 'State', cell: (row) => `${row.connection.status}, source ${row.connection.source_status}` },
              ...statsCells<Row>(),
            ],
            rows,
            'No connections yet',
          ),
        );
      } catch (error) {
        if (!signal.aborted) replace(figures, errorBox(error));
      }
    };
    await Promise.all([refresh(), traffic.load()]);
    every(signal, pollMs, () => void Promise.all([refresh(), traffic.follow()]));
    return undefined;
  };
}

/** A tenant key sees its tenant; a PlatformAdmin the tenants, each a link to its own overview. */
export const overviewView: View = async (main, caller, signal) => {
  if (caller.tenant_id) return tenantView(caller.tenant_id)(main, caller, signal);
  const [health, { tenants }] = await Promise.all([
    healthSection(signal),
    api<Answer<'/api/tenants'>>(`api/tenants${qs({ limit: 1000 })}`, { signal }),
  ]);
  replace(
    main,
    el('h1', {}, 'Overview'),
    health,
    el('h2', {}, 'Tenants'),
    table<Tenant>(
      counted(tenants.length, 'tenant'),
      [
        { label: 'Tenant', header: true, cell: (t) => el('a', { href: `#/tenants/${t.tenant_id}` }, t.name) },
        { label: 'Slug', cell: (t) => t.slug },
        { label: 'Status', cell: (t) => t.status },
      ],
      tenants,
      'No tenants yet',
    ),
  );
  return undefined;
};
