import { type Answer, api, type Caller, type Connection, type Health, qs, type Stats, type Tenant } from '../api.ts';
import { trafficChart } from '../chart.ts';
import { el, errorBox, replace, replaceOnChange, section, table } from '../dom.ts';
import { pollMs, type Stop } from '../view.ts';
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

async function healthSection(): Promise<HTMLElement> {
  const report = await api<Health>('health');
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
export function tenantView(tenantId: string) {
  return async (main: HTMLElement): Promise<Stop> => {
    const tenant = await api<Tenant>(`api/tenants/${tenantId}`);
    const health = el('div');
    const failures = el('div');
    const figures = el('div');
    const traffic = trafficChart(`api/tenants/${tenantId}/stats/history`, `Traffic of ${tenant.name}`);
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
        );
        const [report, rows] = await Promise.all([
          healthSection(),
          Promise.all(
            connections.map(
              async (connection): Promise<Row> => ({
                connection,
                stats: await api<Stats>(`api/connections/${connection.connection_id}/stats`),
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
        replace(figures, errorBox(error));
      }
    };
    await Promise.all([refresh(), traffic.load()]);
    const timer = setInterval(() => void Promise.all([refresh(), traffic.follow()]), pollMs);
    return () => clearInterval(timer);
  };
}

/** A tenant key sees its tenant; a PlatformAdmin the tenants, each a link to its own overview. */
export async function overviewView(main: HTMLElement, caller: Caller): Promise<Stop | undefined> {
  if (caller.tenant_id) return tenantView(caller.tenant_id)(main);
  const [health, { tenants }] = await Promise.all([
    healthSection(),
    api<Answer<'/api/tenants'>>(`api/tenants${qs({ limit: 1000 })}`),
  ]);
  replace(
    main,
    el('h1', {}, 'Overview'),
    health,
    el('h2', {}, 'Tenants'),
    table<Tenant>(
      `${tenants.length} tenants`,
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
}
