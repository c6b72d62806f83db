/**
 * Keeping a table fast to open and to scan: compaction (OPTIMIZE), vacuum and log clean-up, one
 * maintenance run per table (a job of type Optimize: asked for through the API, or scheduled when
 * a writer saw many small files).
 *
 *   compaction  per day partition with enough files smaller than `delta.targetFileSize`: those
 *               files, in the order they were written, streamed into new files of about the target
 *               size (measured on the output); one OPTIMIZE version per partition removes the sources and
 *               adds the new files (dataChange false), and commits only while every source is still
 *               live. Readers of older versions keep their files until the vacuum.
 *   vacuum      files whose tombstone is older than `delta.deletedFileRetentionDuration` are deleted,
 *               and so are files beside them that no version references and that are older than that
 *               (left by writers that stopped before their commit). Whoever wrote the table, a file
 *               a live add names (its data file or its deletion vector's) is never deleted, nor
 *               anything under a hidden directory (`_delta_log`, `_change_data`, …) or outside the table.
 *
 *   retention   with `tributary.dataRetention` (or the deployment's default), every day partition
 *               whose rows are all older than it is removed in one version (DELETE: removes with
 *               dataChange true, read by any Delta reader as a delete); the vacuum deletes its files
 *               once the deleted-file retention has passed. An append-only table is left alone, and
 *               the report says why.
 *
 * A run first checks that Tributary may write the table (features.ts: another writer may have turned
 * on a feature it does not implement; the protocol's vacuumProtocolCheck asks exactly this before a
 * vacuum), and compacts only tables whose features allow a rewrite.
 *   log         commits and checkpoints older than `delta.logRetentionDuration` are deleted when a
 *               later checkpoint, itself that old, covers them (protocol "Metadata Cleanup"), and
 *               temporary commits once their version is well behind.
 */
import { randomUUID } from 'node:crypto';
import { CommitNotAllowed } from '../errors.ts';
import { deletionVectorFile } from '../kernel/deletion-vectors.ts';
import { appendOnly, compactionSupport } from '../kernel/features.ts';
import {
  type AddFile,
  type FileStats,
  isNullPartitionValue,
  liveRecords,
  type PartitionValues,
  parseStats,
  partitionDirectory,
  type RemoveFile,
  versionOfLogFile,
} from '../kernel/log.ts';
import { type LogReader, openSnapshot, type TableState, tableObjectKey } from '../kernel/snapshot.ts';
import { tableProperties } from '../kernel/table-config.ts';
import { assertWritable } from '../kernel/writable.ts';
import { type CommitDeps, commitRearrangement, replacePartitions } from './transaction.ts';

/**
 * Streams the rows of `sources`, in order, into new files at `newPath()`, starting the next file
 * once one has reached `targetSize` bytes; answers each new file with the sources it holds.
 */
export type FileRewriter = (
  sources: AddFile[],
  targetSize: number,
  newPath: () => string,
) => Promise<{ path: string; size: number; rows: number; sources: AddFile[] }[]>;

export interface MaintenanceDeps {
  commit: CommitDeps;
  reader: LogReader;
  rewrite: FileRewriter;
  now: () => Date;
  /** Between partitions: throws to stop (a cancelled job) before anything more is committed. */
  checkpoint?: () => Promise<void>;
  /** Called once before the first commit (the job's point of no return). */
  beforeFirstCommit?: () => Promise<void>;
  /** The deployment's data retention (DATA_RETENTION_DAYS), for tables that set none; null: keep. */
  defaultRetentionMs?: number | null;
}

export interface MaintenanceReport {
  readVersion: number;
  /** Versions committed by the compaction (one per partition), and partitions given up on a conflict. */
  versions: number[];
  conflicts: number;
  filesRemoved: number;
  filesAdded: number;
  rowsRewritten: number;
  bytesRemoved: number;
  bytesAdded: number;
  filesVacuumed: number;
  logFilesRemoved: number;
  /** When the next run has something to do (a tombstone expiring); null when nothing waits. */
  nextDueAt: number | null;
  /** Why compaction was left out, when the table's features do not allow it. */
  compactionSkipped: string | null;
  /** The table's data retention (its property, else the deployment's default); null: rows are kept. */
  retentionMs: number | null;
  /** The oldest day the retention keeps (YYYY-MM-DD); every day partition before it is removed. */
  keptFrom: string | null;
  /** The version that removed the expired day partitions, and what it removed. */
  expiredVersion: number | null;
  partitionsExpired: number;
  filesExpired: number;
  rowsExpired: number;
  bytesExpired: number;
  /** Why expired partitions were left in the table (an append-only table, one not partitioned by day). */
  retentionSkipped: string | null;
}

const dayMs = 86_400_000;
const isDay = (value: string | null | undefined): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/**
 * The oldest day a retention keeps at `now` (YYYY-MM-DD, UTC): a day before it ended longer ago
 * than the retention, so every row of it (its dt is the UTC date it arrived) is older than that.
 */
export function firstDayKept(now: number, retentionMs: number): string {
  return new Date(now - retentionMs).toISOString().slice(0, 10);
}

/** When every row of `day` has outlived the retention: the day's end plus the retention. */
export function dayExpiresAt(day: string, retentionMs: number): number {
  return Date.parse(`${day}T00:00:00Z`) + dayMs + retentionMs;
}

/**
 * Whether the table's data retention still keeps a row of `day` at `now`: the rule staged envelopes
 * follow on their way into the table, so that no commit puts rows into a day maintenance removes.
 * Every day is kept without a retention, and in a table maintenance leaves whole (one not
 * partitioned by day, or append-only).
 */
export function retentionKeeps(
  state: Pick<TableState, 'protocol' | 'metadata'>,
  now: number,
  defaultRetentionMs: number | null,
): (day: string) => boolean {
  const retentionMs = tableProperties(state.metadata?.configuration ?? {}).dataRetentionMs ?? defaultRetentionMs;
  if (retentionMs === null || !state.metadata?.partitionColumns.includes('dt') || appendOnly(state)) return () => true;
  const keptFrom = firstDayKept(now, retentionMs);
  return (day) => !isDay(day) || day >= keptFrom;
}

/** The oldest day partition among `files` (by `dt`), null when none is a day. */
export function oldestDay(files: Iterable<AddFile>): string | null {
  let oldest: string | null = null;
  for (const file of files) {
    const day = file.partitionValues.dt;
    if (isDay(day) && (oldest === null || day < oldest)) oldest = day;
  }
  return oldest;
}

/** The day partitions (by `dt`) a retention removes at `now`: dates before the first day kept; anything else stays. */
export function expiredDays(now: number, retentionMs: number): (values: PartitionValues) => boolean {
  const keptFrom = firstDayKept(now, retentionMs);
  return (values) => isDay(values.dt) && values.dt < keptFrom;
}

export interface PartitionPlan {
  /** The partition's directory (where its compacted files go). */
  partition: string;
  partitionValues: PartitionValues;
  /** The partition's small files, oldest first. */
  files: AddFile[];
}

/** Files of one partition share this key (null and "" are both the null partition). */
const partitionKey = (values: PartitionValues) =>
  JSON.stringify(
    Object.entries(values)
      .map(([key, value]) => [key, isNullPartitionValue(value) ? null : value])
      .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1)),
  );

/** The partitions to compact: those with at least `minFiles` (and two) files under the target size. */
export function planCompaction(files: Iterable<AddFile>, targetFileSize: number, minFiles: number): PartitionPlan[] {
  const byPartition = new Map<string, AddFile[]>();
  for (const file of files) {
    // A file a clustering implementation laid out is for that implementation to rewrite (protocol "Clustered Table").
    if (file.size >= targetFileSize || file.clusteringProvider !== undefined) continue;
    const key = partitionKey(file.partitionValues);
    const small = byPartition.get(key);
    if (small) small.push(file);
    else byPartition.set(key, [file]);
  }
  return [...byPartition]
    .filter(([, small]) => small.length >= Math.max(2, minFiles))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, small]) => ({
      partition: partitionDirectory((small[0] as AddFile).partitionValues),
      partitionValues: (small[0] as AddFile).partitionValues,
      files: small.sort((a, b) => a.modificationTime - b.modificationTime || (a.path < b.path ? -1 : 1)),
    }));
}

/** The stats of a file holding all the rows of `sources`: counts add up; a min or max survives only where every source has one. */
export function mergeStats(sources: FileStats[]): FileStats {
  const merged: FileStats = { numRecords: 0, minValues: {}, maxValues: {}, nullCount: {} };
  const columns = (pick: (stats: FileStats) => Record<string, unknown>) =>
    sources.length === 0
      ? []
      : Object.keys(pick(sources[0] as FileStats)).filter((column) => sources.every((stats) => column in pick(stats)));
  for (const stats of sources) merged.numRecords += stats.numRecords;
  for (const column of columns((stats) => stats.nullCount))
    merged.nullCount[column] = sources.reduce((sum, stats) => sum + (stats.nullCount[column] as number), 0);
  // Strings (and ISO timestamps) compare as text, numbers as numbers: as the writer computed them.
  const extreme = (values: (string | number)[], lower: boolean) => {
    let best = values[0] as string | number;
    for (const value of values) if (lower ? value < best : value > best) best = value;
    return best;
  };
  for (const column of columns((stats) => stats.minValues))
    merged.minValues[column] = extreme(
      sources.map((stats) => stats.minValues[column] as string | number),
      true,
    );
  for (const column of columns((stats) => stats.maxValues))
    merged.maxValues[column] = extreme(
      sources.map((stats) => stats.maxValues[column] as string | number),
      false,
    );
  return merged;
}

async function compactPartition(
  deps: MaintenanceDeps,
  tableId: string,
  state: TableState,
  plan: PartitionPlan,
  targetFileSize: number,
  report: MaintenanceReport,
  begin: () => Promise<void>,
): Promise<void> {
  const now = () => deps.now().getTime();
  const written = await deps.rewrite(
    plan.files,
    targetFileSize,
    () => `${plan.partition}/part-${randomUUID()}.zstd.parquet`,
  );
  let rowsRewritten = 0;
  const adds: AddFile[] = written.map((file) => {
    // Rows a deletion vector marked are not rewritten: the count is what the new file holds, the
    // bounds stay valid (not tight), and null counts of such sources are no longer known.
    const withDeletions = file.sources.some((source) => source.deletionVector);
    const merged = mergeStats(file.sources.map((source) => parseStats(source.stats)));
    const stats = {
      ...merged,
      numRecords: file.rows,
      nullCount: withDeletions ? {} : merged.nullCount,
      ...(withDeletions ? { tightBounds: false } : {}),
    };
    rowsRewritten += file.rows;
    return {
      path: file.path,
      partitionValues: plan.partitionValues,
      size: file.size,
      modificationTime: now(),
      dataChange: false,
      stats: JSON.stringify(stats),
    };
  });
  // Each remove names the logical file as the log has it: with its deletion vector (else that file stays live).
  const removes: RemoveFile[] = plan.files.map((file) => ({
    path: file.path,
    deletionTimestamp: now(),
    dataChange: false,
    extendedFileMetadata: true,
    partitionValues: file.partitionValues,
    size: file.size,
    ...(file.deletionVector ? { deletionVector: file.deletionVector } : {}),
    ...(file.baseRowId === undefined ? {} : { baseRowId: file.baseRowId }),
    ...(file.defaultRowCommitVersion === undefined ? {} : { defaultRowCommitVersion: file.defaultRowCommitVersion }),
  }));
  const bytes = adds.reduce((sum, add) => sum + add.size, 0);
  await begin();
  const version = await commitRearrangement(deps.commit, {
    tableId,
    readVersion: state.version,
    removes,
    adds,
    bytes,
    operation: 'OPTIMIZE',
  });
  if (version === null) {
    report.conflicts++;
    return;
  }
  report.versions.push(version);
  report.filesRemoved += removes.length;
  report.filesAdded += adds.length;
  report.rowsRewritten += rowsRewritten;
  report.bytesRemoved += removes.reduce((sum, remove) => sum + remove.size, 0);
  report.bytesAdded += bytes;
}

/**
 * Removes the expired day partitions in one version (DELETE, dataChange true); the files stay for
 * the deleted-file retention, then the vacuum deletes them. A table whose features forbid removing
 * data (append-only) keeps them, and the report says why.
 */
async function expirePartitions(
  deps: MaintenanceDeps,
  tableId: string,
  expired: (values: PartitionValues) => boolean,
  report: MaintenanceReport,
  begin: () => Promise<void>,
): Promise<void> {
  try {
    await begin();
    const result = await replacePartitions(deps.commit, {
      tableId,
      replaces: expired,
      operation: 'DELETE',
      adds: [],
      rows: 0,
      bytes: 0,
      attempt: 1,
    });
    if (!result) return;
    report.expiredVersion = result.version;
    report.partitionsExpired = new Set(result.removed.map((file) => partitionKey(file.partitionValues))).size;
    report.filesExpired = result.removed.length;
    report.rowsExpired = result.removed.reduce((sum, file) => sum + liveRecords(file), 0);
    report.bytesExpired = result.removed.reduce((sum, file) => sum + file.size, 0);
  } catch (error) {
    if (!(error instanceof CommitNotAllowed)) throw error;
    report.retentionSkipped = error.message;
  }
}

/** A directory or file Delta keeps out of the data: `_delta_log`, `_change_data`, `.tmp`, … (and everything under them). */
const hidden = (key: string) => key.split('/').some((segment) => segment.startsWith('_') || segment.startsWith('.'));
const directoryOf = (key: string) => key.slice(0, Math.max(0, key.lastIndexOf('/')));

/**
 * Deletes files removed longer ago than the retention, and unreferenced old files beside them.
 * What a live add names, its data file and its deletion vector's file, is never deleted, whatever
 * tombstone also names it (a DELETE removes (path, no DV) and re-adds (path, DV)); nor what an
 * unexpired tombstone names (readers of older versions), nor a file outside the table.
 */
async function vacuum(deps: MaintenanceDeps, state: TableState, retentionMs: number): Promise<number> {
  const before = deps.now().getTime() - retentionMs;
  const objectKey = (path: string) => tableObjectKey(path, deps.reader.root);
  const filesOf = (file: AddFile | RemoveFile) =>
    [file.path, file.deletionVector ? deletionVectorFile(file.deletionVector) : null]
      .map((path) => (path === null ? null : objectKey(path)))
      .filter((key): key is string => key !== null);
  const keep = new Set<string>();
  for (const file of state.files.values()) for (const key of filesOf(file)) keep.add(key);
  const expired: string[] = [];
  for (const remove of state.tombstones.values()) {
    if (remove.deletionTimestamp < before) expired.push(...filesOf(remove));
    else for (const key of filesOf(remove)) keep.add(key);
  }
  const doomed = new Set(expired.filter((key) => !keep.has(key) && !hidden(key)));
  // Files no version references, directly in a directory an expired file was in (not the root,
  // which would mean listing the whole table), older than the retention.
  for (const directory of new Set(expired.map(directoryOf))) {
    if (directory === '' || hidden(directory)) continue;
    for (const object of await deps.reader.storage.list(`${directory}/`)) {
      const stray =
        directoryOf(object.key) === directory &&
        !hidden(object.key) &&
        !keep.has(object.key) &&
        object.lastModified < before;
      if (stray) doomed.add(object.key);
    }
  }
  if (doomed.size > 0) await deps.commit.storage.delete([...doomed]);
  return doomed.size;
}

/**
 * Deletes log files that no reader within the retention needs: commits and checkpoints before the
 * newest checkpoint that is older than the cut-off (keeping that checkpoint and its commit), and
 * temporary commits of versions before it.
 */
async function cleanLog(deps: MaintenanceDeps, state: TableState, retentionMs: number): Promise<number> {
  const cutoff = deps.now().getTime() - retentionMs;
  const old: { key: string; version: number; kind: 'commit' | 'checkpoint' }[] = [];
  // Oldest first: the listing stops at the first file inside the retention.
  for (const object of await deps.reader.storage.list('_delta_log/', { startAfter: '_delta_log/0', limit: 20_000 })) {
    const parsed = versionOfLogFile(object.key);
    if (!parsed) continue;
    if (object.lastModified > cutoff) break;
    old.push({ key: object.key, ...parsed });
  }
  const cutoffCommit = Math.max(-1, ...old.filter((file) => file.kind === 'commit').map((file) => file.version));
  const cutoffCheckpoint = Math.max(
    -1,
    ...old.filter((file) => file.kind === 'checkpoint' && file.version <= cutoffCommit).map((file) => file.version),
  );
  const doomed =
    cutoffCheckpoint > 0 ? old.filter((file) => file.version < cutoffCheckpoint).map((file) => file.key) : [];
  // A temporary commit matters only while its version may still be finalised: the latest few.
  for (const object of await deps.reader.storage.list('_delta_log/.tmp/', { limit: 20_000 })) {
    const version = Number(/\.tmp\/(\d{20})\.json\./.exec(object.key)?.[1] ?? Number.NaN);
    if (Number.isNaN(version) || version >= state.version - 10) break;
    doomed.push(object.key);
  }
  if (doomed.length > 0) await deps.commit.storage.delete(doomed);
  return doomed.length;
}

/**
 * One maintenance run of a table.
 * Input: the table; `minFiles` (fewer small files in a partition leave it alone). Output: what it did.
 *  1. Open the latest snapshot; refuse a table Tributary may not write (TableNotWritable).
 *  2. Remove the day partitions older than the data retention, in one version.
 *  3. Compact each other partition that needs it, one version each, when the table's features allow
 *     a rewrite; a partition whose files another commit removed meanwhile is left for the next run.
 *  4. Vacuum the files removed longer ago than the deleted-file retention.
 *  5. Clean up the log.
 *  6. Say when the next run has something to do: a tombstone expiring, the oldest day kept expiring.
 */
export async function maintainTable(
  deps: MaintenanceDeps,
  tableId: string,
  options: { minFiles?: number } = {},
): Promise<MaintenanceReport> {
  const { state } = await openSnapshot(deps.reader);
  const properties = tableProperties(state.metadata?.configuration ?? {});
  const now = deps.now().getTime();
  const retentionMs = properties.dataRetentionMs ?? deps.defaultRetentionMs ?? null;
  const report: MaintenanceReport = {
    readVersion: state.version,
    versions: [],
    conflicts: 0,
    filesRemoved: 0,
    filesAdded: 0,
    rowsRewritten: 0,
    bytesRemoved: 0,
    bytesAdded: 0,
    filesVacuumed: 0,
    logFilesRemoved: 0,
    nextDueAt: null,
    compactionSkipped: null,
    retentionMs,
    keptFrom: retentionMs === null ? null : firstDayKept(now, retentionMs),
    expiredVersion: null,
    partitionsExpired: 0,
    filesExpired: 0,
    rowsExpired: 0,
    bytesExpired: 0,
    retentionSkipped: null,
  };
  if (state.version < 0) return report;
  assertWritable(state);
  let begun = false;
  const begin = async () => {
    if (begun) return;
    begun = true;
    await deps.beforeFirstCommit?.();
  };

  let expired = (_: PartitionValues) => false;
  if (retentionMs !== null) {
    if (!state.metadata?.partitionColumns.includes('dt'))
      report.retentionSkipped = `The table is not partitioned by day (dt), so its rows cannot be removed a day at a time`;
    else if ([...state.files.values()].some((file) => expiredDays(now, retentionMs)(file.partitionValues))) {
      await deps.checkpoint?.();
      await expirePartitions(deps, tableId, expiredDays(now, retentionMs), report, begin);
      if (report.retentionSkipped === null) expired = expiredDays(now, retentionMs);
    }
  }

  const compaction = compactionSupport(state.protocol, state.metadata);
  if (!compaction.ok) report.compactionSkipped = compaction.message;
  const remaining = [...state.files.values()].filter((file) => !expired(file.partitionValues));
  const plans = compaction.ok
    ? planCompaction(remaining, properties.targetFileSize, options.minFiles ?? properties.optimizeMinFiles)
    : [];
  for (const plan of plans) {
    await deps.checkpoint?.();
    await compactPartition(deps, tableId, state, plan, properties.targetFileSize, report, begin);
  }
  report.filesVacuumed = await vacuum(deps, state, properties.deletedFileRetentionMs);
  report.logFilesRemoved = await cleanLog(deps, state, properties.logRetentionMs);
  const waiting = [...state.tombstones.values()]
    .map((remove) => remove.deletionTimestamp + properties.deletedFileRetentionMs)
    .filter((at) => at >= now);
  if (report.versions.length > 0 || report.expiredVersion !== null)
    waiting.push(deps.now().getTime() + properties.deletedFileRetentionMs);
  if (retentionMs !== null && report.retentionSkipped === null) {
    const oldest = oldestDay(remaining);
    if (oldest !== null) waiting.push(dayExpiresAt(oldest, retentionMs));
  }
  report.nextDueAt = waiting.length > 0 ? Math.min(...waiting) : null;
  return report;
}
