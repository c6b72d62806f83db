import * as z from 'zod';
import { jobStatuses, jobTypes } from '../../domain/jobs/model.ts';
import { querySpecificationInput } from '../../domain/pipelines/definition.ts';
import { maxQueryRows } from '../../domain/pipelines/queries.ts';
import { id, nextCursor, nullableTimestamp, pageQuery, timestamp } from './common.ts';
import { rerunFields, runParameters } from './pipelines.ts';

export const jobIdParams = z.strictObject({ job_id: id });

export const job = z
  .object({
    job_id: id,
    tenant_id: id,
    job_type: z.enum(jobTypes),
    status: z.enum(jobStatuses),
    partition_key: z.string(),
    payload: z.unknown(),
    source: z.unknown(),
    runner_id: z.string().nullable(),
    error_message: z.string().nullable(),
    rows_in: z.number().int().nullable(),
    rows_out: z.number().int().nullable(),
    rows_rejected: z.number().int().nullable(),
    rows_filtered: z.number().int().nullable().meta({ description: "Rows the definition's `where` left out" }),
    rejection_samples: z.array(z.object({ message_id: z.string(), reason: z.string() })),
    cancel_requested_at: nullableTimestamp,
    committing_at: nullableTimestamp,
    created_at: timestamp,
    dispatched_at: nullableTimestamp,
    started_at: nullableTimestamp,
    completed_at: nullableTimestamp,
    cancelled_at: nullableTimestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Job' });

export const listJobsQuery = z.strictObject({
  tenant_id: id.optional(),
  job_type: z.enum(jobTypes).optional(),
  status: z.enum(jobStatuses).optional(),
  ...pageQuery,
});
export const listJobsResponse = z.object({ jobs: z.array(job), next_cursor: nextCursor });

/** A day partition of the data set a query reads (its dt: a UTC date). */
const queryDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'A date: YYYY-MM-DD');

export const createJobBody = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('pipeline'),
    pipeline_id: id,
    tenant_id: id.optional(),
    parameters: runParameters.optional(),
    ...rerunFields,
  }),
  z.strictObject({
    type: z.literal('query'),
    tenant_id: id.optional(),
    query: querySpecificationInput,
    limit: z.number().int().min(1).max(maxQueryRows).optional(),
    from: queryDay
      .optional()
      .meta({ description: 'The first day (dt, UTC) the query reads; from the oldest when absent' }),
    to: queryDay
      .optional()
      .meta({ description: 'The last day (dt, UTC) the query reads, inclusive; to the newest when absent' }),
  }),
]);
export const createJobResponse = z.object({ job_id: id });

export const jobResultQuery = z.strictObject({ ...pageQuery, limit: pageQuery.limit.default(1000) });

export const jobResult = z
  .object({
    columns: z.array(z.object({ name: z.string(), type: z.string() })),
    rows: z
      .array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])))
      .meta({ description: 'This page: at most `limit` rows and 4 MiB of JSON as the Lambda response carries it' }),
    truncated: z
      .boolean()
      .meta({ description: 'The query stopped before it read every row (`truncated_by` says why)' }),
    truncated_by: z.enum(['limit', 'size', 'scan']).nullable().meta({
      description:
        'What stopped it: its row limit, the 16 MiB of JSON a result may hold, or how much a query reads (4 GiB of the data set’s files, 10 minutes; `scanned` says how far it got); null when not truncated',
    }),
    scanned: z
      .object({
        files: z.number().int(),
        files_total: z.number().int(),
        bytes: z.number().int(),
        bytes_total: z.number().int(),
      })
      .nullable()
      .meta({
        description:
          'How much of the data set the query read, oldest file first: files and bytes of Parquet, of those its snapshot had; null for results stored before it was kept',
      }),
    omitted_cells: z
      .number()
      .int()
      .meta({ description: 'Cells of this page answered as null because their row alone would not fit a page' }),
    omitted: z
      .array(z.object({ row: z.number().int(), column: z.string() }))
      .meta({ description: 'Those cells: the row’s index on this page and the column’s name' }),
    next_cursor: nextCursor,
  })
  .meta({ id: 'QueryResult' });
