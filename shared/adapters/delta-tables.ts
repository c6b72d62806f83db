/**
 * Writing data sets' Delta tables: commits with their checkpoints, envelopes read back for
 * pipelines and queries, pipeline rows appended as Parquet, and maintenance runs (compaction,
 * vacuum, log clean-up). Only the batch writer and the job runner load this module (it brings
 * apache-arrow and parquet-wasm); opening snapshots alone is in table-storage.ts.
 */
import type { DataSet } from '../domain/datasets/model.ts';
import { checkpointDue, writeCheckpoint } from '../domain/delta/checkpoint.ts';
import { appendToTable, type CommitDeps, type LogEntry } from '../domain/delta/commit.ts';
import { writeDailyFiles } from '../domain/delta/daily-files.ts';
import {
  type MaintenanceDeps,
  type MaintenanceReport,
  maintainTable,
  planCompaction,
} from '../domain/delta/maintenance.ts';
import { tableProperties } from '../domain/delta/properties.ts';
import type { LogReader, TableState } from '../domain/delta/snapshot.ts';
import type { ColumnDefinition } from '../domain/pipelines/definition.ts';
import type { DecodedRow } from '../domain/pipelines/run-pipeline.ts';
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
 * After a version is committed: its checkpoint when one is due, and a maintenance run asked for when
 * a partition has piled up small files. Never fails the commit: a missed checkpoint only makes
 * readers replay more commits until the next one.
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

/**
 * Appends decoded rows to a pipeline's output table: one file per day and chunk, exactly once per
 * run, recorded as the pipeline's txn (appId = the pipeline, version = the last source version read).
 */
export async function appendRows(
  output: DataSet,
  columns: ColumnDefinition[],
  rows: DecodedRow[],
  attempt: number,
  txn: { appId: string; version: number; after: number; readVersion: number },
) {
  const table = await fixStorage(output);
  const writer = await tableAt(table);
  const specs = columns.map((column) => ({ name: column.name, type: column.type, nullable: true }));
  const result = await appendToTable(
    {
      ...writer,
      hooks: {
        async onCompleted(entry, state) {
          await recordCommit(table, entry.version);
          await writer.afterCommit(entry, state);
        },
      },
    },
    {
      tableId: table.data_set_id,
      metadata: {
        tableId: table.data_set_id,
        name: table.name,
        schema: table.schema_json,
        partitionColumns: table.partitioning.columns,
        createdTime: Date.parse(table.created_at),
      },
      rows,
      txn,
      attempt,
      writeFiles: (pending) =>
        writeDailyFiles(writer.storage, pending, {
          dayOf: (row) => row.dt,
          encode: (chunk) =>
            writeParquet(
              specs,
              specs.map((_, c) => chunk.map((row) => row.cells[c] as CellValue)),
            ),
          maxRowsPerFile,
        }),
    },
  );
  return { version: result.version, written: result.written };
}

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
      ...(control.checkpoint ? { checkpoint: control.checkpoint } : {}),
      ...(control.beforeFirstCommit ? { beforeFirstCommit: control.beforeFirstCommit } : {}),
    },
    dataSet.data_set_id,
    options,
  );
}
