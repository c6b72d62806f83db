/**
 * A connection's accepted events, read back from its Delta table (the request log of the console's
 * Events view): newest first, or the one with a message id, or those of a time range, or those
 * whose body holds some bytes or a JSON value. Envelopes accepted but not yet committed (staged:
 * shared/domain/ingest/staging.ts) are listed too, as `pending`, from the batches that hold them.
 *
 * The table is the only place that keeps every body, so this reads its Parquet files, and of each
 * only what it needs: a file's footer first (its row groups, with their statistics), then of a row
 * group the narrow columns (ids, times, sizes), then the bodies of the rows wanted (for a listing,
 * the newest; for a lookup, the one; for a search, every row of the range), a slice of pages at a
 * time. Memory so stays bounded by a slice whatever the file's size, and row groups whose statistics
 * exclude the query are never read. Each request is bounded: at most `maxFilesPerRead` files,
 * `maxBytesPerRead` bytes of Parquet, and no row group started after `maxReadMs` of reading
 * (searching every body costs more than listing). What a request could not reach is not lost: the
 * answer then carries a cursor to go on from there, and says how far back it looked.
 */
import type { Source } from '../connections/model.ts';
import { type EventField, presetOf } from '../connections/presets.ts';
import { invalid } from '../errors.ts';
import { safeHeaders } from '../ingest/credential-headers.ts';
import { idTimeMs } from '../ingest/envelope.ts';
import { parsePath, valueAt } from '../json-path.ts';
import { textAtPointer } from '../json-pointer.ts';

/** One envelope row as stored (payload: the raw body, base64; headers: those kept, null on rows stored before). */
export interface StoredEvent {
  message_id: string;
  ingested_at_us: bigint;
  content_type: string | null;
  payload_size: number;
  payload: string;
  headers: Record<string, string> | null;
}

/** Each column's least and greatest value in a file, as its writer recorded them (where it did). */
export interface FileStats {
  minValues: Record<string, string | number>;
  maxValues: Record<string, string | number>;
}

/** A file of the table's latest snapshot. */
export interface EventFile {
  /** Bytes (what reading it whole would cost). */
  size: number;
  stats: FileStats;
  /** Its row groups, from its footer (the rows another engine deleted with a deletion vector left out of their slices). */
  groups(): Promise<EventGroup[]>;
}

/** A row's body (base64) and the headers its envelope kept (null on rows stored before headers were kept). */
export interface StoredBody {
  row: number;
  payload: string;
  headers: Record<string, string> | null;
}

/** A row of a table file without its body: what a listing or a lookup reads first. */
export interface EventKey {
  /** The row's place in its group (what `bodies` is asked for). */
  row: number;
  message_id: string;
  ingested_at_us: bigint;
  content_type: string | null;
  payload_size: number;
}

/** Some rows of a row group: their keys, and a reader of the bodies of any of them. */
export interface EventSlice {
  keys: EventKey[];
  /** The bodies (base64) and kept headers of these rows, ascending, read a few pages at a time. */
  bodies(rows: number[]): AsyncIterable<StoredBody>;
}

/** A row group of a table file (or a staged batch): read whole or not at all within one request. */
export interface EventGroup {
  /** Received-time bounds in µs, as its statistics give them. */
  min: bigint;
  max: bigint;
  /** From its statistics, when they have them: the message id bounds and the largest body. */
  minId?: string;
  maxId?: string;
  maxPayloadSize?: number;
  /** Bytes of the columns read (what reading every body costs). */
  size: number;
  /** Its rows, a bounded slice at a time. */
  slices(): AsyncIterable<EventSlice>;
}

/** Staged envelopes of one batch: not in the table yet. */
export interface StagedSource {
  /** Milliseconds: the oldest envelope's ingest time, and when the batch was staged (no envelope is newer). */
  oldest: number;
  stagedAt: number;
  /** Bytes of the batch's slice (what reading it costs). */
  size: number;
  read(): Promise<StoredEvent[]>;
}

export interface EventReadDeps {
  /** The files of the table's latest snapshot, with their statistics. */
  snapshotFiles(): Promise<EventFile[]>;
  /** The staged batches holding envelopes of the table not committed yet. */
  stagedSources(): Promise<StagedSource[]>;
  /** Seals a position into a cursor of this list, and opens one (400 for any cursor the list did not issue). */
  cursors: { seal(position: unknown): Promise<string>; open(cursor: string): Promise<unknown> };
  /** Milliseconds, for the request's time budget (Date.now unless a test moves it). */
  clock?: () => number;
  /** Bytes fetched from the store so far, when the reader counts them (else the groups' sizes count). */
  bytesFetched?: () => number;
  /** Where the connection's provider (its signature preset) says what kind of event a request is; null: it does not. */
  eventType?: EventField | null;
  /**
   * The headers the source's signature settings read, as they are now (secretHeadersOf): left out of
   * each event's kept headers again, as rejections are. A header kept while the source took no
   * signature may be the one its signature reads since (a body and its MAC, replayable).
   */
  secretHeaders?: ReadonlySet<string>;
}

/** Events held in memory (a staged batch, a test's rows) as one group: one slice, bodies at hand. */
export function eventsAsGroup(
  bounds: Pick<EventGroup, 'min' | 'max' | 'size'>,
  read: () => Promise<StoredEvent[]>,
): EventGroup {
  return {
    ...bounds,
    async *slices() {
      const events = await read();
      yield {
        keys: events.map(({ payload: _, headers: __, ...key }, row) => ({ ...key, row })),
        async *bodies(rows: number[]) {
          for (const row of rows) {
            const { payload, headers } = events[row] as StoredEvent;
            yield { row, payload, headers };
          }
        },
      };
    },
  };
}

export interface EventQuery {
  limit: number;
  cursor?: string | undefined;
  message_id?: string | undefined;
  /** Inclusive. */
  from?: string | undefined;
  /** Exclusive. */
  to?: string | undefined;
  /** The raw body holds these bytes (UTF-8 of the text, case-sensitive). */
  contains?: string | undefined;
  /** The body is JSON whose value at `json_path` reads `json_equals` (both or neither). */
  json_path?: string | undefined;
  json_equals?: string | undefined;
  /** The event type (eventTypeOf, by the connection's preset) is exactly this. */
  event_type?: string | undefined;
}

export interface EventView {
  message_id: string;
  received_at: string;
  content_type: string | null;
  payload_size: number;
  /** The first bytes of the body (all of it unless `payload_truncated`), base64. */
  payload: string;
  payload_truncated: boolean;
  /** Accepted, staged, and not committed to the table yet. */
  pending: boolean;
  /** The request headers the envelope kept (no credentials); null for one stored before headers were kept. */
  headers: Record<string, string> | null;
  /** What kind of event it is, where the connection's preset says (eventTypeOf); null otherwise. */
  event_type: string | null;
}

export interface EventPage {
  events: EventView[];
  next_cursor: string | null;
  /** What this request looked at, so that a partial answer says how partial it is. */
  files_read: number;
  bytes_read: number;
  /** Events of the range (before the cursor) whose bodies were tested. */
  events_scanned: number;
  /** Files of the range no request has reached yet (the cursor goes on to them). */
  files_left: number;
  /** With a cursor: every event of the range received at or after this time was considered. */
  scanned_back_to: string | null;
}

export const maxFilesPerRead = 16;
/** No row group is started after this much reading: what is left goes to the next request, well inside the API's 30 s. */
export const maxReadMs = 10_000;
/** A search is for 1 to 1,000 bytes (as is a JSON value compared). */
export const maxSearchBytes = 1000;
export const maxBytesPerRead = 64 * 1024 * 1024;
/** Lists carry the start of each body; a lookup by message id the body up to 1 MiB. */
export const listPreviewBytes = 32 * 1024;
export const lookupPreviewBytes = 1024 * 1024;

/** A place in the newest-first order: received time (µs), then message id, both descending. */
interface Position {
  t: bigint;
  id: string;
}

type Ordered = Pick<StoredEvent, 'ingested_at_us' | 'message_id'>;

const before = (event: Ordered, position: Position) =>
  event.ingested_at_us < position.t || (event.ingested_at_us === position.t && event.message_id < position.id);

const newestFirst = (a: Ordered, b: Ordered) =>
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

/** An event as read, its body cut to what the answer shows, and whether it came from a staged batch. */
type ReadEvent = EventKey & {
  pending: boolean;
  preview: Buffer;
  truncated: boolean;
  headers: Record<string, string> | null;
  event_type: string | null;
};

function view(event: ReadEvent): EventView {
  return {
    message_id: event.message_id,
    received_at: new Date(Number(event.ingested_at_us / 1000n)).toISOString(),
    content_type: event.content_type,
    payload_size: event.payload_size,
    payload: event.preview.toString('base64'),
    payload_truncated: event.truncated,
    pending: event.pending,
    headers: event.headers,
    event_type: event.event_type,
  };
}

/** Where a source's provider puts its event type: its signature preset's, null for a source that names none. */
export function eventTypeField(source: Pick<Source, 'security'> | null): EventField | null {
  const scheme = source?.security.signature?.scheme;
  return scheme ? (presetOf(scheme).eventType ?? null) : null;
}

/**
 * An event's type where its provider says it (the preset's eventType): a header the envelope kept,
 * or a string (or number) in its JSON body at a pointer. Null where the preset says nothing, or
 * the event does not carry it.
 */
export function eventTypeOf(
  field: EventField | null | undefined,
  event: { body: Buffer; headers: Record<string, string> | null },
): string | null {
  if (!field) return null;
  if ('header' in field) {
    const name = field.header.toLowerCase();
    return event.headers && Object.hasOwn(event.headers, name) ? (event.headers[name] ?? null) : null;
  }
  let document: unknown;
  try {
    document = JSON.parse(event.body.toString('utf8'));
  } catch {
    return null;
  }
  return textAtPointer(document, field.json_pointer) ?? null;
}

/**
 * When a message id was made, for a time-ordered one (UUID version 7, made of the ingest time of the
 * request that claimed its deduplication key first). A copy given that id took its own ingest time
 * before it claimed the key: later, or earlier when it lost the race to claim (by at most the door's
 * timeout, 10 s, and what the clocks of its instances differ by). Null for a random id (version 4,
 * made before ids were time-ordered): it says nothing of its event's time.
 */
function idTimeMicros(messageId: string): bigint | null {
  const ms = idTimeMs(messageId);
  return ms === null ? null : BigInt(ms) * 1000n;
}

/** How much earlier than its id's time a copy of a message may have been ingested (see idTimeMicros). */
const copyBeforeIdUs = 60_000_000n;

/** The earliest a copy of the message with this id can have been ingested; null for an id that carries no time. */
function earliestCopyMicros(messageId: string): bigint | null {
  const idTime = idTimeMicros(messageId);
  return idTime === null ? null : idTime - copyBeforeIdUs;
}

const laterOf = (a: bigint | null, b: bigint | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * A staged batch is no later than when it was staged; clocks of the ingest and writer functions may
 * differ a little, so its newest envelope is taken to be up to a minute later.
 */
const stagedClockMarginUs = 60_000_000n;

/** The text a JSON value reads as, for `json_equals`: a string itself, a number, boolean or null as JSON writes it. */
function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  return null;
}

/**
 * The body filter of a query, for any source of events (the table's rows, or envelopes not yet
 * committed): it sees one body at a time, decoded from base64, so a match can never span two
 * bodies or fall between base64's 3-byte groups. Null when the query filters no body.
 */
export function eventMatcher(
  query: Pick<EventQuery, 'contains' | 'json_path' | 'json_equals' | 'event_type'>,
  eventType: EventField | null = null,
): ((event: Pick<StoredEvent, 'payload' | 'headers'>) => boolean) | null {
  const tests: ((body: Buffer, headers: Record<string, string> | null) => boolean)[] = [];
  if (query.contains !== undefined) {
    const needle = Buffer.from(query.contains, 'utf8');
    tests.push((body) => body.includes(needle));
  }
  if (query.json_path !== undefined && query.json_equals !== undefined) {
    const steps = parsePath(query.json_path);
    const wanted = query.json_equals;
    // A value that is not a number, true, false or null can only match as a string; a body without
    // a backslash has no escapes, so its strings are their own bytes: lacking them, it cannot match.
    const scalar = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(wanted);
    const literal = scalar ? null : Buffer.from(wanted, 'utf8');
    tests.push((body) => {
      if (literal && !body.includes(literal) && !body.includes(0x5c)) return false;
      let document: unknown;
      try {
        document = JSON.parse(body.toString('utf8'));
      } catch {
        return false;
      }
      return scalarText(valueAt(document, steps)) === wanted;
    });
  }
  if (query.event_type !== undefined) {
    const wanted = query.event_type;
    tests.push((body, headers) => eventTypeOf(eventType, { body, headers }) === wanted);
  }
  if (tests.length === 0) return null;
  return (event) => {
    const body = Buffer.from(event.payload, 'base64');
    return tests.every((test) => test(body, event.headers));
  };
}

function checkQuery(query: EventQuery): void {
  if (query.from && query.to && Date.parse(query.from) >= Date.parse(query.to))
    throw invalid('The time range is empty', [{ path: 'from', message: 'Must be before to' }]);
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  if (query.contains !== undefined && (bytes(query.contains) < 1 || bytes(query.contains) > maxSearchBytes))
    throw invalid('The search text is 1 to 1,000 bytes', [
      { path: 'contains', message: `Must be 1 to ${maxSearchBytes} bytes of UTF-8` },
    ]);
  if ((query.json_path === undefined) !== (query.json_equals === undefined))
    throw invalid('json_path and json_equals go together', [
      { path: query.json_path === undefined ? 'json_path' : 'json_equals', message: 'Required with the other' },
    ]);
  if (query.json_equals !== undefined && bytes(query.json_equals) > maxSearchBytes)
    throw invalid('The value compared is at most 1,000 bytes', [
      { path: 'json_equals', message: `At most ${maxSearchBytes} bytes of UTF-8` },
    ]);
}

/** A body shorter than the text searched cannot hold it: files whose largest body is shorter are skipped. */
function mayHoldText(stats: FileStats, contains: string | undefined): boolean {
  const largest = stats.maxValues.payload_size;
  return contains === undefined || typeof largest !== 'number' || largest >= Buffer.byteLength(contains, 'utf8');
}

/** A group's statistics allow a wanted event: the id within its bounds, a body long enough for the text. */
function groupMayHold(group: EventGroup, query: EventQuery): boolean {
  const id = query.message_id;
  if (
    id !== undefined &&
    ((group.minId !== undefined && id < group.minId) || (group.maxId !== undefined && id > group.maxId))
  )
    return false;
  return (
    query.contains === undefined ||
    group.maxPayloadSize === undefined ||
    group.maxPayloadSize >= Buffer.byteLength(query.contains, 'utf8')
  );
}

/** What the newest-first order holds next: a file not opened yet, or a row group (or staged batch) to read. */
type Candidate =
  | { kind: 'file'; min: bigint; max: bigint; file: EventFile }
  | { kind: 'group'; min: bigint; max: bigint; group: EventGroup; pending: boolean; source: object };

const newestMaxFirst = (a: Candidate, b: Candidate) => (a.max === b.max ? 0 : a.max > b.max ? -1 : 1);

/**
 * Read events.
 * Input: the table's ports and the query. Output: events newest first, a cursor when more may exist,
 * and what was read.
 *  1. The snapshot's files and the staged batches are taken by their newest received time, skipping
 *     those that cannot hold a wanted event (range, cursor, message-id bounds, bodies too short for
 *     the text searched: all from the file statistics).
 *  2. A file is opened when its turn comes: its footer's row groups take its place in that order,
 *     less those their own statistics rule out.
 *  3. Row groups are read one by one, until `limit` events are certain to be the newest left (no
 *     unread group or file can hold a newer one), or the id is found. Of a group, the narrow columns
 *     first; then the bodies of the rows of the range that can still be shown (a search tests each).
 *  4. When the budget runs out first, the answer keeps only the events nothing unread can precede,
 *     and the cursor resumes at the newest unread.
 */
export async function readEvents(deps: EventReadDeps, query: EventQuery): Promise<EventPage> {
  checkQuery(query);
  const range = await rangeOf(deps, query);
  const matches = eventMatcher(query, deps.eventType ?? null);
  const candidates = await candidatesOf(deps, query, range);
  const read: EventRead = {
    deps,
    query,
    range,
    matches,
    previewBytes: query.message_id ? lookupPreviewBytes : listPreviewBytes,
    candidates,
    gathered: new Gathered(query.limit),
    stagedIds: new Set(),
    touched: new Set(),
    groupsRead: 0,
    sizesRead: 0,
    scanned: 0,
  };
  const { gathered } = read;
  const clock = deps.clock ?? Date.now;
  const started = clock();
  while (candidates.length > 0) {
    const candidate = candidates[0] as Candidate;
    if (budgetSpent(read, candidate, () => clock() - started)) return certainPage(read, candidate);
    candidates.shift();
    if (candidate.kind === 'file') {
      await openFile(read, candidate);
      continue;
    }
    read.touched.add(candidate.source);
    read.groupsRead++;
    read.sizesRead += candidate.group.size;
    await readGroup(read, candidate.group, candidate.pending);
    if (query.message_id && gathered.events.length > 0) return page(read, gathered.events.slice(0, 1), null);
    const next = candidates[0];
    const kth = gathered.events[query.limit - 1];
    if (kth && (!next || next.max < kth.ingested_at_us)) {
      const more = Boolean(next) || gathered.overflow;
      return page(
        read,
        gathered.events.slice(0, query.limit),
        more ? { t: kth.ingested_at_us, id: kth.message_id } : null,
      );
    }
  }
  const shown = gathered.events.slice(0, query.limit);
  const last = shown.at(-1);
  return page(read, shown, gathered.overflow && last ? { t: last.ingested_at_us, id: last.message_id } : null);
}

/** The range a query reads: an event's key within it, and bounds (of a file, a group, a batch) that may hold one. */
interface EventRange {
  inRange(event: EventKey): boolean;
  couldHold(bounds: { min: bigint; max: bigint }): boolean;
}

/** From the cursor (or `to`) back to `from`, or to the time a time-ordered message id was made. */
async function rangeOf(deps: EventReadDeps, query: EventQuery): Promise<EventRange> {
  const upper: Position | null = query.cursor
    ? positionOf(await deps.cursors.open(query.cursor))
    : query.to
      ? { t: micros(query.to), id: '' }
      : null;
  const lower = laterOf(
    query.from ? micros(query.from) : null,
    query.message_id ? earliestCopyMicros(query.message_id) : null,
  );
  return {
    inRange: (event) =>
      (!upper || before(event, upper)) &&
      (lower === null || event.ingested_at_us >= lower) &&
      (!query.message_id || event.message_id === query.message_id),
    couldHold: ({ min, max }) => (!upper || min <= upper.t) && (lower === null || max >= lower),
  };
}

/**
 * Step 1: the snapshot's files and the staged batches, newest received time first, less those
 * that cannot hold a wanted event.
 */
async function candidatesOf(deps: EventReadDeps, query: EventQuery, range: EventRange): Promise<Candidate[]> {
  const files: Candidate[] = (await deps.snapshotFiles())
    .filter(
      ({ stats }) => (!query.message_id || mayHoldId(stats, query.message_id)) && mayHoldText(stats, query.contains),
    )
    .map((file) => ({ kind: 'file', ...timeRange(file.stats), file }));
  const staged: Candidate[] = (await deps.stagedSources()).map((source) => {
    const bounds = {
      min: BigInt(source.oldest) * 1000n - 1000n,
      max: BigInt(source.stagedAt) * 1000n + stagedClockMarginUs,
      size: source.size,
    };
    return { kind: 'group', ...bounds, group: eventsAsGroup(bounds, () => source.read()), pending: true, source };
  });
  return [...files, ...staged].filter(range.couldHold).sort(newestMaxFirst);
}

/**
 * The newest events read so far, at most `limit`: what falls beyond is dropped as it comes (and
 * `overflow` says so). An envelope staged and committed at once (its commit is being recorded)
 * shows once, as committed; one staged twice (the queue delivered it twice) shows once.
 */
class Gathered {
  readonly events: ReadEvent[] = [];
  private readonly seen = new Map<string, ReadEvent>();
  overflow = false;

  constructor(private readonly limit: number) {}

  take(event: ReadEvent): void {
    const known = this.seen.get(event.message_id);
    if (known && (event.pending || !known.pending)) return;
    if (known) this.events.splice(this.events.indexOf(known), 1);
    this.seen.set(event.message_id, event);
    this.events.push(event);
  }

  trim(): void {
    this.events.sort(newestFirst);
    if (this.events.length > this.limit) {
      for (const dropped of this.events.splice(this.limit)) this.seen.delete(dropped.message_id);
      this.overflow = true;
    }
  }

  /** Whether an event of this time can still be shown: the page is not full of newer ones. */
  couldShow(key: EventKey): boolean {
    const kth = this.events[this.limit - 1];
    return !kth || newestFirst(key, kth) < 0;
  }
}

/** One read under way: what it looks for, what is left to read in order, what it gathered and what that cost. */
interface EventRead {
  deps: EventReadDeps;
  query: EventQuery;
  range: EventRange;
  matches: ReturnType<typeof eventMatcher>;
  previewBytes: number;
  candidates: Candidate[];
  gathered: Gathered;
  /** Envelopes read from staged batches (readGroup). */
  stagedIds: Set<string>;
  /** Files and staged batches read from (or opened), and groups read. */
  touched: Set<object>;
  groupsRead: number;
  sizesRead: number;
  scanned: number;
}

const bytesRead = (read: EventRead) => read.deps.bytesFetched?.() ?? read.sizesRead;

/** The answer: these events, and a cursor at `next` when more may exist. */
async function page(read: EventRead, events: ReadEvent[], next: Position | null): Promise<EventPage> {
  const sources = (candidate: Candidate) => (candidate.kind === 'file' ? candidate.file : candidate.source);
  return {
    events: events.map((event) =>
      view(
        event.headers ? { ...event, headers: safeHeaders(event.headers, read.deps.secretHeaders ?? new Set()) } : event,
      ),
    ),
    next_cursor: next ? await read.deps.cursors.seal(cursorPayload(next)) : null,
    files_read: read.touched.size,
    bytes_read: bytesRead(read),
    events_scanned: read.scanned,
    files_left: next ? new Set(read.candidates.map(sources)).size : 0,
    scanned_back_to: next ? new Date(Number(next.t / 1000n)).toISOString() : null,
  };
}

/** Step 2: a file opened gives its place in the order to its row groups, less those their statistics rule out. */
async function openFile(read: EventRead, candidate: Extract<Candidate, { kind: 'file' }>): Promise<void> {
  read.touched.add(candidate.file);
  const groups = await candidate.file.groups();
  for (const group of groups)
    if (groupMayHold(group, read.query) && read.range.couldHold(group))
      read.candidates.push({
        kind: 'group',
        min: group.min,
        max: group.max,
        group,
        pending: false,
        source: candidate.file,
      });
  read.candidates.sort(newestMaxFirst);
}

/**
 * Step 3: one group's events, the narrow columns first, then the bodies of the rows of the range
 * that can still be shown (a search tests each). Envelopes read from staged batches: one also read
 * from the table (its commit being recorded), or staged twice, is counted once. Staged batches sort
 * before the files that commit them (their time bound is the later), and they are few and small.
 */
async function readGroup(read: EventRead, group: EventGroup, pending: boolean): Promise<void> {
  const { query, matches, gathered, stagedIds, previewBytes } = read;
  for await (const slice of group.slices()) {
    const ranged = slice.keys.filter(read.range.inRange);
    for (const key of ranged) {
      if (stagedIds.has(key.message_id)) continue;
      if (pending) stagedIds.add(key.message_id);
      read.scanned++;
    }
    // A listing fetches only the bodies of rows that can still be shown, the newest `limit` at most.
    let wanted = ranged;
    if (!matches) {
      wanted = ranged
        .filter((key) => gathered.couldShow(key))
        .sort(newestFirst)
        .slice(0, query.limit);
      if (wanted.length < ranged.length) gathered.overflow = true;
    }
    if (wanted.length === 0) continue;
    const byRow = new Map(wanted.map((key) => [key.row, key]));
    for await (const { row, payload, headers } of slice.bodies([...byRow.keys()].sort((a, b) => a - b))) {
      if (matches && !matches({ payload, headers })) continue;
      const body = Buffer.from(payload, 'base64');
      gathered.take({
        ...(byRow.get(row) as EventKey),
        pending,
        preview: body.length > previewBytes ? Buffer.from(body.subarray(0, previewBytes)) : body,
        truncated: body.length > previewBytes,
        headers,
        event_type: eventTypeOf(read.deps.eventType, { body, headers }),
      });
    }
    gathered.trim();
  }
}

/** Step 4: reading `candidate` would go past the budget (files, bytes, time) of a read that has read something. */
function budgetSpent(read: EventRead, candidate: Candidate, elapsedMs: () => number): boolean {
  return (
    read.groupsRead + read.touched.size > 0 &&
    ((candidate.kind === 'file' && read.touched.size >= maxFilesPerRead) ||
      (candidate.kind === 'group' && bytesRead(read) + candidate.group.size > maxBytesPerRead) ||
      elapsedMs() >= maxReadMs)
  );
}

/**
 * Step 4, the budget spent: nothing unread holds anything newer than this candidate's newest event,
 * so what is newer is certain; the cursor resumes at the newest unread.
 */
function certainPage(read: EventRead, candidate: Candidate): Promise<EventPage> {
  const certain = read.gathered.events.filter((event) => event.ingested_at_us > candidate.max);
  const shown = certain.slice(0, read.query.limit);
  const last = shown.at(-1);
  return page(
    read,
    shown,
    shown.length === read.query.limit && last
      ? { t: last.ingested_at_us, id: last.message_id }
      : { t: candidate.max + 1n, id: '' },
  );
}
