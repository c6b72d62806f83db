/**
 * A connection's accepted events, read back from its Delta table (the request log of the console's
 * Events view): newest first, or the one with a message id, or those of a time range.
 *
 * The table is the only place that keeps every body, so this reads its Parquet files. Each request
 * is bounded: at most `maxFilesPerRead` files and `maxBytesPerRead` bytes of Parquet. What a
 * request could not reach is not lost: the answer then carries a cursor to go on from there.
 */
import { type AddFile, type FileStats, parseStats } from '../delta/log.ts';
import { invalid } from '../errors.ts';

/** One envelope row as stored (payload: the raw body, base64). */
export interface StoredEvent {
  message_id: string;
  ingested_at_us: bigint;
  content_type: string | null;
  payload_size: number;
  payload: string;
}

export interface EventReadDeps {
  /** The files of the table's latest snapshot, with their statistics. */
  snapshotFiles(): Promise<AddFile[]>;
  readEvents(file: AddFile): Promise<StoredEvent[]>;
  /** Seals a position into a cursor of this list, and opens one (400 for any cursor the list did not issue). */
  cursors: { seal(position: unknown): Promise<string>; open(cursor: string): Promise<unknown> };
}

export interface EventQuery {
  limit: number;
  cursor?: string | undefined;
  message_id?: string | undefined;
  /** Inclusive. */
  from?: string | undefined;
  /** Exclusive. */
  to?: string | undefined;
}

export interface EventView {
  message_id: string;
  received_at: string;
  content_type: string | null;
  payload_size: number;
  /** The first bytes of the body (all of it unless `payload_truncated`), base64. */
  payload: string;
  payload_truncated: boolean;
}

export interface EventPage {
  events: EventView[];
  next_cursor: string | null;
  files_read: number;
}

export const maxFilesPerRead = 16;
export const maxBytesPerRead = 64 * 1024 * 1024;
/** Lists carry the start of each body; a lookup by message id the body up to 1 MiB. */
export const listPreviewBytes = 32 * 1024;
export const lookupPreviewBytes = 1024 * 1024;

/** A place in the newest-first order: received time (µs), then message id, both descending. */
interface Position {
  t: bigint;
  id: string;
}

const before = (event: StoredEvent, position: Position) =>
  event.ingested_at_us < position.t || (event.ingested_at_us === position.t && event.message_id < position.id);

const newestFirst = (a: StoredEvent, b: StoredEvent) =>
  a.ingested_at_us === b.ingested_at_us
    ? b.message_id.localeCompare(a.message_id)
    : a.ingested_at_us > b.ingested_at_us
      ? -1
      : 1;

const cursorPayload = (position: Position) => ({ t: position.t.toString(), id: position.id });

/** A sealed cursor says where its list went on; its payload is still checked before use. */
function positionOf(opened: unknown): Position {
  const { t, id } = (opened ?? {}) as { t?: unknown; id?: unknown };
  if (typeof t !== 'string' || !/^\d{1,20}$/.test(t) || typeof id !== 'string' || id.length > 64)
    throw invalid('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this list' }]);
  return { t: BigInt(t), id };
}

const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;

/** A file's received-time range in µs from its statistics (millisecond bounds, so widened by one ms). */
function timeRange(stats: FileStats): { min: bigint; max: bigint } {
  const min = stats.minValues.ingested_at;
  const max = stats.maxValues.ingested_at;
  return {
    min: typeof min === 'string' ? micros(min) - 1000n : 0n,
    max: typeof max === 'string' ? micros(max) + 1000n : BigInt(Number.MAX_SAFE_INTEGER) * 1000n,
  };
}

function mayHoldId(stats: FileStats, messageId: string): boolean {
  const min = stats.minValues.message_id;
  const max = stats.maxValues.message_id;
  return (typeof min !== 'string' || min <= messageId) && (typeof max !== 'string' || messageId <= max);
}

function view(event: StoredEvent, previewBytes: number): EventView {
  const body = Buffer.from(event.payload, 'base64');
  return {
    message_id: event.message_id,
    received_at: new Date(Number(event.ingested_at_us / 1000n)).toISOString(),
    content_type: event.content_type,
    payload_size: event.payload_size,
    payload: (body.length > previewBytes ? body.subarray(0, previewBytes) : body).toString('base64'),
    payload_truncated: body.length > previewBytes,
  };
}

/**
 * Read events.
 * Input: the table's ports and the query. Output: events newest first, a cursor when more may exist.
 *  1. The snapshot's files are taken by their newest received time, skipping those that cannot hold
 *     a wanted event (range, cursor, message-id bounds from the file statistics).
 *  2. Files are read one by one until `limit` events are certain to be the newest left (no unread
 *     file can hold a newer one), or the id is found.
 *  3. When the budget runs out first, the answer keeps only the events no unread file can precede,
 *     and the cursor resumes at the newest unread file.
 */
export async function readEvents(deps: EventReadDeps, query: EventQuery): Promise<EventPage> {
  if (query.from && query.to && Date.parse(query.from) >= Date.parse(query.to))
    throw invalid('The time range is empty', [{ path: 'from', message: 'Must be before to' }]);
  const upper: Position | null = query.cursor
    ? positionOf(await deps.cursors.open(query.cursor))
    : query.to
      ? { t: micros(query.to), id: '' }
      : null;
  const lower = query.from ? micros(query.from) : null;
  const wanted = (event: StoredEvent) =>
    (!upper || before(event, upper)) &&
    (lower === null || event.ingested_at_us >= lower) &&
    (!query.message_id || event.message_id === query.message_id);

  const candidates = (await deps.snapshotFiles())
    .map((file) => {
      const stats = parseStats(file.stats);
      return { file, stats, ...timeRange(stats) };
    })
    .filter(
      ({ stats, min, max }) =>
        (!upper || min <= upper.t) &&
        (lower === null || max >= lower) &&
        (!query.message_id || mayHoldId(stats, query.message_id)),
    )
    .sort((a, b) => (a.max === b.max ? 0 : a.max > b.max ? -1 : 1));

  const previewBytes = query.message_id ? lookupPreviewBytes : listPreviewBytes;
  const page = async (events: StoredEvent[], next: Position | null, filesRead: number): Promise<EventPage> => ({
    events: events.map((event) => view(event, previewBytes)),
    next_cursor: next ? await deps.cursors.seal(cursorPayload(next)) : null,
    files_read: filesRead,
  });

  const collected: StoredEvent[] = [];
  let bytesRead = 0;
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index] as (typeof candidates)[number];
    const spent = index >= maxFilesPerRead || (index > 0 && bytesRead + candidate.file.size > maxBytesPerRead);
    if (spent) {
      // Unread files hold nothing newer than this one's newest event: what is newer is certain.
      const certain = collected.filter((event) => event.ingested_at_us > candidate.max);
      const shown = certain.slice(0, query.limit);
      const last = shown.at(-1);
      return page(
        shown,
        shown.length === query.limit && last
          ? { t: last.ingested_at_us, id: last.message_id }
          : { t: candidate.max + 1n, id: '' },
        index,
      );
    }
    bytesRead += candidate.file.size;
    collected.push(...(await deps.readEvents(candidate.file)).filter(wanted));
    collected.sort(newestFirst);
    if (query.message_id && collected.length > 0) return page(collected.slice(0, 1), null, index + 1);
    const next = candidates[index + 1];
    const kth = collected[query.limit - 1];
    if (kth && (!next || next.max < kth.ingested_at_us)) {
      const more = Boolean(next) || collected.length > query.limit;
      return page(
        collected.slice(0, query.limit),
        more ? { t: kth.ingested_at_us, id: kth.message_id } : null,
        index + 1,
      );
    }
  }
  const shown = collected.slice(0, query.limit);
  const last = shown.at(-1);
  return page(
    shown,
    collected.length > query.limit && last ? { t: last.ingested_at_us, id: last.message_id } : null,
    candidates.length,
  );
}
