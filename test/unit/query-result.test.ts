/** A query job's result answered a page at a time, each page far below Lambda's 6 MB, through the use case's ports. */
import { describe, expect, it } from 'vitest';
import type { Job } from '#shared/domain/jobs/model.ts';
import { queryResult } from '#shared/domain/pipelines/queries.ts';
import { ok, toApiGatewayResult } from '#shared/http/responses.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';

const jobId = '0b0e2f4a-8c2d-4f6e-9a1b-3c5d7e9f1a2b';
const job = {
  job_id: jobId,
  tenant_id: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b',
  job_type: 'Query',
  status: 'Succeeded',
};

/** Lambda's largest synchronous response ("Lambda quotas": 6 MB), as the response's JSON. */
const lambdaResponseBytes = 6_291_556;

/** The bytes Lambda counts for a page: the API Gateway result as JSON, the page's JSON a string inside it. */
const responseBytes = (page: unknown) => Buffer.byteLength(JSON.stringify(toApiGatewayResult(ok(page), 'request-id')));

function deps(rows: (string | number | null)[][], names = ['body']) {
  const stored = {
    columns: [{ name: 'dt', type: 'string' }, ...names.map((name) => ({ name, type: 'string' }))],
    rows,
    truncated: true,
    truncated_by: 'limit',
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
    expect(pages.map((page) => [page.truncated, page.truncated_by, page.omitted_cells])).toEqual([
      [true, 'limit', 0],
      [true, 'limit', 0],
      [true, 'limit', 0],
    ]);
  });

  it('says on every page that a query stopped at its scan bound and how far it read; a result stored before, nothing', async () => {
    const scanned = { files: 2, files_total: 5, bytes: 3_000, bytes_total: 7_500 };
    const ports = deps([['2026-11-21', 'row 0']]);
    const stored = { ...(await ports.getResult()), truncated_by: 'scan', scanned };
    const page = await queryResult({ ...ports, getResult: async () => stored }, platformAdmin, jobId, { limit: 10 });
    expect([page.truncated, page.truncated_by, page.scanned]).toEqual([true, 'scan', scanned]);
    expect((await queryResult(ports, platformAdmin, jobId, { limit: 10 })).scanned).toBeNull();
  });

  it("keeps every page under Lambda's 6 MB however large the rows", async () => {
    // 1,000 rows of 3,000 characters of three UTF-8 bytes each: 9 MB as one answer.
    const rows = Array.from({ length: 1000 }, (_, i) => ['2026-11-21', `${i}:${'€'.repeat(3000)}`]);
    const pages = await allPages(deps(rows), 1000);
    expect(pages.length).toBe(3);
    for (const page of pages) expect(responseBytes(page)).toBeLessThan(lambdaResponseBytes);
    expect(pages.flatMap((page) => page.rows)).toEqual(rows);
  });

  it('counts a page as Lambda carries it: 200 rows of 100,000 quotes each come in pages under 6 MB', async () => {
    // Each row is 100,017 bytes of JSON but about 400,000 inside the response (`"` → `\"` → `\\\"`).
    const quotes = '"'.repeat(100_000);
    const rows = Array.from({ length: 200 }, (_, i) => [`row ${i}`, quotes]);
    const pages = await allPages(deps(rows), 1000);
    expect(pages.map((page) => page.rows.length)).toEqual(Array(20).fill(10));
    for (const page of pages) {
      expect(responseBytes(page)).toBeLessThan(lambdaResponseBytes);
      expect(page.omitted_cells).toBe(0);
    }
    expect(pages.flatMap((page) => page.rows)).toEqual(rows);
  });

  it('answers the largest cells of a row that alone would pass a page as null, and names them', async () => {
    // One row of seven 1,040,000-byte cells: 7.28 MB as a single page.
    const big = 'a'.repeat(1_040_000);
    const columns = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    const smaller = 'b'.repeat(1_000_000);
    const rows = [['2026-11-21', big, big, big, smaller, big, big, big]];
    const [page, ...rest] = await allPages(deps(rows, columns), 1000);
    expect(rest).toEqual([]);
    expect(page?.rows).toEqual([['2026-11-21', null, null, null, smaller, big, big, big]]);
    expect(page?.omitted_cells).toBe(3);
    expect(page?.omitted).toEqual([
      { row: 0, column: 'c0' },
      { row: 0, column: 'c1' },
      { row: 0, column: 'c2' },
    ]);
    expect(responseBytes(page)).toBeLessThan(lambdaResponseBytes);
  });

  it('cuts a row of quotes by what its cells cost escaped, on a page of its own if need be', async () => {
    // Four cells of 520,000 quotes: 2.08 MB each inside the response, 8.3 MB for the row; two of them fit a page.
    const quotes = '"'.repeat(520_000);
    const text = 'x'.repeat(100_000);
    const rows = [
      ['2026-11-21', text, 'small', 'small', 'small'],
      ['2026-11-21', quotes, quotes, quotes, quotes],
      ['2026-11-21', 'after', null, 'after', 'after'],
    ];
    const pages = await allPages(deps(rows, ['c0', 'c1', 'c2', 'c3']), 1000);
    expect(pages.map((page) => page.rows)).toEqual([[rows[0]], [['2026-11-21', null, null, quotes, quotes], rows[2]]]);
    expect(pages.map((page) => [page.omitted_cells, page.omitted])).toEqual([
      [0, []],
      [
        2,
        [
          { row: 0, column: 'c0' },
          { row: 0, column: 'c1' },
        ],
      ],
    ]);
    for (const page of pages) expect(responseBytes(page)).toBeLessThan(lambdaResponseBytes);
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
