/**
 * A tenant's connections with their figures, a page at a time (GET /api/tenants/{id}/stats): each
 * connection's figures are its own stats, in the order of the tenant's connection list, and a key of
 * another tenant sees none of them. In process, through the use case's ports (test/support/memory.ts),
 * the counters and staged rows given per source and table.
 */
import { describe, expect, it } from 'vitest';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { tenantConnectionStats } from '#shared/domain/monitoring/tenant-stats.ts';
import type { SeriesReading, StagedReading } from '#shared/domain/monitoring/views.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin, tenantPrincipal } from '../support/memory.ts';

const now = new Date('2026-11-21T10:00:00.000Z');
const nothingStaged: StagedReading = { rows: 0, oldest: Number.POSITIVE_INFINITY, failure: null };

/** Acme with three webhook connections (github, stripe, shop) and Other with one; what each source counted. */
async function tenantsWithTraffic() {
  const store = memoryStore();
  const acme = await createTenant(store, { name: 'Acme' }, now);
  const other = await createTenant(store, { name: 'Other' }, now);
  const connect = (tenantId: string, name: string) =>
    createConnection(store, platformAdmin, tenantId, { type: 'Webhook', name }, now, 'https://tributary.example');
  const github = await connect(acme.tenant_id, 'github');
  const stripe = await connect(acme.tenant_id, 'stripe');
  const shop = await connect(acme.tenant_id, 'shop');
  await connect(other.tenant_id, 'elsewhere');
  const accepted = (sourceId: string, value: number): SeriesReading => ({
    metric: 'ingestRequests',
    labels: { source_id: sourceId, status: '202', code: 'ACCEPTED' },
    value,
    lastAt: '2026-11-21T09:59:00.000Z',
  });
  const written = (sourceId: string, value: number): SeriesReading => ({
    metric: 'envelopesWritten',
    labels: { source_id: sourceId },
    value,
    lastAt: '2026-11-21T09:59:30.000Z',
  });
  const counters = new Map<string, SeriesReading[]>([
    [github.connection.source_id, [accepted(github.connection.source_id, 5), written(github.connection.source_id, 5)]],
    [stripe.connection.source_id, [accepted(stripe.connection.source_id, 3), written(stripe.connection.source_id, 1)]],
  ]);
  const staged = new Map<string, StagedReading>([
    [stripe.dataSet.data_set_id, { rows: 2, oldest: Date.parse('2026-11-21T09:59:00.000Z'), failure: null }],
  ]);
  const deps = {
    ...store,
    readSourceCounters: async (sourceId: string) => counters.get(sourceId) ?? [],
    stagedFor: async (dataSetId: string) => staged.get(dataSetId) ?? nothingStaged,
  };
  return { deps, acme, other, ids: [github, stripe, shop].map((one) => one.connection.connection_id) };
}

describe("a tenant's connections with their figures", () => {
  it('pages the connections as their list does, each with its own figures', async () => {
    // Arrange
    const { deps, acme, ids } = await tenantsWithTraffic();
    const viewer = tenantPrincipal(acme.tenant_id, 'TenantViewer');
    // Act
    const first = await tenantConnectionStats(deps, viewer, acme.tenant_id, { limit: 2 }, now);
    const second = await tenantConnectionStats(
      deps,
      viewer,
      acme.tenant_id,
      { limit: 2, cursor: first.nextCursor ?? undefined },
      now,
    );
    // Assert
    const listed = [...first.items, ...second.items];
    expect(listed.map((item) => item.connection.connection_id).sort()).toEqual([...ids].sort());
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    expect(second.nextCursor).toBeNull();
    const byName = Object.fromEntries(
      listed.map(({ connection, stats }) => [
        connection.name,
        [stats.accepted, stats.written_rows, stats.staged_rows, stats.unaccounted, stats.oldest_unwritten_age_seconds],
      ]),
    );
    expect(byName).toEqual({
      github: [5, 5, 0, 0, null],
      // 3 accepted, 1 written, 2 staged (the oldest 60 s ago): 2 unaccounted while staged.
      stripe: [3, 1, 2, 2, 60],
      shop: [0, 0, 0, 0, null],
    });
  });

  it("is 404 to a key of another tenant, and reads none of the tenant's counters", async () => {
    // Arrange
    const { deps, acme, other } = await tenantsWithTraffic();
    const read: string[] = [];
    const watched = {
      ...deps,
      readSourceCounters: async (sourceId: string) => {
        read.push(sourceId);
        return deps.readSourceCounters(sourceId);
      },
    };
    // Act
    const attempt = tenantConnectionStats(watched, tenantPrincipal(other.tenant_id, 'TenantAdmin'), acme.tenant_id, {
      limit: 100,
    });
    // Assert
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) => error instanceof DomainError && error.code === 'NOT_FOUND',
    );
    expect(read).toEqual([]);
  });
});
