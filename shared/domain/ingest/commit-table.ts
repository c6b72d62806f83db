/**
 * The commit of one table's staged envelopes: what a pass (shared/domain/ingest/staging.ts) does
 * with each table it found due. How the due tables are found, read and retired is the pass's
 * business; this is the table's.
 */
import { type IcebergSyncDeps, syncIcebergAfterCommit } from '../datasets/iceberg.ts';
import { askForMaintenance, type MaintenanceRequests } from '../datasets/maintenance-due.ts';
import type { DataSet } from '../datasets/model.ts';
import type { CommittedVersion, RetainedDays } from '../datasets/table.ts';
import type { MetricKey } from '../observability/metric-catalogue.ts';
import { type ClaimCheck, type EnvelopeMessage, firstIngestMs } from './envelope.ts';

/** A staged envelope on its way to a commit, with the batch it came from. */
export interface StagedRow {
  batch: string;
  message: EnvelopeMessage;
}

export interface TableCommitResult {
  written: number;
  skipped: number;
  /** Envelopes of a day the table's data retention no longer keeps: left out, as maintenance would remove them. */
  expired: number;
}

/** Commits never succeed for this table (its data set is gone): its envelopes are dead-lettered at once. */
export class TableGone extends Error {
  constructor(tableId: string) {
    super(`Data set ${tableId} does not exist`);
    this.name = 'TableGone';
  }
}

/** An envelope whose claim-checked body is gone: it can never be written. */
export class PayloadMissing extends Error {
  constructor() {
    super('The claim-checked payload no longer exists');
    this.name = 'PayloadMissing';
  }
}

export interface CommitTableDeps extends MaintenanceRequests, IcebergSyncDeps {
  now(): number;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** The data set with its store fixed: the tenant's default store at its table's first write. */
  fixStorage(dataSet: DataSet): Promise<DataSet>;
  /**
   * Appends the rows to the data set's table as one version, each message id exactly once: a row
   * whose message the table holds already is skipped, one that `keeps` leaves out (asked as the
   * commit finds the table) is not written and counts as expired. Answers the versions committed.
   */
  appendEnvelopes(
    dataSet: DataSet,
    rows: StagedRow[],
    request: {
      attempt: number;
      keeps(table: RetainedDays): (row: StagedRow) => boolean;
      /** Aborted when nobody waits for the commit any more: it then gives up before committing. */
      signal?: AbortSignal;
    },
  ): Promise<TableCommitResult & { committed: CommittedVersion[] }>;
  /** Whether a claim-checked body is still in the platform bucket. */
  claimExists(ref: ClaimCheck): Promise<boolean>;
  /**
   * Which of these message ids the table's recorded commits hold, of envelopes first ingested at
   * `ingestedAt` (milliseconds) or later.
   */
  writtenAfterIngest(tableId: string, messageIds: string[], ingestedAt: number): Promise<Set<string>>;
  /** Removes claim-checked bodies whose envelopes are in their table. */
  checkOut(keys: string[]): Promise<void>;
  /** Records why the envelopes failed, then moves them to the dead-letter queue. */
  deadLetter(tableId: string, messages: EnvelopeMessage[], error: Error, attempts: number): Promise<void>;
  /** Adds to one of the operator's figures. */
  count(
    figure: Extract<MetricKey, 'envelopesWritten' | 'envelopesExpired' | 'envelopesLost' | 'batchesCommitted'>,
    labels: Record<string, string>,
    by: number,
  ): void;
  info(message: string, fields: Record<string, unknown>): void;
}

/**
 * Commit one table's staged envelopes.
 * Input: the table (its data set id), its staged rows, the attempt, and a signal that the caller
 * stopped waiting. Output: rows written, skipped
 * (in the table already) and expired.
 *  1. The data set must exist; when it is gone, no attempt will ever succeed (TableGone).
 *  2. Envelopes whose claim-checked body is gone are skipped when the table holds them (the commit
 *     that wrote them removed their bodies: another committer's, or an earlier attempt's whose end
 *     was not recorded), else dead-lettered on their own; the others go on.
 *  3. The rest are appended to the table, each message id exactly once; an envelope of a day the
 *     table's data retention no longer keeps is left out (maintenance would remove it).
 *  4. Claim checks of the envelopes now in the table are removed (a lifecycle rule is the backstop,
 *     so a failure here only warns).
 *  5. Counted: envelopes written (per source), versions committed, envelopes expired (per source).
 *  6. A maintenance run is asked for when the new version makes one due.
 *  7. The table's Iceberg metadata is synced, or marked due, to stay within its interval (it never
 *     fails the commit).
 */
export async function commitTable(
  deps: CommitTableDeps,
  tableId: string,
  staged: StagedRow[],
  attempt: number,
  signal?: AbortSignal,
): Promise<TableCommitResult> {
  const found = await deps.getDataSet(tableId);
  if (!found) throw new TableGone(tableId);
  const { rows, written: before } = await withoutMissingPayloads(deps, tableId, staged);
  if (rows.length === 0) return { written: 0, skipped: before, expired: 0 };
  const dataSet = await deps.fixStorage(found);
  const result = await deps.appendEnvelopes(dataSet, rows, {
    attempt,
    keeps: (table) => (row) => table.keepsDay(row.message.dt),
    ...(signal ? { signal } : {}),
  });

  const claims = rows.flatMap((row) => (row.message.payload_ref ? [row.message.payload_ref.key] : []));
  if (claims.length > 0)
    await deps
      .checkOut(claims)
      .catch((error: Error) =>
        deps.warn('Claim check clean-up failed', { data_set_id: tableId, error: error.message }),
      );
  const source = dataSet.origin.type === 'Webhook' ? dataSet.origin.source_id : '';
  if (result.written > 0) deps.count('envelopesWritten', { source_id: source }, result.written);
  if (result.committed.length > 0) deps.count('batchesCommitted', {}, result.committed.length);
  if (result.expired > 0) {
    deps.count('envelopesExpired', { source_id: source }, result.expired);
    deps.info('Staged envelopes past the data retention left out', { data_set_id: tableId, envelopes: result.expired });
  }
  await askForMaintenance(deps, dataSet, result.committed, deps.now());
  await syncIcebergAfterCommit(deps, dataSet, result.committed);
  return { written: result.written, skipped: result.skipped + before, expired: result.expired };
}

/**
 * The rows whose body can be read, and how many of those whose body is gone the table holds: a
 * commit removes the bodies of what it wrote, so a row committed meanwhile finds its body gone.
 * The others whose body is gone go to the dead-letter queue.
 */
async function withoutMissingPayloads(
  deps: CommitTableDeps,
  tableId: string,
  rows: StagedRow[],
): Promise<{ rows: StagedRow[]; written: number }> {
  const missing = new Set<StagedRow>();
  await Promise.all(
    rows.map(async (row) => {
      if (row.message.payload_ref && !(await deps.claimExists(row.message.payload_ref))) missing.add(row);
    }),
  );
  if (missing.size === 0) return { rows, written: 0 };
  const messages = [...missing].map((row) => row.message);
  const written = await deps.writtenAfterIngest(
    tableId,
    messages.map((message) => message.message_id),
    Math.min(...messages.map(firstIngestMs)),
  );
  const lost = messages.filter((message) => !written.has(message.message_id));
  if (lost.length > 0) await deps.deadLetter(tableId, lost, new PayloadMissing(), 1);
  return { rows: rows.filter((row) => !missing.has(row)), written: messages.length - lost.length };
}
