/**
 * Writing data sets' Delta tables with the Delta library (delta/): staged envelopes appended exactly
 * once, pipeline rows appended or replacing whole days, maintenance runs (compaction, vacuum, log
 * clean-up, data retention). Every version is recorded with its data set and checkpointed when the
 * table's interval says so; the use cases get the versions back (CommittedVersion) and decide what
 * follows them. Only the batch writer, the table-commits schedule and the job runner load this
 * module (it brings apache-arrow and parquet-wasm); opening snapshots alone is in table-storage.ts.
 */

import { liveRecords, type TableMetadata } from '#delta/kernel/log.ts';
import type { TableState } from '#delta/kernel/snapshot.ts';
import type { TableStorage } from '#delta/kernel/storage.ts';
import { appendToTable } from '#delta/operations/append.ts';
import { checkpointDue, writeCheckpoint } from '#delta/operations/checkpoint.ts';
import { type PartitionedFiles, writePartitionedFiles } from '#delta/operations/data-files.ts';
import { type MaintenanceDeps, maintainTable } from '#delta/operations/maintenance.ts';
import { planCompaction } from '#delta/operations/optimize.ts';
import { replacePartitions } from '#delta/operations/replace-partitions.ts';
import type { CommitDeps, LogEntry } from '#delta/operations/transaction.ts';
import { encodeCheckpoint } from '#delta/parquet/checkpoint-writer.ts';
import { rewriteFiles } from '#delta/parquet/compaction.ts';
import { type CellValue, maxRowsPerFile, writeParquet } from '#delta/parquet/parquet-files.ts';
import { config } from '../config.ts';
import {
  clockMarginMs,
  exactlyOncePerMessage,
  type HeldRun,
  type MessageIdRecords,
} from '../domain/datasets/exactly-once.ts';
import { type DataSet, envelopeSchema } from '../domain/datasets/model.ts';
import { dayExpiresAt, oldestDay, retentionKeeps, retentionOf, retentionPlan } from '../domain/datasets/retention.ts';
import { recordVersionFound } from '../domain/datasets/storage.ts';
import type { CommittedVersion } from '../domain/datasets/table.ts';
import { tableSettings } from '../domain/datasets/table-settings.ts';
import type { CommitTableDeps, StagedRow } from '../domain/ingest/commit-table.ts';
import { firstIngestMs, isTimedId } from '../domain/ingest/envelope.ts';
import type { MaintenanceOutcome } from '../domain/jobs/run-optimize.ts';
import type { ColumnDefinition } from '../domain/pipelines/definition.ts';
import type { DecodedRow } from '../domain/pipelines/run-pipeline.ts';
import { logger } from '../observability/logger.ts';
import { asServiceErrors } from './delta-errors.ts';
import { commitRecords } from './dynamo/delta-log.ts';
import { encodeStaged, maxPayloadBytesPerFile } from './parquet/envelope-writer.ts';
import { type OpenTable, openTable, tableMetadataOf } from './table-storage.ts';

/**
 * A checkpoint when the table's interval asks for one (not at version 0). Never fails the commit:
 * a missed checkpoint only makes readers replay more commits until the next one.
 */
async function checkpointIfDue(storage: TableStorage, tableId: string, entry: LogEntry, state: TableState) {
  if (entry.version === 0 || !checkpointDue(entry.version, state)) return;
  try {
    await writeCheckpoint(storage, encodeCheckpoint, state, Date.now());
  } catch (error) {
    logger.warn('Checkpoint not written', {
      data_set_id: tableId,
      version: entry.version,
      error: (error as Error).message,
    });
  }
}

/** A committed version as the use cases ask about it (shared/domain/datasets/table.ts). */
export function committedView(entry: LogEntry, state: TableState, defaultRetentionMs: number | null): CommittedVersion {
  const properties = tableSettings(state.metadata?.configuration ?? {});
  return {
    version: entry.version,
    checkpoint: entry.version > 0 && checkpointDue(entry.version, state),
    partitionsToCompact: () =>
      planCompaction(state.files.values(), properties.targetFileSize, properties.optimizeMinFiles).length,
    oldestDayExpiresAt() {
      const retentionMs = retentionOf(state, defaultRetentionMs);
      const oldest = retentionMs === null ? null : oldestDay(state.files.values());
      return oldest === null || retentionMs === null ? null : dayExpiresAt(oldest, retentionMs);
    },
  };
}

/**
 * What committing to the data set's table takes: each version recorded with the data set (its
 * version, the pipelines watching it) and checkpointed when due; `committed` collects the versions
 * for the use case that asked.
 */
async function tableWriter(table: OpenTable, now?: () => Date) {
  const committer = await table.committer();
  const committed: CommittedVersion[] = [];
  const commit: CommitDeps = {
    ...committer,
    ...(now ? { now } : {}),
    hooks: {
      async onCompleted(entry, state) {
        await table.recordVersion(entry.version);
        await checkpointIfDue(committer.storage, table.tableId, entry, state);
        committed.push(committedView(entry, state, config.dataRetentionMs()));
      },
    },
  };
  return { commit, committed };
}

/**
 * Staged envelopes appended to a table, exactly once per message id, on the table's commit
 * dependencies (the tenant's store, or a test's in memory): one file per day and size bound, the
 * table's retained days as of the commit handed to the use case's `keeps`.
 */
export function envelopeOutput(
  deps: CommitDeps,
  options: { ids: MessageIdRecords; encode?: PartitionedFiles<StagedRow>['encode']; defaultRetentionMs: number | null },
) {
  const encode = options.encode ?? encodeStaged;
  return async (dataSet: DataSet, rows: StagedRow[], request: Parameters<CommitTableDeps['appendEnvelopes']>[2]) => {
    // The commits that hold these rows, each counted once per run: this one's, and those found.
    const runs = new Map<string, number>();
    const own: { run: HeldRun | null } = { run: null };
    const once = exactlyOncePerMessage(
      options.ids,
      dataSet.data_set_id,
      (row: StagedRow) => ({
        messageId: row.message.message_id,
        ingestedAt: firstIngestMs(row.message),
        // An id that is not a UUID v7 of its first ingest carries no time: its copies' own times differ.
        withinMs: isTimedId(row.message.message_id) ? 0 : clockMarginMs,
      }),
      (run) => runs.set(run.runId, run.rows),
    );
    const result = await appendToTable(deps, {
      tableId: dataSet.data_set_id,
      // The columns written now, whatever the data set recorded at its creation: a table made
      // before a column was added to the envelope gains it with this commit.
      metadata: { ...tableMetadataOf(dataSet), schema: envelopeSchema },
      addsColumns: true,
      rows,
      deduplication: {
        ...once,
        async beforeCommit(chosen, runId) {
          await once.beforeCommit(chosen, runId);
          own.run = { runId, rows: chosen.length };
        },
      },
      attempt: request.attempt,
      ...(request.signal ? { signal: request.signal } : {}),
      keeps: (table) =>
        request.keeps({
          keepsDay: retentionKeeps(table, (deps.now?.() ?? new Date()).getTime(), options.defaultRetentionMs),
        }),
      writeFiles: (pending) =>
        writePartitionedFiles(deps.storage, pending, {
          partitionOf: (row) => ({ dt: row.message.dt }),
          maxRowsPerFile,
          weight: (row) => row.message.payload_size,
          maxWeightPerFile: maxPayloadBytesPerFile,
          encode,
        }),
    });
    if (result.version !== null && own.run) runs.set(own.run.runId, result.written);
    return { ...result, runs: [...runs].map(([runId, held]) => ({ runId, rows: held })) };
  };
}

/** Staged envelopes appended to their data set's table in the tenant's store (shared/domain/ingest/commit-table.ts). */
export const appendEnvelopes: CommitTableDeps['appendEnvelopes'] = (dataSet, rows, request) =>
  asServiceErrors(async () => {
    const table = await openTable(dataSet);
    const writer = await tableWriter(table);
    const result = await envelopeOutput(writer.commit, {
      ids: commitRecords,
      defaultRetentionMs: config.dataRetentionMs(),
    })(dataSet, rows, request);
    if (writer.committed.length === 0 && result.skipped > 0) await recordVersionFound(table, dataSet.version);
    return {
      written: result.written,
      skipped: result.skipped,
      expired: result.expired,
      committed: writer.committed,
      runs: result.runs,
    };
  });

/** A pipeline's decoded rows as the files of its output table: one file per day and chunk. */
function writeRowFiles(storage: CommitDeps['storage'], columns: ColumnDefinition[], rows: DecodedRow[]) {
  const specs = columns.map((column) => ({ name: column.name, type: column.type, nullable: true }));
  return writePartitionedFiles(storage, rows, {
    partitionOf: (row) => ({ dt: row.dt }),
    encode: (chunk) =>
      writeParquet(
        specs,
        specs.map((_, c) => chunk.map((row) => row.cells[c] as CellValue)),
      ),
    maxRowsPerFile,
  });
}

/**
 * What a pipeline run writes to its output table, on the table's commit dependencies (the tenant's
 * store, or a test's in memory).
 *   append   the run's rows, exactly once per run, recorded as the pipeline's txn (appId = the
 *            pipeline, version = the last source version read).
 *   replace  a ranged re-run's rows: their files are written, then one version removes every file
 *            of those days and adds them, carrying the pipeline's txn. Re-running it replaces the
 *            same days again.
 */
export function pipelineOutput(deps: CommitDeps, metadata: TableMetadata) {
  return {
    async append(
      columns: ColumnDefinition[],
      rows: DecodedRow[],
      attempt: number,
      txn: { appId: string; version: number; after: number; readVersion: number },
    ) {
      const result = await appendToTable(deps, {
        tableId: metadata.tableId,
        metadata,
        rows,
        txn,
        attempt,
        writeFiles: (pending) => writeRowFiles(deps.storage, columns, pending),
      });
      return { version: result.version, written: result.written };
    },
    async replace(
      columns: ColumnDefinition[],
      rows: DecodedRow[],
      days: ReadonlySet<string>,
      attempt: number,
      txn: { appId: string; version: number; expected: number },
    ) {
      const files = await writeRowFiles(deps.storage, columns, rows);
      const result = await replacePartitions(deps, {
        tableId: metadata.tableId,
        replaces: (values) => typeof values.dt === 'string' && days.has(values.dt),
        operation: 'WRITE',
        adds: files.adds,
        rows: rows.length,
        bytes: files.bytes,
        metadata,
        txn,
        attempt,
      });
      return {
        version: result?.version ?? null,
        written: result ? rows.length : 0,
        filesRemoved: result?.removed.length ?? 0,
        rowsRemoved: (result?.removed ?? []).reduce((sum, file) => sum + liveRecords(file), 0),
      };
    },
  };
}

/**
 * A data set's table opened once for a run that writes it: the store resolved once (openTable),
 * and what the run commits through it. `committed` collects the versions of every write.
 */
export class WritableTable {
  constructor(readonly opened: OpenTable) {}

  /** A pipeline's rows appended to its output table, exactly once per run (pipelineOutput). */
  async appendRows(metadata: TableMetadata, ...request: Parameters<ReturnType<typeof pipelineOutput>['append']>) {
    const writer = await tableWriter(this.opened);
    const result = await pipelineOutput(writer.commit, metadata).append(...request);
    return { ...result, committed: writer.committed };
  }

  /** A ranged re-run's rows replacing whole days of a pipeline's output table (pipelineOutput). */
  async replaceRows(metadata: TableMetadata, ...request: Parameters<ReturnType<typeof pipelineOutput>['replace']>) {
    const writer = await tableWriter(this.opened);
    const result = await pipelineOutput(writer.commit, metadata).replace(...request);
    return { ...result, committed: writer.committed };
  }

  /** One maintenance run of the table (maintainWithRetention). */
  async maintain(
    options: { minFiles?: number },
    control: Pick<MaintenanceDeps, 'checkpoint' | 'beforeFirstCommit'> & { now?: () => Date } = {},
  ): Promise<MaintenanceOutcome> {
    const now = control.now ?? (() => new Date());
    const writer = await tableWriter(this.opened, now);
    const report = await maintainWithRetention(
      {
        commit: writer.commit,
        reader: this.opened.reader,
        rewrite: (sources, targetSize, newPath) => rewriteFiles(writer.commit.storage, sources, targetSize, newPath),
        now,
        ...(control.checkpoint ? { checkpoint: control.checkpoint } : {}),
        ...(control.beforeFirstCommit ? { beforeFirstCommit: control.beforeFirstCommit } : {}),
      },
      this.opened.tableId,
      { ...options, defaultRetentionMs: config.dataRetentionMs() },
    );
    return { ...report, committed: writer.committed };
  }
}

/** The data set's table opened for writing (its storage fixed already). */
export async function writableTable(dataSet: DataSet): Promise<WritableTable> {
  return new WritableTable(await openTable(dataSet));
}

/**
 * The library's maintenance run with the data set's rules (shared/domain/datasets/): the days its
 * data retention no longer keeps expire first, and a partition is compacted from `minFiles` small
 * files (the table's `tributary.optimize.minFiles` when absent).
 */
export async function maintainWithRetention(
  deps: MaintenanceDeps,
  tableId: string,
  options: { minFiles?: number; defaultRetentionMs: number | null },
): Promise<Omit<MaintenanceOutcome, 'committed'>> {
  const now = () => deps.now().getTime();
  let retention = retentionPlan({ protocol: null, metadata: null }, now(), options.defaultRetentionMs);
  const report = await maintainTable(deps, tableId, (state) => {
    retention = retentionPlan(state, now(), options.defaultRetentionMs);
    const minFiles = options.minFiles ?? tableSettings(state.metadata?.configuration ?? {}).optimizeMinFiles;
    return { minFiles, expiry: retention.expiry };
  });
  return { ...report, retentionMs: retention.retentionMs, keptFrom: retention.keptFrom };
}
