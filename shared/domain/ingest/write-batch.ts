import { forEachAtMost } from '../at-most.ts';
import {
  addToReport,
  arrivalFor,
  type CommitReport,
  type CommitStagedDeps,
  emptyReport,
  removeObjects,
  withinTime,
} from './commit-staged.ts';
import { commitTable, finishCommit } from './commit-table.ts';
import { type EnvelopeMessage, envelopeFields } from './envelope.ts';
import type { DeliveryFailure } from './kept-records.ts';
import {
  type CommitTrigger,
  largeTableShare,
  receiptsHeldAtMostMs,
  recordId,
  recordWrittenWithinMs,
  type StagedSlice,
  type StagingObjects,
  writerLifetimeMs,
} from './staging.ts';

/** A staged batch: its object's key and bytes, and each table's slice of it. */
export interface StagedBatch {
  key: string;
  bytes: Buffer;
  slices: Map<string, StagedSlice>;
}

/**
 * Put a batch's envelopes into one staged object.
 * Input: the queue messages' bodies with their parsed envelopes. Output: the object's key, its bytes
 * and each table's slice of it. Each table's lines are one contiguous slice. The object's bytes come
 * back with the batch: the writer commits the tables due at once from them rather than reading back
 * what it has just written.
 */
export async function putStagedObject(
  deps: { objects: StagingObjects; now(): number },
  envelopes: { body: string; message: EnvelopeMessage }[],
): Promise<StagedBatch> {
  const byTable = new Map<string, { body: string; message: EnvelopeMessage }[]>();
  for (const envelope of envelopes) {
    const group = byTable.get(envelope.message.data_set_id);
    if (group) group.push(envelope);
    else byTable.set(envelope.message.data_set_id, [envelope]);
  }
  const stagedAt = deps.now();
  const parts: Buffer[] = [];
  const slices = new Map<string, StagedSlice>();
  let offset = 0;
  for (const [tableId, group] of byTable) {
    const bytes = Buffer.from(`${group.map((envelope) => envelope.body).join('\n')}\n`, 'utf8');
    parts.push(bytes);
    slices.set(tableId, {
      offset,
      length: bytes.length,
      rows: group.length,
      oldest: Math.min(...group.map((envelope) => Number(BigInt(envelope.message.ingested_at_us) / 1000n))),
      bytes: group.reduce((sum, envelope) => sum + envelope.message.payload_size, 0),
      sources: rowsBySource(group),
    });
    offset += bytes.length;
  }
  const id = recordId(stagedAt);
  const key = `staging/${new Date(stagedAt).toISOString().slice(0, 10)}/${stagingShardOf(id)}/${id}.ndjson`;
  const bytes = Buffer.concat(parts);
  await deps.objects.put(key, bytes);
  return { key, bytes, slices };
}

/** A table's rows of a batch by source: nearly always one entry, and never more than the batch's rows. */
function rowsBySource(group: { message: EnvelopeMessage }[]): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const { message } of group) rows[message.source_id] = (rows[message.source_id] ?? 0) + 1;
  return rows;
}

/**
 * Prefixes the staged objects of a day are spread over. Committers read each table's slice of an
 * object on its own (tables commit at their own times), so a day's objects take about one GET per
 * table and batch: at 50,000 requests a second, tens of thousands a second, where S3 serves 5,500
 * per prefix.
 */
export const stagingShards = 16;

/** The prefix of a staged object: from its id's random part, so that writers spread evenly. */
export function stagingShardOf(id: string): string {
  return String(Number.parseInt(id.slice(-2), 16) % stagingShards).padStart(2, '0');
}

/** One record of the ingest queue, as the writer receives it. */
export interface QueueRecord {
  recordId: string;
  body: string;
  receiveCount: number;
}

/**
 * How long a record waits before its next receive after its batch could not be staged: `first`
 * seconds after its first receive, doubling with each receive, at most eight times `first`. With the
 * default 30 s, its five receives span 30 + 60 + 120 + 240 = 450 s, well over the minutes a slow or
 * throttled dependency (DynamoDB on-demand past twice its previous peak, S3 slowing down a prefix)
 * takes to recover, where the queue's own timeout (locally seconds) spent them in under a minute.
 */
export function backoffSeconds(receiveCount: number, first: number): number {
  return first * 2 ** Math.min(3, Math.max(0, receiveCount - 1));
}

/**
 * The commit triggers one writer instance sent, so that it sends no other for a table while one
 * of its own arrives in time: a table its batches hold every few seconds costs one trigger per
 * freshness target, not one per batch. Bounded: entries whose trigger arrived are forgotten first.
 */
export class SentTriggers {
  private readonly sent = new Map<string, { at: number; dueAt: number; bytes: number }>();

  constructor(private readonly maxTables = 100_000) {}

  /**
   * The trigger to send for a table this batch staged rows of, due at `dueAt`, or null when one this
   * instance sent arrives no later than that, and late enough that this batch's record is written by
   * then (`writerLifetimeMs` ahead); unless the instance staged a large table's share of its size
   * target since, which triggers its commit at once.
   */
  plan(
    tableId: string,
    dueAt: number,
    bytes: number,
    now: number,
    limits: { maxDelayMs: number; sizeTarget: number },
  ): CommitTrigger | null {
    const known = this.sent.get(tableId);
    if (known && known.dueAt <= dueAt && known.at - now > writerLifetimeMs) {
      known.bytes += bytes;
      if (known.bytes < limits.sizeTarget / largeTableShare) return null;
      return { tableId, at: now };
    }
    return { tableId, at: arrivalFor(limits, dueAt, now) };
  }

  /** When the trigger this instance sent for the table arrives (null: none is known). */
  arrivalOf(tableId: string): number | null {
    return this.sent.get(tableId)?.at ?? null;
  }

  /** The trigger was sent (and the table listed as pending). */
  remember(trigger: CommitTrigger, dueAt: number, now: number): void {
    const known = this.sent.get(trigger.tableId);
    // A size trigger leaves the earlier trigger standing: it still arrives in time for the rest.
    if (known && trigger.at <= now && known.at > trigger.at) {
      known.bytes = 0;
      return;
    }
    this.sent.delete(trigger.tableId);
    this.sent.set(trigger.tableId, { at: trigger.at, dueAt, bytes: 0 });
    if (this.sent.size <= this.maxTables) return;
    for (const [tableId, entry] of this.sent) if (entry.at <= now) this.sent.delete(tableId);
    for (const tableId of this.sent.keys()) {
      if (this.sent.size <= this.maxTables) break;
      this.sent.delete(tableId);
    }
  }
}

export interface BatchWriterDeps extends CommitStagedDeps {
  /** Parses a record's body; throws for one that is not an envelope. */
  parseEnvelope(body: string): EnvelopeMessage;
  /** Why records failed, for the dead-letter recorder should they exhaust their receives. */
  recordFailures(failures: DeliveryFailure[]): Promise<void>;
  /** The triggers this instance sent. */
  sent: SentTriggers;
  /** Tables the writer commits at the same time. */
  concurrency: number;
  /** The first wait of a record whose batch could not be staged (backoffSeconds). */
  backoffFirstSeconds: number;
}

/** Kept at the very end of the writer's invocation to answer the queue (which records it failed, else). */
const answerMs = 1000;

export interface BatchOutcome {
  /** Records to return to the queue (their receive count grows; the fifth moves them to the dead-letter queue). */
  failedRecordIds: string[];
  /**
   * Of those, the records to keep off the queue for a while (backoffSeconds) because a dependency
   * failed: the caller sets their visibility timeout (SQS ChangeMessageVisibility) as its last act.
   */
  deferred: { recordId: string; seconds: number }[];
  staged: number;
  /** What the writer committed at once: the tables whose freshness target this batch reached. */
  committed: CommitReport | null;
}

/**
 * Write a batch of the ingest queue (WebhookMerge).
 * Input: the queue's records. Output: those to return to the queue.
 *  1. Read each record as an envelope; one that is not becomes a failure of its own (its reason kept
 *     for the dead-letter recorder), never the batch's.
 *  2. Put the envelopes into one staged object. The door's receipts they carry are raised when they
 *     are committed (a write per commit, not per connection and batch), or now for a table whose
 *     freshness target is too long to hold them.
 *  3. Tables not due yet are staged: a record of each one's slice in its partition, a commit trigger
 *     for when it is due (unless one this instance sent arrives in time), the table listed as pending.
 *  4. Tables this batch made due (a freshness target of 0, envelopes older than their target such as
 *     a redrive's, or a size target's worth) are committed at once from the object's bytes, each
 *     only while the invocation has time for its whole commit and to stage it after all; one that
 *     fails or finds no time is staged as in 3, its trigger due at once (the committer retries it).
 *     The batch waits for this at most half its visibility timeout, so a slow store never makes the
 *     queue deliver a staged batch again. An object whose every table was committed at once is removed:
 *     no record points into it.
 *  5. Once every table is committed or staged, the batch is acknowledged. If anything before fails (a
 *     dependency timed out, throttled or answered 5xx), every envelope's record comes back and is
 *     staged again (a table's log keeps each row once), but not at once: each is deferred by a wait
 *     that grows with its receives (backoffSeconds), so that a dependency slow for minutes costs a
 *     record a few receives, not all five in seconds.
 *
 * Why the wait is the queue's and not the invocation's: a writer that waited and retried inside its
 * invocation would hold one of its reserved instances idle, and could wait at most its timeout
 * (120 s, less the time to stage), no longer than a dependency's slowdown. SQS lets a consumer set a
 * received message's visibility timeout, from now, up to 12 hours
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html),
 * and Lambda leaves a record reported in `batchItemFailures` on the queue until it is visible again
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html, partial batch
 * responses and backoff), counting one receive: the waits stay far inside the ingest queue's 4 days of
 * retention, and the queue's visibility timeout (six times the writer's timeout, as
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html asks) still keeps a record
 * hidden while its invocation runs.
 */
export async function writeEnvelopeBatch(
  deps: BatchWriterDeps,
  records: QueueRecord[],
  /** When the invocation's time is up (milliseconds, by deps.now's clock); none: the visibility timeout's bound only. */
  deadline = Number.POSITIVE_INFINITY,
): Promise<BatchOutcome> {
  const failed: string[] = [];
  const failures: DeliveryFailure[] = [];
  const envelopes: { body: string; message: EnvelopeMessage }[] = [];
  const at = new Date(deps.now()).toISOString();
  for (const record of records) {
    try {
      envelopes.push({ body: record.body, message: deps.parseEnvelope(record.body) });
    } catch (error) {
      failed.push(record.recordId);
      const message = envelopeFields(record.body);
      if (message)
        failures.push({
          message_id: message.message_id,
          data_set_id: message.data_set_id,
          error: `Unreadable envelope: ${(error as Error).message}`.slice(0, 1000),
          store: null,
          attempt: record.receiveCount,
          at,
        });
    }
  }
  // Kept for the dead-letter recorder; failing to keep them must not fail the batch's other records.
  if (failures.length > 0)
    await deps
      .recordFailures(failures)
      .catch((error: Error) => deps.warn('Could not record delivery failures', { error }));
  if (envelopes.length === 0) return { failedRecordIds: failed, deferred: [], staged: 0, committed: null };
  try {
    return await stageAndCommit(deps, envelopes, failed, deadline);
  } catch (error) {
    const unreadable = new Set(failed);
    const deferred = records
      .filter((record) => !unreadable.has(record.recordId))
      .map((record) => ({
        recordId: record.recordId,
        seconds: backoffSeconds(record.receiveCount, deps.backoffFirstSeconds),
      }));
    deps.warn('The batch could not be staged; its records come back after a wait that grows with their receives', {
      error,
      records: deferred.length,
      seconds: Math.max(...deferred.map((record) => record.seconds)),
    });
    return { failedRecordIds: records.map((record) => record.recordId), deferred, staged: 0, committed: null };
  }
}

/** Steps 2 to 5 of writeEnvelopeBatch: stage the envelopes, commit the tables due, acknowledge. */
async function stageAndCommit(
  deps: BatchWriterDeps,
  envelopes: { body: string; message: EnvelopeMessage }[],
  failed: string[],
  deadline: number,
): Promise<BatchOutcome> {
  const batch = await putStagedObject(deps, envelopes);
  const targets = await deps.freshness([...batch.slices.keys()]);
  await raiseHeldTooLong(deps, envelopes, targets);
  const now = deps.now();
  const dueNow: string[] = [];
  const later: string[] = [];
  for (const [tableId, slice] of batch.slices) {
    const target = targets.get(tableId) ?? 0;
    // Due within a trigger's precision: committed now rather than a trigger later.
    if (slice.oldest + target <= now + deps.triggers.earlyMs || slice.bytes >= deps.sizeTarget) dueNow.push(tableId);
    else later.push(tableId);
  }
  await stageSlices(
    deps,
    batch,
    later.map((tableId) => ({
      tableId,
      dueAt: (batch.slices.get(tableId)?.oldest ?? now) + (targets.get(tableId) ?? 0),
    })),
  );
  const report = dueNow.length > 0 ? await commitAtOnce(deps, batch, dueNow, deadline) : null;
  // Every table committed at once, none staged: no record points into the object.
  if (later.length === 0 && report && report.committed.length === dueNow.length)
    await removeObjects(deps, dueNow[0] as string, [batch.key], deadline);
  return { failedRecordIds: failed, deferred: [], staged: envelopes.length, committed: report };
}

/**
 * Lists each table as pending, records its slice, and sends it a trigger for when it is due (unless one
 * this instance sent arrives in time).
 */
async function stageSlices(
  deps: BatchWriterDeps,
  batch: StagedBatch,
  tables: { tableId: string; dueAt: number }[],
): Promise<void> {
  if (tables.length === 0) return;
  const now = deps.now();
  const staged = tables.map(({ tableId, dueAt }) => ({
    tableId,
    dueAt,
    slice: batch.slices.get(tableId) as StagedSlice,
  }));
  const limits = { maxDelayMs: deps.triggers.maxDelayMs, sizeTarget: deps.sizeTarget };
  const planned: { trigger: CommitTrigger; dueAt: number }[] = [];
  const covered: { tableId: string; dueAt: number }[] = [];
  for (const { tableId, dueAt, slice } of staged) {
    const trigger = deps.sent.plan(tableId, dueAt, slice.bytes, now, limits);
    if (trigger) planned.push({ trigger, dueAt });
    else covered.push({ tableId, dueAt });
  }
  // Listed before their records are written, so that no record is ever where nothing looks: should the trigger's
  // send then fail at every receive (the envelopes dead-lettered, found staged, recorded as nothing), the overdue
  // check still finds the table listed and sends it one. A listing whose records never came commits nothing.
  await forEachAtMost(planned, 16, ({ trigger, dueAt }) =>
    deps.records.listPending(trigger.tableId, { dueAt, triggerAt: trigger.at }, now),
  );
  await deps.records.write(
    staged.map(({ tableId, slice }) => ({
      tableId,
      record: { id: recordId(now), key: batch.key, objectSize: batch.bytes.length, ...slice },
    })),
    now + recordWrittenWithinMs,
  );
  // A table whose trigger from this instance is still on its way may have been committed and taken
  // off the index meanwhile (by another trigger that arrived first): it is listed again, due with
  // this batch, so that the overdue check and the staged figure see it. Its head is read after its
  // record is written, and a committer reads the table again after it takes a table off.
  const relisted: { trigger: CommitTrigger; dueAt: number }[] = [];
  if (covered.length > 0) {
    const heads = await deps.records.heads(covered.map(({ tableId }) => tableId));
    for (const { tableId, dueAt } of covered) {
      const head = heads.get(tableId);
      const at = deps.sent.arrivalOf(tableId);
      const listed = head && head.dueAt !== null && head.triggerAt !== null && head.triggerAt > now;
      if (at !== null && !(listed && (head.dueAt as number) <= dueAt))
        relisted.push({ trigger: { tableId, at }, dueAt });
    }
  }
  if (planned.length > 0) await deps.triggers.send(planned.map(({ trigger }) => trigger));
  await forEachAtMost(relisted, 16, ({ trigger, dueAt }) =>
    deps.records.listPending(trigger.tableId, { dueAt, triggerAt: trigger.at }, now),
  );
  for (const { trigger, dueAt } of planned) deps.sent.remember(trigger, dueAt, now);
}

/**
 * Commits the tables from the batch's bytes, `concurrency` at a time, each only while the invocation
 * has time for its whole commit and to stage it after all; those not committed are staged.
 */
async function commitAtOnce(
  deps: BatchWriterDeps,
  batch: StagedBatch,
  tableIds: string[],
  deadline: number,
): Promise<CommitReport> {
  const report = emptyReport();
  const until = Math.min(deps.now() + deps.retryMs / 2, deadline - answerMs - deps.recordMs);
  const left: string[] = [];
  await forEachAtMost(tableIds, deps.concurrency, async (tableId) => {
    const slice = batch.slices.get(tableId);
    if (!slice || deps.now() + deps.tableTimeMs > until) {
      left.push(tableId);
      return;
    }
    try {
      const rows = deps
        .parse(batch.bytes.subarray(slice.offset, slice.offset + slice.length))
        .map((message) => ({ batch: batch.key, message }));
      const result = await withinTime(
        (signal) => commitTable(deps, tableId, rows, 1, signal),
        Math.min(deps.tableTimeMs, until - deps.now()),
      );
      deps.countReceipts(rows.map((row) => row.message));
      // A count that fails leaves the table staged: its committer finds the rows written, and counts them.
      await finishCommit(deps, tableId, result);
      await deps.settleCounts();
      addToReport(report, tableId, { outcome: 'committed', ...result });
    } catch (error) {
      // Nothing is lost: the table is staged, and its trigger brings a committer at once.
      deps.warn('A table was not committed at once; it is staged for the committers', {
        data_set_id: tableId,
        error,
      });
      left.push(tableId);
    }
  });
  // Due already: their triggers arrive at once.
  const now = deps.now();
  await stageSlices(
    deps,
    batch,
    left.map((tableId) => ({ tableId, dueAt: now })),
  );
  return report;
}

/** Raises now the receipts of envelopes whose tables may keep them staged past `receiptsHeldAtMostMs`. */
async function raiseHeldTooLong(
  deps: BatchWriterDeps,
  envelopes: { message: EnvelopeMessage }[],
  targets: Map<string, number>,
): Promise<void> {
  const messages = envelopes.map((envelope) => envelope.message);
  const tooLong = (message: EnvelopeMessage) =>
    (targets.get(message.data_set_id) ?? Number.POSITIVE_INFINITY) > receiptsHeldAtMostMs;
  const early = messages.filter(tooLong);
  if (early.length > 0) deps.countReceipts(early);
}
