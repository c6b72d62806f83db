import * as z from 'zod';
import { isCredentialHeader } from './credential-headers.ts';

/**
 * The ingest door's count of 202s for the envelope's source, as of this envelope (included): the
 * counting process's epoch and its running totals there (shared/domain/observability/tally.ts), and
 * its totals of all sources (absent on envelopes queued before they were counted). The shared
 * counters are raised to them as the envelope leaves staging, so a door that never writes its own
 * counts loses none that reached its table. A field a later door adds is dropped, not refused: during a
 * deploy a writer one version older reads the new door's envelopes (refused, they would become failed
 * deliveries), and a receipt's figure it does not know is only a count it leaves to the door's own write.
 */
export const receipt = z.object({
  epoch: z.string().min(1).max(64),
  accepted: z.number().int().positive(),
  duplicates: z.number().int().nonnegative(),
  all_accepted: z.number().int().positive().optional(),
  all_duplicates: z.number().int().nonnegative().optional(),
});

export type Receipt = z.infer<typeof receipt>;

/**
 * One accepted webhook request, as it travels on the ingest queue. The payload is the raw body,
 * base64-encoded; a body too large for a queue message travels by claim check instead (the raw
 * bytes in the platform bucket, `payload_ref` here). `ingested_at_us` is microseconds since the
 * epoch, as a decimal string (it does not fit a JSON number). `headers` are the request's headers
 * (envelopeHeaders), at most `envelopeHeadersMaxBytes`, so an envelope stays far inside a queue message.
 */
export const envelopeMessage = z.strictObject({
  v: z.literal(1),
  message_id: z.uuid(),
  data_set_id: z.uuid(),
  dt: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  ingested_at_us: z.string().regex(/^\d{1,20}$/),
  source_id: z.string().min(1),
  tenant_id: z.uuid(),
  content_type: z.string().nullable(),
  payload_size: z.number().int().nonnegative(),
  payload: z.string().optional(),
  payload_ref: z.strictObject({ bucket: z.string(), key: z.string() }).optional(),
  receipt: receipt.optional(),
  /** The request's headers but credentials (envelopeHeaders); absent on envelopes queued before they were kept. */
  headers: z.record(z.string(), z.string()).optional(),
});

export type EnvelopeMessage = z.infer<typeof envelopeMessage>;

/** A queue message's envelope; throws, saying why in one line (what the failed delivery shows), for one that is not. */
export function readEnvelope(body: string): EnvelopeMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error('the message is not JSON');
  }
  const parsed = envelopeMessage.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new Error(
    parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || 'envelope'}: ${issue.message}`)
      .join('; '),
  );
}

/**
 * What can still be read of a queue message that is not a valid envelope: its message and data set
 * ids (the writer records its failure under them, the dead-letter recorder keeps it under them), and
 * its source and day when they read as such. Null when the ids do not.
 */
export function envelopeFields(
  body: string,
): { message_id: string; data_set_id: string; source_id?: string; dt?: string } | null {
  const fields = z.object({
    message_id: z.uuid(),
    data_set_id: z.uuid(),
    source_id: z.string().min(1).max(200).optional().catch(undefined),
    dt: envelopeMessage.shape.dt.optional().catch(undefined),
  });
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = fields.safeParse(json);
  if (!parsed.success) return null;
  const { message_id, data_set_id, source_id, dt } = parsed.data;
  return { message_id, data_set_id, ...(source_id ? { source_id } : {}), ...(dt ? { dt } : {}) };
}

/** Whether a message id is a UUID v7, which carries the time its first copy was ingested. */
export const isTimedId = (messageId: string) => messageId[14] === '7';

/** The time (milliseconds) a UUID v7 message id carries; null for any other id. */
export function idTimeMs(messageId: string): number | null {
  if (!isTimedId(messageId)) return null;
  const ms = Number.parseInt(messageId.slice(0, 8) + messageId.slice(9, 13), 16);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The ingest time (milliseconds) every copy of the envelope's message says the same of: the time its
 * id carries. A deduplicated request carries the message id of the request that claimed the key
 * first, a UUID version 7 of that request's ingest time, beside its own ingest time, which may be
 * later or earlier (it was taken before its claim, and its claim lost the race). Each copy's own time
 * would give a commit of one copy alone a range of times another copy's commit does not meet, and
 * the exactly-once check would not read it. Other ids (before ids were time-ordered) only ever
 * travel with their own envelope: their own time.
 */
export function firstIngestMs(message: Pick<EnvelopeMessage, 'message_id' | 'ingested_at_us'>): number {
  return idTimeMs(message.message_id) ?? Number(BigInt(message.ingested_at_us) / 1000n);
}

/**
 * The headers an envelope keeps, at most this many bytes (UTF-8 of the names and values): a few times
 * what providers send (GitHub about 1 KB), and little beside a queue message's 256 KiB.
 */
export const envelopeHeadersMaxBytes = 8 * 1024;

const sizeOf = (name: string, value: string) => Buffer.byteLength(name) + Buffer.byteLength(value);

/**
 * The request's headers as an envelope keeps them: names lowercased, values as received (a header
 * sent more than once arrives joined with commas, as API Gateway and Node join them), and none that
 * may carry a credential (isCredentialHeader: the rule rejections keep headers by). Headers are
 * taken in the order received while they fit in `envelopeHeadersMaxBytes`; one that would not fit
 * is left out whole, never cut.
 */
export function envelopeHeaders(
  headers: Record<string, string | undefined>,
  secretHeaders: ReadonlySet<string>,
): Record<string, string> {
  // A Map, not an object: a header may be named `__proto__`.
  const kept = new Map<string, string>();
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || isCredentialHeader(lower, secretHeaders)) continue;
    const previous = kept.get(lower);
    const joined = previous === undefined ? value : `${previous},${value}`;
    const total = bytes - (previous === undefined ? 0 : sizeOf(lower, previous)) + sizeOf(lower, joined);
    if (total > envelopeHeadersMaxBytes) continue;
    bytes = total;
    kept.set(lower, joined);
  }
  return Object.fromEntries(kept);
}

/** Where a body too large for a queue message waits in the platform bucket until its envelope is written. */
export type ClaimCheck = NonNullable<EnvelopeMessage['payload_ref']>;

/** A row of the envelope data set, as the writer receives it (payload resolved). */
export interface Envelope {
  message_id: string;
  data_set_id: string;
  dt: string;
  ingested_at_us: bigint;
  source_id: string;
  tenant_id: string;
  content_type: string | null;
  payload_size: number;
  payload: string;
  /** The kept request headers as JSON text; absent or null for an envelope queued before headers were kept. */
  headers?: string | null;
}

/**
 * The envelope columns as written to Parquet; dt is the partition column and lives in the path.
 * `headers` came later: a Delta table adds a column at the end of its schema.
 */
export const envelopeColumns = [
  { name: 'message_id', type: 'string', nullable: false },
  { name: 'ingested_at', type: 'timestamp', nullable: false },
  { name: 'source_id', type: 'string', nullable: false },
  { name: 'tenant_id', type: 'string', nullable: false },
  { name: 'content_type', type: 'string', nullable: true },
  { name: 'payload_size', type: 'long', nullable: false },
  { name: 'payload', type: 'string', nullable: false, opaque: true },
  { name: 'headers', type: 'string', nullable: true },
] as const;

export type Cell = string | bigint | number | null;

/** The fields of a row besides its payload: an envelope as the writer resolved it, or as it was queued (µs as text). */
export type EnvelopeFields = Pick<
  Envelope,
  'message_id' | 'source_id' | 'tenant_id' | 'content_type' | 'payload_size'
> & { ingested_at_us: bigint | string };

/**
 * Rows as columns, in envelopeColumns' order and types (timestamps in µs, longs as bigint), up to the
 * payload: its column is made apart (of strings, or written straight into one buffer), and the
 * headers' column after it (envelopeHeaderCells).
 */
export function envelopeFieldCells(rows: readonly EnvelopeFields[]): Cell[][] {
  const columns: Cell[][] = envelopeColumns.slice(0, 6).map(() => new Array<Cell>(rows.length));
  const [messageId, ingestedAt, sourceId, tenantId, contentType, payloadSize] = columns as [
    Cell[],
    Cell[],
    Cell[],
    Cell[],
    Cell[],
    Cell[],
  ];
  rows.forEach((row, i) => {
    messageId[i] = row.message_id;
    ingestedAt[i] = BigInt(row.ingested_at_us);
    sourceId[i] = row.source_id;
    tenantId[i] = row.tenant_id;
    contentType[i] = row.content_type;
    payloadSize[i] = BigInt(row.payload_size);
  });
  return columns;
}

/** The headers' column: each row's kept headers as JSON text, null for an envelope queued without them. */
export function envelopeHeaderCells(rows: readonly { headers?: Record<string, string> | string | null }[]): Cell[] {
  return rows.map(({ headers }) =>
    headers === undefined || headers === null ? null : typeof headers === 'string' ? headers : JSON.stringify(headers),
  );
}

/** The server receive time in microseconds (the clock's sub-millisecond part from the monotonic timer). */
export function nowMicros(): bigint {
  const milliseconds = Date.now();
  const fraction = Math.floor((performance.now() % 1) * 1000);
  return BigInt(milliseconds) * 1000n + BigInt(fraction);
}

const dayMs = 86_400_000;
/** The UTC day of the last call: nearly every call falls in the same day as the one before. */
let lastDay = { from: 0, to: 0, date: '' };

/** The UTC date (YYYY-MM-DD) of a time in microseconds since the epoch. */
export function utcDate(micros: bigint): string {
  const milliseconds = Number(micros / 1000n);
  if (milliseconds < lastDay.from || milliseconds >= lastDay.to) {
    const from = milliseconds - (((milliseconds % dayMs) + dayMs) % dayMs);
    lastDay = { from, to: from + dayMs, date: new Date(from).toISOString().slice(0, 10) };
  }
  return lastDay.date;
}
