/**
 * What becomes of a staged table's envelopes when its commit fails (shared/domain/ingest/commit-staged.ts
 * decides when): each failed attempt is logged and counted for the operator; after the last attempt,
 * or at once when the table can never be written, its envelopes go to the dead-letter queue, each
 * with why it failed kept beside it, where the dead-letter recorder makes them failed deliveries
 * (shared/domain/monitoring/failed-deliveries.ts), redrivable, exactly as envelopes that failed on
 * the queue.
 */
import type { DataSet } from '../datasets/model.ts';
import type { MetricKey } from '../observability/metric-catalogue.ts';
import { failureReason } from '../tenants/store-failures.ts';
import type { EnvelopeMessage } from './envelope.ts';
import type { DeliveryFailure } from './kept-records.ts';

export interface StagedFailureDeps {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** Keeps why each envelope failed, for the dead-letter recorder. */
  recordDeliveryFailures(failures: DeliveryFailure[]): Promise<void>;
  /** Moves the envelopes to the ingest dead-letter queue. */
  sendToDeadLetterQueue(messages: EnvelopeMessage[]): Promise<void>;
  /** A failure as a tenant may read it (a category or code, never what a store said). */
  describe(error: Error): string;
  count(figure: Extract<MetricKey, 'batchFailures'>, labels: Record<string, string>, by: number): void;
  error(message: string, fields: Record<string, unknown>): void;
  now(): number;
}

/** The longest error a failed delivery keeps. */
const keptErrorChars = 1000;

/**
 * Dead-letter a table's staged envelopes.
 * Input: the table, its envelopes, the last error and the attempts made. Output: none.
 *  1. Read where the table lives (none when its data set is gone, or cannot be read now).
 *  2. Keep, for each envelope, the error, the store and the attempts: the dead-letter recorder reads
 *     them as the failed delivery's last error.
 *  3. Send the envelopes to the dead-letter queue; only then are they done for their committer.
 */
export async function deadLetterStaged(
  deps: StagedFailureDeps,
  tableId: string,
  messages: EnvelopeMessage[],
  error: Error,
  attempts: number,
): Promise<void> {
  const at = new Date(deps.now()).toISOString();
  const store = (await deps.getDataSet(tableId).catch(() => null))?.storage_location ?? null;
  const failures: DeliveryFailure[] = messages.map((message) => ({
    message_id: message.message_id,
    data_set_id: tableId,
    error: deps.describe(error).slice(0, keptErrorChars),
    store,
    attempt: attempts,
    at,
  }));
  await deps.recordDeliveryFailures(failures);
  await deps.sendToDeadLetterQueue(messages);
  deps.error('Staged envelopes moved to the dead-letter queue', {
    data_set_id: tableId,
    envelopes: messages.length,
    attempts,
    error: deps.describe(error),
  });
}

/** A failed attempt of a table's commit: logged, and its envelopes counted by the failure's reason (BatchFailures). */
export function countFailedAttempt(
  deps: Pick<StagedFailureDeps, 'count' | 'error'>,
  tableId: string,
  rows: number,
  error: Error,
  attempt: number,
): void {
  deps.error('Staged commit failed', { data_set_id: tableId, envelopes: rows, attempt, error });
  deps.count('batchFailures', { reason: failureReason(error) }, rows);
}
