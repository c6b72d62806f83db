import type { DeliveryFailure } from '../monitoring/model.ts';
import type { EnvelopeMessage } from './envelope.ts';
import {
  type CommitReport,
  commitStaged,
  receiptsHeldAtMostMs,
  type StagingDeps,
  stageEnvelopes,
  withinTime,
} from './staging.ts';

/** One record of the ingest queue, as the writer receives it. */
export interface QueueRecord {
  recordId: string;
  body: string;
  receiveCount: number;
}

export interface BatchWriterDeps extends StagingDeps {
  /** Parses a record's body; throws for one that is not an envelope. */
  parseEnvelope(body: string): EnvelopeMessage;
  /** Why records failed, for the dead-letter recorder should they exhaust their receives. */
  recordFailures(failures: DeliveryFailure[]): Promise<void>;
}

/** Kept at the very end of the writer's invocation to answer the queue (which records it failed, else). */
const answerMs = 1000;

export interface BatchOutcome {
  /** Records to return to the queue (their receive count grows; the fifth moves them to the dead-letter queue). */
  failedRecordIds: string[];
  staged: number;
  /** What the writer committed at once: the tables whose freshness target this batch reached. */
  committed: CommitReport | null;
}

/**
 * Write a batch of the ingest queue (WebhookMerge).
 * Input: the queue's records. Output: those to return to the queue.
 *  1. Read each record as an envelope; one that is not becomes a failure of its own (its reason kept
 *     for the dead-letter recorder), never the batch's.
 *  2. Stage the envelopes: one object and one ledger item for the whole batch. Once staged they are
 *     safe, and the batch is acknowledged; if staging fails, every record comes back. The door's
 *     receipts they carry are raised when they are committed (a write per commit, not per connection
 *     and batch), or now for a table whose freshness target is too long to hold them.
 *  3. Commit at once the tables this batch made due (a freshness target of 0, or envelopes older
 *     than their table's target, such as a redrive); the table-commits schedule commits the rest
 *     when due. A failure there is the schedule's to retry: the envelopes stay staged. The batch
 *     waits for this at most half its visibility timeout, so a slow store never makes the queue
 *     deliver a staged batch again, and never past its invocation's time (less a moment to answer):
 *     the commits themselves start only while the invocation has time for them and to record them.
 */
export async function writeEnvelopeBatch(
  deps: BatchWriterDeps,
  records: QueueRecord[],
  /** When the invocation's time is up (milliseconds, by deps.now's clock); none: the visibility timeout's bound only. */
  deadline = Number.POSITIVE_INFINITY,
): Promise<BatchOutcome> {
  const now = new Date(deps.now());
  const failed: string[] = [];
  const failures: DeliveryFailure[] = [];
  const envelopes: { body: string; message: EnvelopeMessage }[] = [];
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
          at: now.toISOString(),
        });
    }
  }
  // Kept for the dead-letter recorder; failing to keep them must not fail the batch's other records.
  if (failures.length > 0)
    await deps
      .recordFailures(failures)
      .catch((error: Error) => deps.warn('Could not record delivery failures', { error }));
  if (envelopes.length === 0) return { failedRecordIds: failed, staged: 0, committed: null };

  const staged = await stageEnvelopes(deps, envelopes);
  await raiseHeldTooLong(deps, envelopes);
  const waitMs = Math.min(deps.retryMs / 2, deadline - answerMs - deps.now());
  const committed = await withinTime(() => commitStaged(deps, { only: staged, deadline }), waitMs).catch(
    (error: Error) => {
      // Nothing is lost: the envelopes stay staged, and the schedule commits them.
      deps.warn('The staged batch was not committed at once; the schedule will', { error });
      return null;
    },
  );
  return { failedRecordIds: failed, staged: envelopes.length, committed };
}

/** Raises now the receipts of envelopes whose tables may keep them staged past `receiptsHeldAtMostMs`. */
async function raiseHeldTooLong(deps: BatchWriterDeps, envelopes: { message: EnvelopeMessage }[]): Promise<void> {
  const messages = envelopes.map((envelope) => envelope.message);
  const targets = await deps
    .freshness([...new Set(messages.map((message) => message.data_set_id))])
    .catch(() => new Map<string, number>([]));
  // A target that could not be read counts as too long: raising early is never wrong, only dearer.
  const tooLong = (message: EnvelopeMessage) =>
    (targets.get(message.data_set_id) ?? Number.POSITIVE_INFINITY) > receiptsHeldAtMostMs;
  const early = messages.filter(tooLong);
  if (early.length > 0) deps.countReceipts(early);
}

/** The ids of a record that is JSON with a message and data set id, though not a valid envelope. */
function envelopeFields(body: string): { message_id: string; data_set_id: string } | null {
  try {
    const parsed = JSON.parse(body) as { message_id?: unknown; data_set_id?: unknown };
    return typeof parsed.message_id === 'string' && typeof parsed.data_set_id === 'string'
      ? { message_id: parsed.message_id, data_set_id: parsed.data_set_id }
      : null;
  } catch {
    return null;
  }
}
