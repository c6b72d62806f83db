import * as z from 'zod';
import type { Source } from '../connections/model.ts';
import { invalid, notFound, redriveNotQueued } from '../errors.ts';
import { type EnvelopeMessage, envelopeFields, envelopeMessage } from '../ingest/envelope.ts';
import type { DeliveryFailure, FailedDelivery } from '../ingest/kept-records.ts';

/**
 * One redrive call puts at most this many failed deliveries back on the queue (a few seconds of work,
 * well inside API Gateway's 30 s), and says how many are left for the next call.
 */
export const redriveBatchLimit = 250;

/**
 * What a failed delivery keeps: its envelope whole, or the body of a message that named its envelope's
 * ids but was not an envelope the writer could read, as it was on the queue.
 */
export type KeptMessage = EnvelopeMessage | { unreadable_body: string };

export const isUnreadable = (kept: KeptMessage): kept is { unreadable_body: string } => 'unreadable_body' in kept;

const unreadableKept = z.strictObject({ unreadable_body: z.string() });

/** A kept failed delivery as read back for a redrive: its envelope, or a body kept unread. Throws for anything else. */
export function keptMessage(stored: unknown): KeptMessage {
  const unreadable = unreadableKept.safeParse(stored);
  return unreadable.success ? unreadable.data : envelopeMessage.parse(stored);
}

export interface DeadLetterDeps {
  /**
   * The ids among those Tributary's commits since `ingestedAt` (milliseconds: when the envelopes
   * were accepted; the check looks further back by the margin the clocks of functions may differ) hold.
   */
  writtenMessageIds(dataSetId: string, messageIds: string[], ingestedAt: number): Promise<Set<string>>;
  /** Whether a copy of the envelope waits staged for its table's commit (shared/domain/ingest/staging.ts). */
  isStaged(envelope: EnvelopeMessage): Promise<boolean>;
  lastDeliveryFailure(messageId: string): Promise<DeliveryFailure | null>;
  getSource(sourceId: string): Promise<Source | null>;
  /** The connection and source a webhook data set is fed by (null for another kind, or none). */
  originOfDataSet(dataSetId: string): Promise<{ connection_id: string; source_id: string } | null>;
  dataSetExists(dataSetId: string): Promise<boolean>;
  /** The payload of a claim-checked envelope, when its object still exists. */
  resolvePayload(envelope: EnvelopeMessage): Promise<string | null>;
  keepEnvelope(dataSetId: string, messageId: string, kept: KeptMessage): Promise<string>;
  /** Keeps a message that names no envelope in the platform bucket, under its queue message id; answers its key. */
  keepUnreadable(body: string, queueMessageId: string): Promise<string>;
  /**
   * Records the failed delivery unless its message is one already (the dead-letter queue delivered it
   * again). Answers the failed delivery that holds the message: this one, recorded now, or the one
   * recorded before, by its failed_at.
   */
  recordFailedDelivery(failed: FailedDelivery): Promise<HeldFailure>;
  /**
   * Counts a dead-lettered envelope for its source once per `failure` (its message id and the failed_at
   * of the failed delivery holding it): the recorder's retry after a crash between the record and the
   * count counts it then, and counts nothing when the first run had; a redrive forgets the failed
   * delivery, so the same message failing again is a new failure, counted again.
   */
  countDeadLettered(sourceId: string, failure: string): Promise<void>;
  /**
   * A message kept apart that names no envelope (UnreadableDeadLetters, which an alarm watches),
   * counted once per queue message id: the same message delivered again adds nothing.
   */
  countUnreadable(queueMessageId: string): Promise<void>;
}

/** The failed delivery holding a message: recorded by this run (`now`), or before, at `failed_at`. */
export interface HeldFailure {
  now: boolean;
  failed_at: string;
}

/** Records a failed delivery (or finds it recorded) and counts it, once per failure whatever happens between the two. */
async function recordAndCount(deps: DeadLetterDeps, failed: FailedDelivery): Promise<boolean> {
  const held = await deps.recordFailedDelivery(failed);
  await deps.countDeadLettered(failed.source_id, `${failed.message_id}#${held.failed_at}`);
  return held.now;
}

/** What the recorder did with a message of the dead-letter queue. */
export type DeadLetterOutcome =
  | { kind: 'recorded'; failed: FailedDelivery }
  /** Written, staged, or a failed delivery already: nothing to record. */
  | { kind: 'nothing' }
  | { kind: 'unreadable'; key: string };

/**
 * Record a message of the ingest dead-letter queue, whatever it holds. Every message ends here, so
 * that none goes round the dead-letter queue unread (in flight, out of sight) until SQS drops it.
 * Input: the message's body and its queue message id. Output: what was kept.
 *  1. An envelope: recordDeadLetter.
 *  2. A body that is not an envelope but names its message and data set (what the writer recorded
 *     its failure under): a failed delivery of that data set's connection, its body kept as it was
 *     (a redrive puts it back on the queue unchanged, for a writer that reads it), the writer's reason
 *     as its error; counted as dead-lettered for its source like any other.
 *  3. Anything else: kept in the platform bucket under its queue message id, and counted
 *     (UnreadableDeadLetters): an operator reads it there.
 */
export async function recordDeadLetterMessage(
  deps: DeadLetterDeps,
  body: string,
  queueMessageId: string,
  now = new Date(),
): Promise<DeadLetterOutcome> {
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    // Not JSON: read below as a body that names nothing.
  }
  const envelope = envelopeMessage.safeParse(json);
  if (envelope.success) {
    const failed = await recordDeadLetter(deps, envelope.data, now);
    return failed ? { kind: 'recorded', failed } : { kind: 'nothing' };
  }
  const fields = envelopeFields(body);
  if (!fields) {
    const key = await deps.keepUnreadable(body, queueMessageId);
    await deps.countUnreadable(queueMessageId);
    return { kind: 'unreadable', key };
  }
  const [failure, origin] = await Promise.all([
    deps.lastDeliveryFailure(fields.message_id),
    deps.originOfDataSet(fields.data_set_id),
  ]);
  const sourceId = fields.source_id ?? origin?.source_id ?? 'unknown';
  const failed: FailedDelivery = {
    message_id: fields.message_id,
    data_set_id: fields.data_set_id,
    connection_id: origin?.connection_id ?? null,
    source_id: sourceId,
    failed_at: now.toISOString(),
    attempts: failure?.attempt ?? 5,
    last_error: failure?.error ?? 'Unreadable envelope: the message is not an envelope this writer reads',
    body_key: await deps.keepEnvelope(fields.data_set_id, fields.message_id, { unreadable_body: body }),
    ...(fields.dt ? { dt: fields.dt } : {}),
  };
  return (await recordAndCount(deps, failed)) ? { kind: 'recorded', failed } : { kind: 'nothing' };
}

/**
 * Record an envelope that exhausted its deliveries.
 * Input: an envelope from the ingest dead-letter queue. Output: a failed delivery, or nothing.
 *  1. An envelope already in its table (written, but every acknowledgement was lost) is not a failure;
 *     the check is the batch writer's: the versions committed since the envelope was ingested. Nor
 *     is one the queue gave up on while a copy of it waits staged (its batch was staged, but the
 *     writer answered too late for the queue, five times): that copy is committed, or dead-lettered
 *     with its own reason.
 *  2. The envelope is kept whole (a claim-checked payload is copied in while its object exists).
 *  3. The failed delivery names its connection, the number of attempts and the writer's last error.
 *  4. An envelope the dead-letter queue delivers again is recorded and counted once, and a crash between
 *     the record and the count is made good by the next delivery (recordAndCount).
 *  5. One whose connection and data set were deleted is counted, and nothing of it kept.
 */
export async function recordDeadLetter(
  deps: DeadLetterDeps,
  envelope: EnvelopeMessage,
  now = new Date(),
): Promise<FailedDelivery | null> {
  const ingestedAt = Number(BigInt(envelope.ingested_at_us) / 1000n);
  const failure = await deps.lastDeliveryFailure(envelope.message_id);
  // Staged, then written: a staged copy committed between the two reads (its object then removed) is
  // found written by the second.
  if (!failure && (await deps.isStaged(envelope))) return null;
  const written = await deps.writtenMessageIds(envelope.data_set_id, [envelope.message_id], ingestedAt);
  if (written.has(envelope.message_id)) return null;
  const source = await deps.getSource(envelope.source_id);
  if (!source && !(await deps.dataSetExists(envelope.data_set_id))) {
    // The tenant deleted its connection and then its data set (once nothing waited staged for it): what the envelope
    // was for is gone, and its payload is not kept for a table no one can redrive it to. Counted once all the same.
    await deps.countDeadLettered(envelope.source_id, `${envelope.message_id}#data-set-deleted`);
    return null;
  }
  const payload = envelope.payload ?? (await deps.resolvePayload(envelope));
  const kept: EnvelopeMessage = payload === null ? envelope : { ...envelope, payload, payload_ref: undefined };
  const failed: FailedDelivery = {
    message_id: envelope.message_id,
    data_set_id: envelope.data_set_id,
    connection_id: source?.connection_id ?? (await deps.originOfDataSet(envelope.data_set_id))?.connection_id ?? null,
    source_id: envelope.source_id,
    failed_at: now.toISOString(),
    attempts: failure?.attempt ?? 5,
    last_error: failure
      ? `${failure.error}${failure.store ? ` (store ${failure.store})` : ''}`
      : payload === null
        ? 'The claim-checked payload no longer exists'
        : 'No failure was recorded for this envelope',
    body_key: await deps.keepEnvelope(envelope.data_set_id, envelope.message_id, kept),
    dt: envelope.dt,
  };
  return (await recordAndCount(deps, failed)) ? failed : null;
}

export interface RedriveDeps {
  allFailedDeliveries(dataSetId: string): Promise<FailedDelivery[]>;
  /** The kept envelope; null once gone (another redrive of it finished first). */
  loadEnvelope(bodyKey: string): Promise<KeptMessage | null>;
  /**
   * Puts the envelope back on the ingest queue with its message id (so it can never become a second
   * row); a body kept unread goes back as it was.
   */
  requeue(kept: KeptMessage): Promise<void>;
  /** Forgets the failed delivery and counts it redriven; false when another redrive forgot it first (counted there). */
  forget(failed: FailedDelivery): Promise<boolean>;
}

/** Which failed deliveries to redrive: all when empty; the fields narrow it together (AND). */
export interface RedriveSelection {
  message_ids?: string[] | undefined;
  /** failed_at at or after. */
  from?: string | undefined;
  /** failed_at before. */
  to?: string | undefined;
  /** The category `last_error` starts with, as errorCategory reads it. */
  error_category?: string | undefined;
}

export interface RedriveResult {
  redriven: number;
  /** What was redriven, by the category of its last error. */
  by_category: Record<string, number>;
  /** Failed deliveries of the selection still waiting: call again until it is 0. */
  remaining: number;
}

/**
 * The category of a failure: the UPPER_SNAKE code its `last_error` starts with (`STORE_UNREACHABLE:
 * …`, `TABLE_PROTOCOL_UNSUPPORTED …`), or OTHER for a message that starts with none.
 */
export function errorCategory(lastError: string): string {
  return /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{2,})(?=$|[\s:(])/.exec(lastError)?.[1] ?? 'OTHER';
}

/** Failed deliveries redriven at the same time (each is a read, a send, a transaction and a delete). */
const redriveConcurrency = 8;

/**
 * Redrive failed deliveries of a data set: all of them, or those the selection names (404 naming
 * any message id that is not a failed delivery here), of a time range of failure, of a category of
 * error; at most `limit` per call, oldest first, `remaining` saying how many of the selection still
 * wait. Each goes back on the ingest queue before its record is removed, so a redrive interrupted
 * half-way loses nothing and repeats nothing twice in the table. Each message has one record (the
 * dead-letter recorder claims it once). The answer counts what was redriven, by category. Should the
 * queue refuse a send, the call stops and answers 503 SERVICE_UNAVAILABLE saying how many went back.
 */
export async function redrive(
  deps: RedriveDeps,
  dataSetId: string,
  selection: RedriveSelection = {},
  limit = redriveBatchLimit,
): Promise<RedriveResult> {
  const { message_ids: messageIds, from, to } = selection;
  if (from && to && Date.parse(from) >= Date.parse(to))
    throw invalid('The time range is empty', [{ path: 'from', message: 'Must be before to' }]);
  const all = await deps.allFailedDeliveries(dataSetId);
  if (messageIds) {
    const known = new Set(all.map((failed) => failed.message_id));
    const unknown = messageIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw notFound(`Failed delivery ${unknown.join(', ')}`);
  }
  const wanted = messageIds ? new Set(messageIds) : null;
  const selected = all.filter(
    (failed) =>
      (!wanted || wanted.has(failed.message_id)) &&
      (!from || Date.parse(failed.failed_at) >= Date.parse(from)) &&
      (!to || Date.parse(failed.failed_at) < Date.parse(to)) &&
      (!selection.error_category || errorCategory(failed.last_error) === selection.error_category),
  );
  const now = selected.slice(0, limit);
  const byCategory: Record<string, number> = {};
  let redriven = 0;
  let next = 0;
  let queueFailed = false;
  // Two redrives of the same deliveries at once (two tabs, two operators): each envelope is requeued by
  // either (its message id makes it one row) but forgotten and counted by one, so `redriven` never
  // passes what was dead-lettered.
  const worker = async () => {
    for (let failed = now[next++]; failed && !queueFailed; failed = now[next++]) {
      const kept = await deps.loadEnvelope(failed.body_key);
      if (!kept) continue;
      try {
        await deps.requeue(kept);
      } catch {
        // The queue did not take it: it stays a failed delivery, and the call stops here.
        queueFailed = true;
        return;
      }
      if (!(await deps.forget(failed))) continue;
      redriven++;
      const category = errorCategory(failed.last_error);
      byCategory[category] = (byCategory[category] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(redriveConcurrency, now.length) }, worker));
  if (queueFailed) throw redriveNotQueued(redriven);
  return { redriven, by_category: byCategory, remaining: selected.length - now.length };
}

export interface FailedDeliveryExpiryDeps {
  allFailedDeliveries(dataSetId: string): Promise<FailedDelivery[]>;
  /**
   * Deletes the kept envelopes, then their records: a record left by a failure in between points
   * to nothing until the next run deletes it, and no envelope outlives its record unseen.
   */
  forgetExpired(failed: FailedDelivery[]): Promise<void>;
}

/**
 * The day of a failed delivery's envelope: its dt, or for a record kept before the day was, the day
 * it failed, which is never earlier (so such a record is kept a little longer, never deleted early).
 */
export const envelopeDay = (failed: Pick<FailedDelivery, 'dt' | 'failed_at'>): string =>
  failed.dt ?? failed.failed_at.slice(0, 10);

/**
 * Apply the data retention to a data set's failed deliveries, as to its table's day partitions.
 * Input: the data set, the oldest day the retention keeps. Output: how many were deleted, and the
 * oldest envelope day left (when the next deletion is due).
 *  1. Every failed delivery whose envelope's day is before the first day kept is deleted: its kept
 *     envelope, then its record. It can no longer be redriven.
 */
export async function expireFailedDeliveries(
  deps: FailedDeliveryExpiryDeps,
  dataSetId: string,
  keptFrom: string,
): Promise<{ expired: number; oldestDay: string | null }> {
  const all = await deps.allFailedDeliveries(dataSetId);
  const expired = all.filter((failed) => envelopeDay(failed) < keptFrom);
  if (expired.length > 0) await deps.forgetExpired(expired);
  const left = all
    .map(envelopeDay)
    .filter((day) => day >= keptFrom)
    .sort();
  return { expired: expired.length, oldestDay: left[0] ?? null };
}
