/**
 * A tenant's overview covers every connection of the tenant, however many: the figures and the
 * warnings of its 180th connection are shown as its first's. A stand-in API answers the console's
 * requests as Tributary does: the tenant's connections with their figures a page at a time (at most
 * 100, then `next_cursor`; more is a 400).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection, Stats } from '../src/api.ts';
import { deliveryTrouble, tenantRows } from '../src/views/overview.ts';
import { type StandInElement, standInDocument } from './stand-in-dom.ts';

const tenantId = '7b0c2a52-6f0e-4d43-9a8e-1f5e0e0c7a10';
const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const connectionOf = (n: number): Connection => ({
  connection_id: idOf(n),
  tenant_id: tenantId,
  type: 'Webhook',
  name: `hook-${n}`,
  status: 'Active',
  source_id: idOf(10_000 + n),
  source_status: 'Active',
  data_set_id: idOf(20_000 + n),
  token_prefix: 'trb_ing_abcd',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

const quiet: Stats = {
  accepted: 4,
  duplicates: 0,
  rejected: {},
  written_rows: 4,
  expired_rows: 0,
  lost_rows: 0,
  dead_lettered: 0,
  redriven: 0,
  deleted_dead_letters: 0,
  unaccounted: 0,
  last_ingest_at: '2026-01-01T00:00:02.000Z',
  last_write_at: '2026-01-01T00:00:03.000Z',
  staged_rows: 0,
  oldest_unwritten_age_seconds: null,
  commit_failure: null,
};

/** Connection 180's rows failed: 3 dead-lettered, 1 redriven, 2 lost. */
const troubled: Stats = { ...quiet, accepted: 9, dead_lettered: 3, redriven: 1, lost_rows: 2 };

function standInApi(count: number) {
  const connections = Array.from({ length: count }, (_, i) => connectionOf(i + 1));
  const asked: string[] = [];
  const inFlight = { now: 0, most: 0 };
  const answer = (status: number, body: unknown) => ({
    ok: status < 300,
    status,
    statusText: '',
    text: async () => JSON.stringify(body),
  });
  const fetch = async (path: string) => {
    asked.push(path);
    const url = new URL(path, 'http://console.test/');
    if (url.pathname === `/api/tenants/${tenantId}/stats`) {
      inFlight.most = Math.max(inFlight.most, ++inFlight.now);
      await new Promise((resolve) => setTimeout(resolve, 0));
      inFlight.now--;
      const limit = Number(url.searchParams.get('limit') ?? 100);
      if (limit < 1 || limit > 100) return answer(400, { code: 'VALIDATION_ERROR', message: 'limit' });
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const page = connections.slice(from, from + limit).map((connection) => ({
        connection,
        stats: connection.connection_id === idOf(180) ? troubled : quiet,
      }));
      const next = from + limit < connections.length ? String(from + limit) : null;
      return answer(200, { connections: page, next_cursor: next });
    }
    return answer(404, { code: 'NOT_FOUND', message: 'Not found' });
  };
  return { fetch, asked, inFlight };
}

let stub: ReturnType<typeof standInApi>;
beforeEach(() => {
  stub = standInApi(250);
  vi.stubGlobal('fetch', stub.fetch);
  vi.stubGlobal('sessionStorage', { getItem: () => 'trb_key_test' });
  standInDocument();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe("a tenant's overview", () => {
  it('reads every connection of a tenant of 250, with the figures of each', async () => {
    const rows = await tenantRows(tenantId, new AbortController().signal);
    expect(rows).toHaveLength(250);
    expect(new Set(rows.map((row) => row.connection.name)).size).toBe(250);
    const far = rows.find((row) => row.connection.name === 'hook-180');
    expect(far?.stats).toMatchObject({ dead_lettered: 3, redriven: 1, lost_rows: 2 });
    expect(rows.find((row) => row.connection.name === 'hook-250')?.stats).toMatchObject({ accepted: 4 });
    // In the order listed, in three requests of a hundred, one after the other (not one per connection).
    expect(rows.map((row) => row.connection.name).slice(0, 3)).toEqual(['hook-1', 'hook-2', 'hook-3']);
    expect(stub.asked).toEqual([
      `api/tenants/${tenantId}/stats?limit=100`,
      `api/tenants/${tenantId}/stats?limit=100&cursor=100`,
      `api/tenants/${tenantId}/stats?limit=100&cursor=200`,
    ]);
    expect(stub.inFlight.most).toBe(1);
  });

  it('warns above the table of the failed deliveries and lost rows of connection 180, and of no other', async () => {
    const rows = await tenantRows(tenantId, new AbortController().signal);
    const warning = deliveryTrouble(rows) as unknown as StandInElement;
    expect(warning.attributes.get('role')).toBe('alert');
    expect(warning.textContent).toBe(
      'A connection has failed deliveries or lost rowshook-180: 2 failed deliveries wait for a redrive, 2 rows lost.',
    );
    const link = warning.all().find((element) => element.tagName === 'a');
    expect(link?.attributes.get('href')).toBe(`#/connections/${idOf(180)}`);
  });

  it('shows no warning while every failed delivery was redriven and nothing was lost', () => {
    const redriven = { ...quiet, dead_lettered: 2, redriven: 2 };
    expect(deliveryTrouble([{ connection: connectionOf(1), stats: redriven }])).toBeNull();
    // Deleted past the data retention: none waits for a redrive either.
    const deleted = { ...quiet, dead_lettered: 3, redriven: 1, deleted_dead_letters: 2 };
    expect(deliveryTrouble([{ connection: connectionOf(1), stats: deleted }])).toBeNull();
    expect(deliveryTrouble([{ connection: connectionOf(2), stats: null }])).toBeNull();
  });
});
