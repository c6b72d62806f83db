/**
 * A data set's Delta table as the use cases see it: its live files, the properties its metadata
 * sets, the progress pipelines recorded in it. The adapters read and write the table with the Delta
 * library (delta/) and hand the use cases these views; no use case reads a log.
 */

/** One live file of the table. */
export interface TableFile {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  /** Milliseconds. */
  modificationTime: number;
  /**
   * The rows a reader sees in it (another engine may have deleted some with a deletion vector);
   * counted when asked, from the file's statistics.
   */
  records(): number;
}

/** The table at one version, as any Delta reader opens it (its last checkpoint, then the commits after it). */
export interface TableSnapshot {
  /** -1 before the first commit. */
  version: number;
  files: TableFile[];
  /** What the table's metadata sets: Delta's table properties and Tributary's. */
  properties: Record<string, string>;
  /** The last source version each pipeline recorded with its rows (a Delta txn, by appId). */
  progress: Map<string, number>;
}

/**
 * A version one of Tributary's writers committed, with what maintenance asks of the table as it then
 * stands (shared/domain/datasets/maintenance-due.ts). The questions read every file of the table,
 * so they are answered only when asked.
 */
export interface CommittedVersion {
  version: number;
  /** The table writes a checkpoint at this version (every `delta.checkpointInterval` versions). */
  checkpoint: boolean;
  /** Partitions holding at least the table's `tributary.optimize.minFiles` files below its target size. */
  partitionsToCompact(): number;
  /** Milliseconds: when every row of the table's oldest day will have outlived its data retention; null: never. */
  oldestDayExpiresAt(): number | null;
}

/** Which days the table keeps as a commit finds it: its data retention's, or every day. */
export interface RetainedDays {
  keepsDay(day: string): boolean;
}
