import { describe, expect, it } from 'vitest';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import {
  connectionHistory,
  type HistoryDeps,
  type HistoryReading,
  historyFigure,
  tenantHistory,
} from '#shared/domain/monitoring/history.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';

const now = Date.parse('2026-11-21T10:07:00.000Z');
const at = (iso: string) => Date.parse(iso);

/** Two tenants, the first with two connections; each source's readings as the counters would answer them. */
async function world(
  readingsOf: (sources: { a: string; b: string; other: string }) => Record<string, HistoryReading[]>,
) {
  const store = memoryStore();
  const acme = await createTenant(store, { name: 'Acme' }, new Date(now));
  const globex = await createTenant(store, { name: 'Globex' }, new Date(now));
  const hook = (tenantId: string, name: string) =>
    createConnection(store, platformAdmin, tenantId, { type: 'Webhook', name }, new Date(now));
  const [a, b, other] = [
    (await hook(acme.tenant_id, 'a')).connection,
    (await hook(acme.tenant_id, 'b')).connection,
    (await hook(globex.tenant_id, 'other')).connection,
  ];
  const bySource = readingsOf({ a: a.source_id, b: b.source_id, other: other.source_id });
  const asked: { sourceId: string; from: string; to: string }[] = [];
  const deps: HistoryDeps = {
    ...store,
    allConnectionsOfTenant: async (tenantId) => (await store.listConnectionsByTenant(tenantId, { limit: 1000 })).items,
    readSourceHistory: async (sourceId, from, to) => {
      asked.push({ sourceId, from: new Date(from).toISOString(), to: new Date(to).toISOString() });
      return (bySource[sourceId] ?? []).filter((reading) => reading.interval >= from && reading.interval < to);
    },
  };
  return { deps, asked, acme, globex, a, b, other };
}

const empty = { accepted: 0, duplicates: 0, rejected: {}, written_rows: 0, dead_lettered: 0, redriven: 0 };

describe('traffic history', () => {
  it('names the figure each connection series adds to, and none for series no connection owns', () => {
    expect([
      historyFigure('ingestRequests', { source_id: 's', status: '202', code: 'ACCEPTED' }),
      historyFigure('ingestRequests', { source_id: 's', status: '401', code: 'UNAUTHORIZED' }),
      historyFigure('ingestDuplicates', { source_id: 's' }),
      historyFigure('envelopesWritten', { source_id: 's' }),
      historyFigure('deadLettered', { source_id: 's' }),
      historyFigure('redriven', { source_id: 's' }),
      historyFigure('batchesCommitted', {}),
      historyFigure('jobs', { status: 'Queued' }),
    ]).toEqual([
      'accepted',
      'rejected:UNAUTHORIZED',
      'duplicates',
      'written_rows',
      'dead_lettered',
      'redriven',
      null,
      null,
    ]);
  });

  it('lists every 15-minute interval of the range, oldest first, with each figure where it moved', async () => {
    // Prepare
    const { deps, a } = await world(({ a }) => ({
      [a]: [
        { interval: at('2026-11-21T09:15:00.000Z'), figure: 'accepted', value: 5 },
        { interval: at('2026-11-21T09:15:00.000Z'), figure: 'accepted', value: 2 },
        { interval: at('2026-11-21T09:15:00.000Z'), figure: 'rejected:UNAUTHORIZED', value: 3 },
        { interval: at('2026-11-21T09:30:00.000Z'), figure: 'written_rows', value: 7 },
        // A withdrawn acceptance (an envelope that could not be queued) takes one back.
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'accepted', value: -1 },
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'accepted', value: 4 },
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'dead_lettered', value: 1 },
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'redriven', value: 1 },
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'duplicates', value: 2 },
        // Outside the range asked for.
        { interval: at('2026-11-21T08:45:00.000Z'), figure: 'accepted', value: 100 },
      ],
    }));
    // Act
    const history = await connectionHistory(
      deps,
      platformAdmin,
      a.connection_id,
      { from: '2026-11-21T09:00:00.000Z', step: '15m' },
      now,
    );
    // Assess
    expect(history).toEqual({
      from: '2026-11-21T09:00:00.000Z',
      to: '2026-11-21T10:15:00.000Z',
      step_seconds: 900,
      intervals: [
        { start: '2026-11-21T09:00:00.000Z', ...empty },
        { start: '2026-11-21T09:15:00.000Z', ...empty, accepted: 7, rejected: { UNAUTHORIZED: 3 } },
        { start: '2026-11-21T09:30:00.000Z', ...empty, written_rows: 7 },
        { start: '2026-11-21T09:45:00.000Z', ...empty },
        {
          start: '2026-11-21T10:00:00.000Z',
          ...empty,
          accepted: 3,
          duplicates: 2,
          dead_lettered: 1,
          redriven: 1,
        },
      ],
    });
  });

  it('adds intervals up into hours or days, and covers the last day up to now by default', async () => {
    const { deps, a } = await world(({ a }) => ({
      [a]: [
        { interval: at('2026-11-20T23:45:00.000Z'), figure: 'accepted', value: 1 },
        { interval: at('2026-11-21T00:00:00.000Z'), figure: 'accepted', value: 2 },
        { interval: at('2026-11-21T00:45:00.000Z'), figure: 'accepted', value: 3 },
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'accepted', value: 4 },
      ],
    }));
    const hourly = await connectionHistory(deps, platformAdmin, a.connection_id, { step: '1h' }, now);
    const daily = await connectionHistory(
      deps,
      platformAdmin,
      a.connection_id,
      { from: '2026-11-20T12:00:00.000Z', to: '2026-11-21T10:07:00.000Z', step: '1d' },
      now,
    );
    const quarterly = await connectionHistory(deps, platformAdmin, a.connection_id, { step: '15m' }, now);
    expect({
      from: hourly.from,
      to: hourly.to,
      count: hourly.intervals.length,
      moved: hourly.intervals.filter((interval) => interval.accepted > 0).map((i) => [i.start, i.accepted]),
    }).toEqual({
      from: '2026-11-20T10:00:00.000Z',
      to: '2026-11-21T11:00:00.000Z',
      count: 25,
      moved: [
        ['2026-11-20T23:00:00.000Z', 1],
        ['2026-11-21T00:00:00.000Z', 5],
        ['2026-11-21T10:00:00.000Z', 4],
      ],
    });
    expect(daily.intervals.map((i) => [i.start, i.accepted])).toEqual([
      ['2026-11-20T00:00:00.000Z', 1],
      ['2026-11-21T00:00:00.000Z', 9],
    ]);
    expect([quarterly.from, quarterly.to, quarterly.intervals.length]).toEqual([
      '2026-11-20T10:00:00.000Z',
      '2026-11-21T10:15:00.000Z',
      97,
    ]);
  });

  it('reaches back no further than the history is kept, and says where it starts', async () => {
    const { deps, a, asked } = await world(() => ({}));
    const history = await connectionHistory(
      deps,
      platformAdmin,
      a.connection_id,
      { from: '2026-09-01T00:00:00.000Z', step: '1d' },
      now,
    );
    // Kept: from 2026-10-22T10:15 on (30 days); the first whole day kept is the 23rd.
    expect(history.from).toBe('2026-10-23T00:00:00.000Z');
    expect(asked).toEqual([
      { sourceId: a.source_id, from: '2026-10-23T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' },
    ]);
  });

  it('adds up a tenant’s connections, and only its own', async () => {
    const { deps, acme, globex, a } = await world(({ a, b, other }) => ({
      [a]: [{ interval: at('2026-11-21T10:00:00.000Z'), figure: 'accepted', value: 2 }],
      [b]: [
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'accepted', value: 3 },
        { interval: at('2026-11-21T10:00:00.000Z'), figure: 'rejected:SOURCE_PAUSED', value: 1 },
      ],
      [other]: [{ interval: at('2026-11-21T10:00:00.000Z'), figure: 'accepted', value: 1000 }],
    }));
    const query = { from: '2026-11-21T10:00:00.000Z', step: '15m' } as const;
    const viewer = tenantPrincipal(acme.tenant_id, 'TenantViewer');
    expect(await tenantHistory(deps, viewer, acme.tenant_id, query, now)).toEqual({
      from: '2026-11-21T10:00:00.000Z',
      to: '2026-11-21T10:15:00.000Z',
      step_seconds: 900,
      connections: 2,
      intervals: [{ start: '2026-11-21T10:00:00.000Z', ...empty, accepted: 5, rejected: { SOURCE_PAUSED: 1 } }],
    });

    // Another tenant's caller learns nothing: neither the tenant nor the connection exists for it.
    const outsider = tenantPrincipal(globex.tenant_id, 'TenantAdmin');
    expect(await refusal(tenantHistory(deps, outsider, acme.tenant_id, query, now))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await refusal(connectionHistory(deps, outsider, a.connection_id, query, now))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses an empty range and one of more than 3,000 intervals', async () => {
    const { deps, a } = await world(() => ({}));
    for (const query of [
      { from: '2026-11-21T10:00:00.000Z', to: '2026-11-21T10:00:00.000Z', step: '15m' as const },
      { from: '2026-11-21T10:00:00.000Z', to: '2027-11-21T10:00:00.000Z', step: '1h' as const },
    ])
      expect(await refusal(connectionHistory(deps, platformAdmin, a.connection_id, query, now))).toMatchObject({
        code: 'VALIDATION_ERROR',
      });
  });
});
