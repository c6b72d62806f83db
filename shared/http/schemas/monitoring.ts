import * as z from 'zod';
import { redriveBatchLimit } from '../../domain/monitoring/model.ts';
import { id, nextCursor, nullableTimestamp, pageQuery, timestamp } from './common.ts';

export const monitoringPageQuery = z.strictObject({ ...pageQuery });

export const rejection = z
  .object({
    at: timestamp,
    status: z.number().int(),
    code: z.string(),
    content_type: z.string().nullable(),
    payload_size: z.number().int(),
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Rejection' });
export const listRejectionsResponse = z.object({ rejections: z.array(rejection), next_cursor: nextCursor });

export const failedDelivery = z
  .object({ message_id: id, failed_at: timestamp, attempts: z.number().int(), last_error: z.string() })
  .meta({ id: 'FailedDelivery' });
export const listFailedDeliveriesResponse = z.object({
  failed_deliveries: z.array(failedDelivery),
  next_cursor: nextCursor,
});
export const redriveBody = z.strictObject({
  message_ids: z
    .array(id)
    .min(1)
    .max(redriveBatchLimit)
    .optional()
    .meta({
      description: `At most ${redriveBatchLimit}, the most one call redrives; absent: all, ${redriveBatchLimit} per call`,
    }),
});
export const redriveResponse = z.object({
  redriven: z.number().int().meta({ description: 'Put back on the ingest queue by this call (at most 250)' }),
  remaining: z.number().int().meta({
    description: 'Failed deliveries of the selection still waiting: call again until it is 0',
  }),
});

export const connectionStats = z
  .object({
    accepted: z.number().int().meta({ description: 'Requests answered 202' }),
    duplicates: z.number().int().meta({
      description: 'Of those, repeats of an earlier request inside its deduplication window: they add no row',
    }),
    rejected: z.record(z.string(), z.number().int()),
    written_rows: z.number().int(),
    dead_lettered: z.number().int().meta({ description: 'Envelopes that exhausted their deliveries, ever' }),
    redriven: z.number().int().meta({ description: 'Failed deliveries put back on the ingest queue, ever' }),
    unaccounted: z.number().int().meta({
      description:
        'accepted − duplicates − written_rows − (dead_lettered − redriven): envelopes on the ingest queue while the writer works; a figure that stays above zero once the queue is idle means envelopes went missing',
    }),
    last_ingest_at: nullableTimestamp,
    last_write_at: nullableTimestamp,
    oldest_unwritten_age_seconds: z.number().int().nullable(),
  })
  .meta({ id: 'ConnectionStats' });

export const run = z
  .object({
    run_id: id,
    version: z.number().int(),
    files: z.number().int(),
    rows: z.number().int(),
    bytes: z.number().int(),
    started_at: timestamp,
    completed_at: nullableTimestamp,
    duration_ms: z.number().int().nullable(),
    attempt: z.number().int(),
  })
  .meta({ id: 'Run' });
export const listRunsResponse = z.object({ runs: z.array(run), next_cursor: nextCursor });

export const eventsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(50).default(20),
  cursor: pageQuery.cursor,
  message_id: id.optional().meta({ description: 'Only the event with this message id' }),
  from: timestamp.optional().meta({ description: 'Only events received at or after this time' }),
  to: timestamp.optional().meta({ description: 'Only events received before this time' }),
});

export const event = z
  .object({
    message_id: id,
    received_at: timestamp,
    content_type: z.string().nullable(),
    payload_size: z.number().int(),
    payload: z.string().meta({
      description:
        'The body as received, base64: whole up to 32 KiB in lists and 1 MiB for a message id, else its start',
    }),
    payload_truncated: z.boolean(),
  })
  .meta({ id: 'Event' });
export const listEventsResponse = z.object({
  events: z.array(event),
  next_cursor: nextCursor,
  files_read: z.number().int().meta({ description: 'Parquet files this request read' }),
});
