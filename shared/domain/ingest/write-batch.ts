import type { DataSet } from '../datasets/model.ts';
import { appendToTable, type CommitDeps, type LogEntry } from '../delta/commit.ts';
import { writeDailyFiles } from '../delta/daily-files.ts';
import type { FileStats } from '../delta/log.ts';
import type { Envelope } from './envelope.ts';

export interface EncodedFile {
  bytes: Uint8Array;
  stats: FileStats;
}

export interface BatchWriterDeps {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /** The data set with its store and location fixed (the tenant's default store at the first write). */
  fixStorage(dataSet: DataSet): Promise<DataSet>;
  /** Commit dependencies for a table at a location, and what follows a commit (checkpoints). */
  tableAt(dataSet: DataSet): Promise<Omit<CommitDeps, 'hooks'> & { afterCommit?(entry: LogEntry): Promise<void> }>;
  onCommitted(dataSet: DataSet, entry: LogEntry): Promise<void>;
  encode(rows: Envelope[]): EncodedFile;
  maxRowsPerFile: number;
}

export interface PendingEnvelope {
  /** The queue record that carried it: what gets acknowledged or reported as failed. */
  recordId: string;
  envelope: Envelope;
  receiveCount: number;
}

export interface BatchFailure {
  dataSetId: string;
  /** Where the table lives, when known: the store that failed, most likely. */
  location: string | null;
  error: Error;
  envelopes: PendingEnvelope[];
}

export interface BatchOutcome {
  failedRecordIds: string[];
  written: number;
  skipped: number;
  committedDataSets: string[];
  failures: BatchFailure[];
}

/**
 * Write a batch of envelopes (WebhookMerge).
 * Input: envelopes from the ingest queue. Output: the records that could not be committed.
 *  1. Group by data set; each data set commits on its own, so one tenant's failing store does not
 *     hold back another tenant's envelopes.
 *  2. Fix the table's store and location on its first write.
 *  3. Append: one Parquet file per day (dt) and bounded chunk, one Delta commit per data set,
 *     each message id at most once (redeliveries and in-batch duplicates are acknowledged, not written),
 *     checked against the versions committed since the oldest envelope was ingested.
 *  4. A data set whose commit failed reports all its records as failures: they come back, and after
 *     five receives they move to the dead-letter queue.
 */
export async function writeEnvelopeBatch(deps: BatchWriterDeps, pending: PendingEnvelope[]): Promise<BatchOutcome> {
  const byDataSet = new Map<string, PendingEnvelope[]>();
  for (const item of pending) {
    const group = byDataSet.get(item.envelope.data_set_id) ?? [];
    group.push(item);
    byDataSet.set(item.envelope.data_set_id, group);
  }
  const outcome: BatchOutcome = { failedRecordIds: [], written: 0, skipped: 0, committedDataSets: [], failures: [] };
  await Promise.all(
    [...byDataSet.entries()].map(async ([dataSetId, items]) => {
      let location: string | null = null;
      try {
        const found = await deps.getDataSet(dataSetId);
        if (!found) throw new Error(`Data set ${dataSetId} does not exist`);
        location = found.storage_location;
        const dataSet = await deps.fixStorage(found);
        location = dataSet.storage_location;
        const table = await deps.tableAt(dataSet);
        const result = await appendToTable(
          {
            ...table,
            hooks: {
              async onCompleted(entry) {
                await deps.onCommitted(dataSet, entry);
                await table.afterCommit?.(entry);
              },
            },
          },
          {
            tableId: dataSet.data_set_id,
            metadata: {
              tableId: dataSet.data_set_id,
              name: dataSet.name,
              schema: dataSet.schema_json,
              partitionColumns: dataSet.partitioning.columns,
              createdTime: Date.parse(dataSet.created_at),
            },
            rows: items.map((item) => ({ messageId: item.envelope.message_id, envelope: item.envelope })),
            identify: (row) => ({
              messageId: row.messageId,
              ingestedAt: Number(row.envelope.ingested_at_us / 1000n),
            }),
            attempt: Math.max(...items.map((item) => item.receiveCount)),
            writeFiles: (rows) =>
              writeDailyFiles(
                table.storage,
                rows.map((row) => row.envelope),
                { dayOf: (envelope) => envelope.dt, encode: deps.encode, maxRowsPerFile: deps.maxRowsPerFile },
              ),
          },
        );
        outcome.written += result.written;
        outcome.skipped += result.skipped;
        outcome.committedDataSets.push(dataSetId);
      } catch (error) {
        outcome.failedRecordIds.push(...items.map((item) => item.recordId));
        outcome.failures.push({ dataSetId, location, error: error as Error, envelopes: items });
      }
    }),
  );
  return outcome;
}
