/** A query job's result answered a page at a time, each page far below Lambda's 6 MB, through the use case's ports. */
import { describe, expect, it } from 'vitest';
import type { Job } from '#shared/domain/jobs/model.ts';
import { queryResult } from '#shared/domain/jobs/queries.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';

const jobId = '0b0e2f4a-8c2d-4f6e-9a1b-3c5d7e9f1a2b';
const job = {
  job_id: jobId,
  tenant_id: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b',
  job_type: 'Query',
  status: 'Succeeded',
};

function deps(rows: (string | number | null)[][]) {
  const stored = {
    columns: [
      { name: 'dt', type: 'string' },
      { name: 'body', type: 'string' },
    ],
    rows,
    truncated: true,
  };
  return {
    getJob: async () => job as Job,
    getResult: async () => stored,
    cursors: memoryStore().cursorsOf(`job-result|${jobId}`),
  };
}

async function allPages(ports: ReturnType<typeof deps>, limit: number) {
  const pages = [await queryResult(ports, platformAdmin, jobId, { limit })];
  for (let cursor = pages[0]?.next_cursor; cursor; ) {
    const page = await queryResult(ports, platformAdmin, jobId, { limit, cursor });
    pages.push(page);
    cursor = page.next_cursor;
  }
  return pages;
}

describe('a query result', () => {
  it('comes a page of at most `limit` rows at a time, every row once, in order', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ['2026-11-21', `row ${i}`]);
    const pages = await allPages(deps(rows), 1000);
    expect(pages.map((page) => page.rows.length)).toEqual([1000, 1000, 500]);
    expect(pages.flatMap((page) => page.rows)).toEqual(rows);
    expect(pages.map((page) => [page.truncated, page.omitted_cells])).toEqual([
      [true, 0],
      [true, 0],
      [true, 0],
    ]);
  });

  it('keeps every page under about 4 MiB of JSON however large the rows (Lambda answers at most 6 MB)', async () => {
    // 1,000 rows of 3,000 characters of three UTF-8 bytes each: 9 MB as one answer.
    const rows = Array.from({ length: 1000 }, (_, i) => ['2026-11-21', `${i}:${'€'.repeat(3000)}`]);
    const pages = await allPages(deps(rows), 1000);
    expect(pages.length).toBe(3);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThan(4.5 * 1024 * 1024);
    expect(pages.flatMap((page) => page.rows)).toEqual(rows);
  });

  it('answers a cell over 1 MiB as null, and counts it', async () => {
    const rows = [
      ['2026-11-21', 'small'],
      ['2026-11-21', 'y'.repeat(1024 * 1024 + 1)],
    ];
    const [page] = await allPages(deps(rows), 1000);
    expect(page?.rows).toEqual([
      ['2026-11-21', 'small'],
      ['2026-11-21', null],
    ]);
    expect(page?.omitted_cells).toBe(1);
  });

  it('refuses a cursor it did not issue with 400', async () => {
    const ports = deps([['2026-11-21', 'a']]);
    const crafted = await memoryStore().cursorsOf('job-result|another').seal(0);
    const negative = await ports.cursors.seal(-5);
    for (const cursor of [crafted, negative, 'e30.AAAA'])
      expect(await refusal(queryResult(ports, platformAdmin, jobId, { limit: 10, cursor }))).toMatchObject({
        code: 'VALIDATION_ERROR',
      });
  });
});
