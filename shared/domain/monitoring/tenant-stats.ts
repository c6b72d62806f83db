/**
 * A tenant's connections with their figures, a page at a time: what an overview of the tenant shows,
 * in one request per page instead of one per connection.
 */
import { forEachAtMost } from '../at-most.ts';
import type { Connection } from '../connections/model.ts';
import type { Deps as ConnectionDeps } from '../connections/use-cases.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import { type ConnectionStats, type SeriesReading, type StagedReading, statsFrom } from './views.ts';

export type TenantStatsDeps = Pick<ConnectionDeps, 'getTenant' | 'listConnectionsByTenant'> & {
  /** Every counter series of one source (its connection's figures). */
  readSourceCounters(sourceId: string): Promise<SeriesReading[]>;
  /** What the connection's table has staged, and why its commits fail if they do. */
  stagedFor(dataSetId: string): Promise<StagedReading>;
};

/** Connections whose figures are read at the same time: a page of a hundred is not two hundred reads at once. */
export const statsReadAtOnce = 8;

/**
 * Each connection of a page of the tenant's, with its figures as `GET /api/connections/{id}/stats`
 * gives them.
 * Input: the tenant and the page asked for. Output: the page's connections, each with its figures,
 * in the order of the tenant's connection list, and the cursor of the next page.
 *  1. The tenant must be visible to the caller (a key of another tenant: 404).
 *  2. A page of the tenant's connections, as listed by GET /api/tenants/{id}/connections.
 *  3. Each one's counters and staged rows read, statsReadAtOnce at a time.
 */
export async function tenantConnectionStats(
  deps: TenantStatsDeps,
  principal: Principal,
  tenantId: string,
  page: PageRequest,
  now = new Date(),
): Promise<Page<{ connection: Connection; stats: ConnectionStats }>> {
  await tenantFor(deps, principal, tenantId, 'read');
  const connections = await deps.listConnectionsByTenant(tenantId, page);
  const stats = new Map<Connection, ConnectionStats>();
  await forEachAtMost(connections.items, statsReadAtOnce, async (connection) => {
    const [series, staged] = await Promise.all([
      deps.readSourceCounters(connection.source_id),
      deps.stagedFor(connection.data_set_id),
    ]);
    stats.set(connection, statsFrom(series, staged, now));
  });
  return {
    items: connections.items.map((connection) => ({ connection, stats: stats.get(connection) as ConnectionStats })),
    nextCursor: connections.nextCursor,
  };
}
