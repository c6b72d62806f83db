/**
 * Writing data sets' Delta tables: commits with their checkpoints, envelopes read back for
 * pipelines and queries, pipeline rows appended as Parquet, and maintenance runs (compaction,
 * vacuum, log clean-up). Only the batch writer and the job runner load this module (it brings
 * apache-arrow and parquet-wasm); opening snapshots alone is in table-storage.ts.
 */

import { config } from '../config.ts';
import type { DataSet } from '../domain/datasets/model.ts';
import { checkpointDue, writeCheckpoint } from '../domain/delta/checkpoint.ts';
import { appendToTable, type CommitDeps, type LogEntry, replacePartitions } from '../domain/delta/commit.ts';
import { writeDailyFiles } from '../domain/delta/daily-files.ts';
import { liveRecords, type TableMetadata } from '../domain/delta/log.ts';
import {
  dayExpiresAt,
  type MaintenanceDeps,
  type MaintenanceReport,
  maintainTable,
  oldestDay,
  planCompaction,
} from '../domain/delta/maintenance.ts';
import { tableProperties } from '../domain/delta/properties.ts';
import type { LogReader, TableState } from '../domain/delta/snapshot.ts';
import type { DayRange } from '../domain/jobs/pipeline-runs.ts';
import type { ColumnDefinition } from '../domain/pipelines/definition.ts';
import type { DecodedRow, PipelineRunDeps } from '../domain/pipelines/run-pipeline.ts';
import { logger } from '../observability/logger.ts';
import { markMaintenanceDue } from './dynamo/table-maintenance.ts';
import { decodeCheckpoint } from './parquet/checkpoint-reader.ts';
import { encodeCheckpoint } from './parquet/checkpoint-writer.ts';
import { rewriteFiles } from './parquet/compaction.ts';
import { type CellValue, maxRowsPerFile, writeParquet } from './parquet/parquet-files.ts';
import { fixStorage, recordCommit, tableCommitter, tableReader } from './table-storage.ts';

/** Every this many versions a writer also asks for a maintenance run, so old log files get cleaned up. */
const maintenanceEveryVersions = 1000;

/**
 * The first maintenance run a data retention needs: when the table's oldest day expires (a table
 * already maintained is due again then anyway; this brings in tables that never were).
 */
function retentionDueAt(state: TableState): Date | null {
  const retentionMs = tableProperties(state.metadata?.configuration ?? {}).dataRetentionMs ?? config.dataRetentionMs();
  const oldest = retentionMs === null ? null : oldestDay(state.files.values());
  return oldest === null || retentionMs === null ? null : new Date(dayExpiresAt(oldest, retentionMs));
}

/**
 * After a version is committed: its checkpoint when one is due, and a maintenance run asked for when
 * a partition has piled up small files, or for when the data retention has days to remove. Never
 * fails the commit: a missed checkpoint only makes readers replay more commits until the next one.
 */
async function afterCommit(dataSet: DataSet, reader: LogReader, entry: LogEntry, state: TableState): Promise<void> {
  const tableId = dataSet.data_set_id;
  const properties = tableProperties(state.metadata?.configuration ?? {});
  if (entry.version === 0) return;
  const checkpoint = checkpointDue(entry.version, state);
  if (!checkpoint && entry.version % maintenanceEveryVersions !== 0) return;
  try {
    if (checkpoint) await writeCheckpoint(reader.storage as CommitDeps['storage'], encodeCheckpoint, state, Date.now());
    if (
      entry.version % maintenanceEveryVersions === 0 ||
      planCompaction(state.files.values(), properties.targetFileSize, properties.optimizeMinFiles).length > 0
    )
      await markMaintenanceDue(tableId, dataSet.tenant_id, new Date());
    else if (checkpoint) {
      const due = retentionDueAt(state);
      if (due) await markMaintenanceDue(tableId, dataSet.tenant_id, due);
    }
  } catch (error) {
    logger.warn('Checkpoint not written', {
      data_set_id: tableId,
      version: entry.version,
      error: (error as Error).message,
    });
  }
}

export interface TableWriter extends Omit<CommitDeps, 'hooks'> {
  /** Checkpoints and maintenance requests; run it from the commit's onCompleted hook. */
  afterCommit(entry: LogEntry, state: TableState): Promise<void>;
}

export async function tableAt(dataSet: DataSet): Promise<TableWriter> {
  const committer = await tableCommitter(dataSet);
  const reader = { storage: committer.storage, decodeCheckpoint };
  return { ...committer, afterCommit: (entry, state) => afterCommit(dataSet, reader, entry, state) };
}

/** The table as its data set describes it (its version 0). */
const tableMetadataOf = (table: DataSet): TableMetadata => ({
  tableId: table.data_set_id,
  name: table.name,
  schema: table.schema_json,
  partitionColumns: table.partitioning.columns,
  createdTime: Date.parse(table.created_at),
});

/** A pipeline's decoded rows as the files of its output table: one file per day and chunk. */
function writeRowFiles(storage: CommitDeps['storage'], columns: ColumnDefinition[], rows: DecodedRow[]) {
  const specs = columns.map((column) => ({ name: column.name, type: column.type, nullable: true }));
  return writeDailyFiles(storage, rows, {
    dayOf: (row) => row.dt,
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
export function pipelineOutput(deps: CommitDeps, table: DataSet) {
  return {
    async append(
      columns: ColumnDefinition[],
      rows: DecodedRow[],
      attempt: number,
      txn: { appId: string; version: number; after: number; readVersion: number },
    ) {
      const result = await appendToTable(deps, {
        tableId: table.data_set_id,
        metadata: tableMetadataOf(table),
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
      range: DayRange,
      attempt: number,
      txn: { appId: string; version: number; expected: number },
    ) {
      const files = await writeRowFiles(deps.storage, columns, rows);
      const result = await replacePartitions(deps, {
        tableId: table.data_set_id,
        replaces: (values) => typeof values.dt === 'string' && values.dt >= range.from && values.dt <= range.to,
        operation: 'WRITE',
        adds: files.adds,
        rows: rows.length,
        bytes: files.bytes,
        metadata: tableMetadataOf(table),
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

/** A pipeline's output table in the tenant's store, its commits recorded and checkpointed. */
async function outputTable(output: DataSet) {
  const table = await fixStorage(output);
  const writer = await tableAt(table);
  return pipelineOutput(
    {
      ...writer,
      hooks: {
        async onCompleted(entry, state) {
          await recordCommit(table, entry.version);
          await writer.afterCommit(entry, state);
        },
      },
    },
    table,
  );
}

export const appendRows: PipelineRunDeps['appendRows'] = async (output, columns, rows, attempt, txn) =>
  (await outputTable(output)).append(columns, rows, attempt, txn);

export const replaceRows: PipelineRunDeps['replaceRows'] = async (output, columns, rows, range, attempt, txn) =>
  (await outputTable(output)).replace(columns, rows, range, attempt, txn);

/**
 * One maintenance run of a data set's table: compaction of partitions with at least `minFiles`
 * small files (the table's `tributary.optimize.minFiles` when absent), vacuum, log clean-up.
 */
export async function maintainDataSet(
  dataSet: DataSet,
  options: { minFiles?: number },
  control: Pick<MaintenanceDeps, 'checkpoint' | 'beforeFirstCommit'> & { now?: () => Date } = {},
): Promise<MaintenanceReport | null> {
  if (!dataSet.storage_location || !dataSet.object_store_id) return null;
  const writer = await tableAt(dataSet);
  const reader = await tableReader(dataSet);
  const now = control.now ?? (() => new Date());
  return maintainTable(
    {
      commit: {
        ...writer,
        now,
        hooks: {
          async onCompleted(entry, state) {
            await recordCommit(dataSet, entry.version);
            await writer.afterCommit(entry, state);
          },
        },
      },
      reader,
      rewrite: (sources, targetSize, newPath) => rewriteFiles(writer.storage, sources, targetSize, newPath),
      now,
      defaultRetentionMs: config.dataRetentionMs(),
      ...(control.checkpoint ? { checkpoint: control.checkpoint } : {}),
      ...(control.beforeFirstCommit ? { beforeFirstCommit: control.beforeFirstCommit } : {}),
    },
    dataSet.data_set_id,
    options,
  );
}
