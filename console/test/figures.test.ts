/**
 * A connection's figures as the console lays them out: each column's label beside its value, and
 * where the accepted requests are, lost rows among them (marked as a loss once there are any).
 * A document of a few lines stands in for the browser's (./stand-in-dom.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Stats } from '../src/api.ts';
import { table } from '../src/dom.ts';
import { accountOf, statsCells } from '../src/views/figures.ts';
import { StandInElement, standInDocument } from './stand-in-dom.ts';

beforeAll(standInDocument);
afterAll(() => {
  vi.unstubAllGlobals();
});

const stats = (lost: number): Stats => ({
  accepted: 13,
  duplicates: 1,
  rejected: { PAYLOAD_TOO_LARGE: 2 },
  written_rows: 8,
  expired_rows: 1,
  lost_rows: lost,
  dead_lettered: 3,
  redriven: 1,
  deleted_dead_letters: 1,
  unaccounted: 1,
  last_ingest_at: '2026-01-01T00:00:02.000Z',
  last_write_at: '2026-01-01T00:00:03.000Z',
  staged_rows: 1,
  oldest_unwritten_age_seconds: 90,
  commit_failure: null,
});

/** The table's cells as label → [text, class of what the cell holds]. */
function cells(lost: number): Record<string, [string, string | null]> {
  const rendered = table('Since the connection was created', statsCells(), [
    { stats: stats(lost) },
  ]) as unknown as StandInElement;
  return Object.fromEntries(
    rendered
      .all()
      .filter((element) => element.tagName === 'td')
      .map((cell) => {
        const inner = cell.all()[0];
        return [cell.attributes.get('data-label'), [cell.textContent, inner?.attributes.get('class') ?? null]];
      }),
  );
}

describe("a connection's figures in the console", () => {
  it('show lost rows beside the other figures, as a loss once there are any', () => {
    expect(cells(0)).toEqual({
      Accepted: ['13', null],
      Duplicates: ['1', null],
      Rejected: ['PAYLOAD_TOO_LARGE 2', null],
      Written: ['8', null],
      'Staged (awaiting commit)': ['1', null],
      'Dead-lettered': ['3', null],
      Lost: ['0', null],
      'Last ingest': ['2026-01-01 00:00:02 UTC', null],
      'Last write': ['2026-01-01 00:00:03 UTC', null],
      'Oldest staged': ['90 s', null],
    });
    expect(cells(3).Lost).toEqual(['3', 'bad']);
  });

  it('count lost rows where the accepted requests are', () => {
    const lost = (count: number) => {
      const [term, value] = accountOf(stats(count)).find(([, , id]) => id === 'account-lost') ?? [];
      return [term, value instanceof StandInElement ? [value.textContent, value.attributes.get('class')] : value];
    };
    expect(lost(0)).toEqual(['Lost (staged, but the staged copy was gone at its commit)', 0]);
    expect(lost(3)).toEqual(['Lost (staged, but the staged copy was gone at its commit)', ['3', 'bad']]);
  });

  it('count as waiting for a redrive only the failed deliveries neither redriven nor deleted', () => {
    const [term, value] = accountOf(stats(0)).find(([, , id]) => id === 'account-failed') ?? [];
    expect([term, value]).toEqual([
      'Failed deliveries waiting for a redrive',
      '1 (3 dead-lettered, 1 redriven, 1 deleted past the data retention)',
    ]);
  });
});
