/**
 * OPTIMIZE (compaction): a partition's small files, in the order they were written, streamed into
 * new files of about the target size (measured on the output); one version per partition removes
 * the sources and adds the new files (dataChange false), and commits only while every source is
 * still live. Readers of older versions keep their files until the vacuum.
 */
import { randomUUID } from 'node:crypto';
import {
  type AddFile,
  type FileStats,
  isNullPartitionValue,
  type Operation,
  type PartitionValues,
  parseStats,
  partitionDirectory,
  type RemoveFile,
  removeOf,
} from '../kernel/log.ts';
import { type Commit, type CommitDeps, commitNext } from './transaction.ts';

/**
 * Streams the rows of `sources`, in order, into new files at `newPath()`, starting the next file
 * once one has reached `targetSize` bytes; answers each new file with the sources it holds.
 */
export type FileRewriter = (
  sources: AddFile[],
  targetSize: number,
  newPath: () => string,
) => Promise<{ path: string; size: number; rows: number; sources: AddFile[] }[]>;

export interface PartitionPlan {
  /** The partition's directory (where its compacted files go). */
  partition: string;
  partitionValues: PartitionValues;
  /** The partition's small files, oldest first. */
  files: AddFile[];
}

/** Files of one partition share this key (null and "" are both the null partition). */
export const partitionKey = (values: PartitionValues) =>
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

export interface CompactionDeps {
  commit: CommitDeps;
  rewrite: FileRewriter;
  now: () => Date;
}

/** What compacting one partition committed. */
export interface Compacted {
  version: number;
  filesRemoved: number;
  filesAdded: number;
  rowsRewritten: number;
  bytesRemoved: number;
  bytesAdded: number;
}

/** The add of a file holding the rows of `sources`, its statistics merged from theirs. */
function compactedAdd(
  file: { path: string; size: number; rows: number; sources: AddFile[] },
  partitionValues: PartitionValues,
  now: number,
): AddFile {
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
  return {
    path: file.path,
    partitionValues,
    size: file.size,
    modificationTime: now,
    dataChange: false,
    stats: JSON.stringify(stats),
  };
}

/**
 * Compacts one planned partition on top of the version the plan was made from: its files
 * rewritten, then committed (`begin` first: the caller's point of no return). Null when a commit
 * after the plan removed one of its files (the partition is left for the next run).
 */
export async function compactPartition(
  deps: CompactionDeps,
  tableId: string,
  readVersion: number,
  plan: PartitionPlan,
  targetFileSize: number,
  begin: () => Promise<void>,
): Promise<Compacted | null> {
  const now = () => deps.now().getTime();
  const written = await deps.rewrite(
    plan.files,
    targetFileSize,
    () => `${plan.partition}/part-${randomUUID()}.zstd.parquet`,
  );
  const adds = written.map((file) => compactedAdd(file, plan.partitionValues, now()));
  const removes = plan.files.map((file) => removeOf(file, now(), false));
  const bytes = adds.reduce((sum, add) => sum + add.size, 0);
  await begin();
  const version = await commitRearrangement(deps.commit, {
    tableId,
    readVersion,
    removes,
    adds,
    bytes,
    operation: 'OPTIMIZE',
  });
  if (version === null) return null;
  return {
    version,
    filesRemoved: removes.length,
    filesAdded: adds.length,
    rowsRewritten: written.reduce((sum, file) => sum + file.rows, 0),
    bytesRemoved: removes.reduce((sum, remove) => sum + remove.size, 0),
    bytesAdded: bytes,
  };
}

export interface RearrangeRequest {
  tableId: string;
  /** The version the plan was made from: its files are live there. */
  readVersion: number;
  removes: RemoveFile[];
  adds: AddFile[];
  bytes: number;
  operation: Extract<Operation, 'OPTIMIZE'>;
}

/**
 * Commit an OPTIMIZE: the removes (dataChange false) and the adds that hold the same rows, in one
 * version. It commits only while every file it removes is still live: when any commit after the
 * plan (Tributary's or another engine's, an OPTIMIZE or a DELETE) removed one of them, it gives up
 * (its new files are deleted) and answers null. Appends in between do not matter: they only add files.
 */
export async function commitRearrangement(deps: CommitDeps, request: RearrangeRequest): Promise<number | null> {
  const removing = new Set(request.removes.map((remove) => remove.path));
  const commit: Commit = {
    operation: request.operation,
    metadata: null,
    adds: request.adds,
    removes: request.removes,
    txn: null,
    rows: 0,
    bytes: request.bytes,
  };
  const result = await commitNext(deps, {
    tableId: request.tableId,
    attempt: 1,
    readVersion: request.readVersion,
    discard: async () => deps.storage.delete(request.adds.map((add) => add.path)),
    build: async () => commit,
    async judge(winner) {
      const conflict = winner.actions.some((action) => 'remove' in action && removing.has(action.remove.path));
      return conflict ? { action: 'abandon' } : { action: 'retry' };
    },
  });
  if (!result) {
    await deps.storage.delete(request.adds.map((add) => add.path));
    return null;
  }
  return result.version;
}
