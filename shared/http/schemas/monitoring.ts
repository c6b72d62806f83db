import * as z from 'zod';
import { jsonPath } from '../../domain/json-path.ts';
import { maxSearchBytes } from '../../domain/monitoring/events.ts';
import { redriveBatchLimit } from '../../domain/monitoring/failed-deliveries.ts';
import { historyRetentionDays, historySteps } from '../../domain/monitoring/history.ts';
import { id, nextCursor, nullableTimestamp, pageQuery, timestamp } from './common.ts';
import { connection } from './connections.ts';

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
      description: `Only these failed deliveries: at most ${redriveBatchLimit}, the most one call redrives`,
    }),
  from: timestamp.optional().meta({ description: 'Only those that failed at or after this time' }),
  to: timestamp.optional().meta({ description: 'Only those that failed before this time' }),
  error_category: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{1,63}$/, 'An UPPER_SNAKE category, such as STORE_UNREACHABLE')
    .optional()
    .meta({
      description:
        'Only those whose last_error starts with this category (STORE_UNREACHABLE, ACCESS_DENIED, TABLE_PROTOCOL_UNSUPPORTED, …; OTHER for an error that names none)',
    }),
});
export const redriveResponse = z.object({
  redriven: z
    .number()
    .int()
    .meta({ description: `Put back on the ingest queue by this call (at most ${redriveBatchLimit})` }),
  by_category: z.record(z.string(), z.number().int()).meta({ description: 'Those redriven, by error category' }),
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
    expired_rows: z.number().int().meta({
      description:
        "Staged envelopes left out of the table because their day was already past the table's data retention, ever",
    }),
    lost_rows: z.number().int().meta({
      description:
        'Staged envelopes set aside unwritten because their staged object was gone at their last commit attempt: lost, ever',
    }),
    dead_lettered: z.number().int().meta({ description: 'Envelopes that exhausted their deliveries, ever' }),
    redriven: z.number().int().meta({ description: 'Failed deliveries put back on the ingest queue, ever' }),
    deleted_dead_letters: z.number().int().meta({
      description:
        'Failed deliveries deleted without a redrive, ever: their day was past the data retention (or their data set was deleted). They stay counted in dead_lettered; those waiting for a redrive are dead_lettered − redriven − deleted_dead_letters',
    }),
    unaccounted: z.number().int().meta({
      description:
        'accepted − duplicates − written_rows − expired_rows − lost_rows − (dead_lettered − redriven): envelopes on the ingest queue or staged (staged_rows) while they wait for their commit; a figure above staged_rows once the queue is idle means envelopes went missing',
    }),
    last_ingest_at: nullableTimestamp,
    last_write_at: nullableTimestamp,
    staged_rows: z.number().int().meta({
      description: 'Accepted envelopes staged and not yet committed to the table (listed as pending events)',
    }),
    oldest_unwritten_age_seconds: z.number().int().nullable(),
    commit_failure: z.object({ attempts: z.number().int(), last_error: z.string() }).nullable().meta({
      description: 'Why the last commit of the staged envelopes failed; they are tried again, five times in all',
    }),
  })
  .meta({ id: 'ConnectionStats' });

export const historyQuery = z.strictObject({
  from: timestamp.optional().meta({
    description: `The first interval is the one holding this time (default: a day before to; at most ${historyRetentionDays} days ago, the history kept)`,
  }),
  to: timestamp.optional().meta({ description: 'The last interval is the one holding this time (default: now)' }),
  step: z
    .enum(Object.keys(historySteps) as [keyof typeof historySteps, ...(keyof typeof historySteps)[]])
    .default('15m')
    .meta({ description: 'The length of each interval: 15 minutes, an hour or a day (UTC)' }),
});

export const historyInterval = z
  .object({
    start: timestamp,
    accepted: z.number().int().meta({ description: 'Requests answered 202 in the interval' }),
    duplicates: z.number().int(),
    rejected: z.record(z.string(), z.number().int()).meta({ description: 'Refused requests by code' }),
    written_rows: z.number().int(),
    dead_lettered: z.number().int(),
    redriven: z.number().int(),
  })
  .meta({ id: 'HistoryInterval' });

export const historyResponse = z
  .object({
    from: timestamp.meta({ description: 'Start of the first interval' }),
    to: timestamp.meta({ description: 'End of the last interval' }),
    step_seconds: z.number().int(),
    intervals: z.array(historyInterval).meta({ description: 'Every interval of the range, oldest first' }),
  })
  .meta({ id: 'TrafficHistory' });

export const tenantHistoryResponse = historyResponse
  .extend({ connections: z.number().int().meta({ description: 'Connections whose traffic is added up' }) })
  .meta({ id: 'TenantTrafficHistory' });

/** A page of a tenant's connections with their figures: at most a hundred, each read as a connection's stats. */
export const tenantStatsQuery = z.strictObject({
  ...pageQuery,
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
export const tenantStatsResponse = z
  .object({
    connections: z.array(z.object({ connection, stats: connectionStats })),
    next_cursor: nextCursor,
  })
  .meta({ id: 'TenantConnectionStats' });

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
  contains: z
    .string()
    .refine((text) => {
      const bytes = Buffer.byteLength(text, 'utf8');
      return bytes >= 1 && bytes <= maxSearchBytes;
    }, `Must be 1 to ${maxSearchBytes} bytes of UTF-8`)
    .optional()
    .meta({
      description:
        'Only events whose raw body (decoded from base64) holds these bytes: the UTF-8 of the text, case-sensitive, 1 to 1,000 bytes',
    }),
  json_path: jsonPath.optional().meta({
    description:
      'With json_equals: only events whose body is JSON with this value at this path ($ then .key, ["key"] or [index] steps)',
  }),
  json_equals: z
    .string()
    .refine((text) => Buffer.byteLength(text, 'utf8') <= maxSearchBytes, `At most ${maxSearchBytes} bytes of UTF-8`)
    .optional()
    .meta({
      description:
        'With json_path: the value it must hold, as text (a string itself; a number, true, false or null as JSON writes it)',
    }),
  event_type: z.string().min(1).max(200).optional().meta({
    description:
      "Only events of this type, as `event_type` reads it (where the connection's signature preset says the provider puts it), exactly",
  }),
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
    pending: z.boolean().meta({
      description:
        'Accepted and staged, not yet in a commit of the table: readers of the table do not see it until its next commit',
    }),
    headers: z.record(z.string(), z.string()).nullable().meta({
      description:
        'The request headers as received (names lowercase), without credentials (authorization, cookies, signature headers); null for events stored before headers were kept',
    }),
    event_type: z.string().nullable().meta({
      description:
        "The provider's event type, where the connection's signature preset says it puts one (GitHub: the X-GitHub-Event header; Stripe: the body's type); else null",
    }),
  })
  .meta({ id: 'Event' });
export const listEventsResponse = z.object({
  events: z.array(event),
  next_cursor: nextCursor,
  files_read: z.number().int().meta({ description: 'Parquet files this request read' }),
  bytes_read: z.number().int().meta({ description: 'Bytes of Parquet this request read' }),
  events_scanned: z
    .number()
    .int()
    .meta({ description: 'Events of the range (before the cursor) this request considered, matching or not' }),
  files_left: z
    .number()
    .int()
    .meta({ description: 'Files of the range this request did not reach: the cursor goes on to them' }),
  scanned_back_to: nullableTimestamp.meta({
    description:
      'With a cursor: every event of the range received at or after this time was considered, older ones were not yet; null when nothing is left',
  }),
});
