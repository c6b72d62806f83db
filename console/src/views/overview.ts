import { type Answer, api, type Connection, everyItem, type Health, qs, type Stats, type Tenant } from '../api.ts';
import { trafficChart } from '../chart.ts';
import { counted, el, errorBox, replace, replaceOnChange, section, table } from '../dom.ts';
import { every, pollMs, type View } from '../view.ts';
import { commitAttempts, commitFailureText, statsCells } from './figures.ts';

export interface Row {
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

/** Failed deliveries waiting for a redrive, and rows lost, in words ('' when neither). */
function troubleText(stats: Stats): string {
  const waiting = stats.dead_lettered - stats.redriven - stats.deleted_dead_letters;
  const parts: string[] = [];
  if (waiting > 0)
    parts.push(
      `${counted(waiting, 'failed delivery', 'failed deliveries')} ${waiting === 1 ? 'waits' : 'wait'} for a redrive`,
    );
  if (stats.lost_rows > 0) parts.push(`${counted(stats.lost_rows, 'row')} lost`);
  return parts.join(', ');
}

/**
 * The connections with failed deliveries or lost rows, above their table: among many connections,
 * a row far down the table would go unseen.
 */
export function deliveryTrouble(rows: Row[]): HTMLElement | null {
  const troubled = rows.flatMap(({ connection, stats }) => {
    const text = stats ? troubleText(stats) : '';
    return text ? [{ connection, text }] : [];
  });
  if (troubled.length === 0) return null;
  return el(
    'div',
    { class: 'warning', role: 'alert' },
    el(
      'strong',
      {},
      troubled.length === 1
        ? 'A connection has failed deliveries or lost rows'
        : `${troubled.length} connections have failed deliveries or lost rows`,
    ),
    el(
      'ul',
      {},
      troubled.map(({ connection, text }) =>
        el('li', {}, el('a', { href: `#/connections/${connection.connection_id}` }, connection.name), `: ${text}.`),
      ),
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

/**
 * Every connection of the tenant, each with its figures: the warnings above the table and the
 * losses in it cover the tenant's 250th connection as its first. One request per hundred connections
 * (GET /api/tenants/{id}/stats), not one per connection.
 */
export async function tenantRows(tenantId: string, signal: AbortSignal): Promise<Row[]> {
  return everyItem<'connections', Row>(`api/tenants/${tenantId}/stats`, 'connections', signal, statsPage);
}

/** Connections a page of the tenant's figures holds (the most the API gives at once). */
export const statsPage = 100;

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
        const [report, rows] = await Promise.all([healthSection(signal), tenantRows(tenantId, signal)]);
        replace(health, report);
        const failing = rows.filter((row) => row.stats?.commit_failure);
        const trouble = deliveryTrouble(rows);
        replaceOnChange(
          failures,
          JSON.stringify([
            failing.map((row) => [row.connection.connection_id, row.stats?.commit_failure, row.stats?.staged_rows]),
            trouble?.textContent ?? null,
          ]),
          commitFailures(rows),
          trouble,
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
    // A poll waits for the last one's answers: a slow API is not asked again and again meanwhile.
    let polling = false;
    every(signal, pollMs, () => {
      if (polling) return;
      polling = true;
      void Promise.all([refresh(), traffic.follow()]).finally(() => {
        polling = false;
      });
    });
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
