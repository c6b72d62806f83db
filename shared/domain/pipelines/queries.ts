/** Queries over a data set: the pipeline decoding without writing a table, the rows kept as the job's result. */
import * as z from 'zod';
import { conflict, invalid, notFound } from '../errors.ts';
import { visibleJob } from '../jobs/manage-jobs.ts';
import type { Job } from '../jobs/model.ts';
import { enqueue, newJob, type QueueDeps } from '../jobs/new-job.ts';
import type { JobRepository, JobResults } from '../jobs/ports.ts';
import type { PageRequest } from '../pagination.ts';
import { effectiveTenantId, type Principal } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import { type QuerySpecification, querySpecification } from './definition.ts';
import { type PipelineDeps, requireSourceInTenant } from './use-cases.ts';

/** Query jobs return at most this many rows (default 1000). */
export const maxQueryRows = 10_000;

/** What a query job carries: the query, how many rows its result keeps, and the days (dt) it reads (all when absent). */
export const queryJobPayload = z.object({
  query: querySpecification,
  limit: z.number().int().positive(),
  from: z.string().optional(),
  to: z.string().optional(),
});
export type QueryJobPayload = z.infer<typeof queryJobPayload>;

/** A query over a data set: the pipeline decoding, without writing a table; the rows are the job's result. */
export async function startQuery(
  deps: Pick<PipelineDeps, 'getTenant' | 'getDataSet'> & QueueDeps,
  principal: Principal,
  input: {
    tenant_id?: string | undefined;
    query: QuerySpecification;
    limit?: number | undefined;
    from?: string | undefined;
    to?: string | undefined;
  },
  now = new Date(),
): Promise<Job> {
  const tenantId = effectiveTenantId(principal, input.tenant_id);
  if (!tenantId) throw invalid('A query runs in a tenant', [{ path: 'tenant_id', message: 'Required' }]);
  for (const key of ['from', 'to'] as const) {
    const day = input[key];
    if (day !== undefined && !isDay(day))
      throw invalid('The days are not valid', [{ path: key, message: 'Must be a date (UTC): YYYY-MM-DD' }]);
  }
  if (input.from && input.to && input.from > input.to)
    throw invalid('The days are not valid', [{ path: 'from', message: 'Must not be after to' }]);
  await tenantFor(deps, principal, tenantId, 'write');
  await requireSourceInTenant(deps, input.query, tenantId, 'query');
  const job = newJob(
    {
      tenant_id: tenantId,
      job_type: 'Query',
      payload: {
        query: input.query,
        limit: input.limit ?? 1000,
        ...(input.from ? { from: input.from } : {}),
        ...(input.to ? { to: input.to } : {}),
      },
      source: { data_set_id: input.query.source.data_set_id },
    },
    now,
  );
  await enqueue(deps, job, now);
  return job;
}

/** Whether a text is a calendar day: YYYY-MM-DD, and a date that exists (not 2026-02-30). */
const isDay = (text: string) => {
  const at = Date.parse(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === text;
};

/** A page of a query's result: at most this many rows (the contract's list conventions)… */
export const resultPageRows = 1000;
/**
 * …and at most this many bytes of JSON as the Lambda response carries it: the body travels as a JSON string inside
 * the response, so each `"` and `\\` costs two bytes and a control character seven. Lambda answers at most 6 MB
 * (6,291,556 bytes); this leaves room for the response's other fields whatever the rows hold.
 */
export const resultPageBytes = 4 * 1024 * 1024;

/** How much of the data set a query read: files and bytes of Parquet, of those its snapshot has. */
export interface QueryScan {
  files: number;
  files_total: number;
  bytes: number;
  bytes_total: number;
}

/** A cell answered as null because its row alone would not fit a page: the row's index on the page, the column's name. */
export interface OmittedCell {
  row: number;
  column: string;
}

type ResultRow = (string | number | boolean | null)[];

interface StoredResult {
  columns: { name: string; type: string }[];
  rows: ResultRow[];
  truncated: boolean;
  /** Why the query stopped early: its row limit, the size a result may have, or how much a query reads (absent in results stored before). */
  truncated_by?: 'limit' | 'size' | 'scan' | null;
  /** How much of the data set it read (absent in results stored before). */
  scanned?: QueryScan;
}

/** Bytes of a JSON text once it is itself a string inside the Lambda response. */
const escapedBytes = (json: string) => Buffer.byteLength(JSON.stringify(json)) - 2;

/**
 * A query job's result, a page at a time.
 * Input: the job, a page request. Output: the columns, the page's rows, whether and why the query stopped early
 * (`truncated`, `truncated_by`), how much of the data set it read (`scanned`), the cursor to the next page, and the cells left out for size.
 *  1. The job must be visible, a query, and have succeeded (404 / 409).
 *  2. A page holds at most `limit` rows and at most 4 MiB as the Lambda response carries it, so an answer never
 *     reaches Lambda's 6 MB whatever the rows hold; the next page has the rest.
 *  3. A row that alone would pass that has its largest cells answered as null until it fits, each one counted in
 *     `omitted_cells` and named in `omitted` (so a null left out is told from a null value).
 */
export async function queryResult(
  deps: Pick<JobRepository, 'getJob'> &
    JobResults & { cursors: { seal(position: unknown): Promise<string>; open(cursor: string): Promise<unknown> } },
  principal: Principal,
  jobId: string,
  page: PageRequest = { limit: resultPageRows },
) {
  const job = await visibleJob(deps, principal, jobId);
  if (job.job_type !== 'Query') throw notFound('Job result');
  if (job.status !== 'Succeeded') throw conflict(`The query is ${job.status}; its result exists once it has succeeded`);
  let offset = 0;
  if (page.cursor) {
    const position = await deps.cursors.open(page.cursor);
    if (!Number.isInteger(position) || (position as number) < 0)
      throw invalid('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this list' }]);
    offset = position as number;
  }
  const result = (await deps.getResult(jobId)) as StoredResult | null;
  if (!result) throw notFound('Job result');
  const truncatedBy = result.truncated_by ?? (result.truncated ? 'limit' : null);
  const rows: ResultRow[] = [];
  const omitted: OmittedCell[] = [];
  // Everything but the rows and the omitted cells, with room for a cursor (a few hundred bytes).
  const frame = { columns: result.columns, truncated: true, truncated_by: truncatedBy, omitted_cells: 0 };
  const frameBytes = escapedBytes(JSON.stringify(frame)) + 1024;
  let bytes = frameBytes;
  let next = offset;
  for (; next < result.rows.length && rows.length < page.limit; next++) {
    const fitted = fitRow(result.rows[next] ?? [], result.columns, resultPageBytes - frameBytes, rows.length);
    if (rows.length > 0 && bytes + fitted.bytes > resultPageBytes) break;
    rows.push(fitted.row);
    omitted.push(...fitted.omitted);
    bytes += fitted.bytes;
  }
  return {
    columns: result.columns,
    rows,
    truncated: result.truncated,
    truncated_by: truncatedBy,
    scanned: result.scanned ?? null,
    omitted_cells: omitted.length,
    omitted,
    next_cursor: next < result.rows.length ? await deps.cursors.seal(next) : null,
  };
}

/**
 * A row and what it costs on a page (its escaped JSON, a comma, the omitted cells it names). A row over `budget`
 * loses its largest cells, largest first, until it fits; with only small cells left (dates, numbers, nulls) it does.
 */
function fitRow(row: ResultRow, columns: StoredResult['columns'], budget: number, index: number) {
  const sizes = row.map((cell) => escapedBytes(JSON.stringify(cell)));
  // `[` and `]`, a comma between cells, and one after the row.
  let bytes = sizes.reduce((sum, size) => sum + size + 1, 2);
  if (bytes <= budget) return { row, omitted: [], bytes };
  const cells = [...row];
  const omitted: OmittedCell[] = [];
  const largestFirst = sizes.map((size, i) => ({ size, i })).sort((a, b) => b.size - a.size);
  for (const { size, i } of largestFirst) {
    if (bytes <= budget) break;
    const cell = { row: index, column: columns[i]?.name ?? String(i) };
    cells[i] = null;
    omitted.push(cell);
    bytes += escapedBytes('null') - size + escapedBytes(JSON.stringify(cell)) + 1;
  }
  return { row: cells, omitted, bytes };
}
