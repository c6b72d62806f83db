/** Queries over a data set: the pipeline decoding without writing a table, the rows kept as the job's result. */
import { conflict, invalid, notFound } from '../errors.ts';
import type { PageRequest } from '../pagination.ts';
import type { QuerySpecification } from '../pipelines/definition.ts';
import { type PipelineDeps, requireSourceInTenant } from '../pipelines/use-cases.ts';
import { effectiveTenantId, type Principal } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import { visibleJob } from './manage-jobs.ts';
import type { Job } from './model.ts';
import { enqueue, newJob, type QueueDeps } from './new-job.ts';
import type { JobRepository, JobResults } from './ports.ts';

/** Query jobs return at most this many rows (default 1000). */
export const maxQueryRows = 10_000;

/** A query over a data set: the pipeline decoding, without writing a table; the rows are the job's result. */
export async function startQuery(
  deps: Pick<PipelineDeps, 'getTenant' | 'getDataSet'> & QueueDeps,
  principal: Principal,
  input: { tenant_id?: string | undefined; query: QuerySpecification; limit?: number | undefined },
  now = new Date(),
): Promise<Job> {
  const tenantId = effectiveTenantId(principal, input.tenant_id);
  if (!tenantId) throw invalid('A query runs in a tenant', [{ path: 'tenant_id', message: 'Required' }]);
  await tenantFor(deps, principal, tenantId, 'write');
  await requireSourceInTenant(deps, input.query, tenantId, 'query');
  const job = newJob(
    {
      tenant_id: tenantId,
      job_type: 'Query',
      payload: { query: input.query, limit: input.limit ?? 1000 },
      source: { data_set_id: input.query.source.data_set_id },
    },
    now,
  );
  await enqueue(deps, job, now);
  return job;
}

/** A page of a query's result: at most this many rows (the contract's list conventions)… */
export const resultPageRows = 1000;
/** …and at most about this much JSON, far below Lambda's 6 MB answer (the next page has the rest). */
export const resultPageBytes = 4 * 1024 * 1024;
/** A single cell larger than this is answered as null and counted in `omitted_cells` (its row could not fit a page). */
export const resultCellBytes = 1024 * 1024;

interface StoredResult {
  columns: { name: string; type: string }[];
  rows: (string | number | boolean | null)[][];
  truncated: boolean;
}

/**
 * A query job's result, a page at a time.
 * Input: the job, a page request. Output: the columns, the page's rows, whether the query stopped at its
 * limit (`truncated`), the cursor to the next page, and the cells left out for size.
 *  1. The job must be visible, a query, and have succeeded (404 / 409).
 *  2. A page holds at most `limit` rows and about 4 MiB of JSON: an answer never nears Lambda's 6 MB,
 *     whatever the rows hold. A cell over 1 MiB is answered as null and counted in `omitted_cells`.
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
  const rows: StoredResult['rows'] = [];
  let bytes = Buffer.byteLength(JSON.stringify(result.columns));
  let omitted = 0;
  let next = offset;
  for (; next < result.rows.length && rows.length < page.limit; next++) {
    let cut = 0;
    const row = (result.rows[next] ?? []).map((cell) => {
      if (typeof cell === 'string' && Buffer.byteLength(cell) > resultCellBytes) {
        cut++;
        return null;
      }
      return cell;
    });
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (rows.length > 0 && bytes + size > resultPageBytes) break;
    rows.push(row);
    bytes += size;
    omitted += cut;
  }
  return {
    columns: result.columns,
    rows,
    truncated: result.truncated,
    omitted_cells: omitted,
    next_cursor: next < result.rows.length ? await deps.cursors.seal(next) : null,
  };
}
