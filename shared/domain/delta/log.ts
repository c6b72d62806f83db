/**
 * Delta Lake transaction log actions (protocol: github.com/delta-io/delta/blob/master/PROTOCOL.md).
 * A commit is a JSON-lines file `_delta_log/<version, 20 digits>.json`; version 0 also carries the
 * protocol and the table metadata. Writers append new files (WRITE) and rearrange them (OPTIMIZE:
 * removes and adds with `dataChange: false` in one version); pipelines record their progress with
 * a `txn` (appId, version) in the same commit as their rows.
 *
 * Tributary's own commits say who made them in their `commitInfo` (`engineInfo: Tributary`), and
 * `txnId` is the run that wrote the version: a writer whose answer was lost recognises its own
 * commit, and the message ids a version holds are kept under its run (shared/domain/delta/commit.ts).
 */
import type { DeltaSchema } from '../datasets/model.ts';

export interface FileStats {
  numRecords: number;
  minValues: Record<string, string | number>;
  maxValues: Record<string, string | number>;
  nullCount: Record<string, number>;
}

export interface AddFile {
  /** Relative to the table root, e.g. dt=2026-11-21/part-<uuid>.zstd.parquet. */
  path: string;
  partitionValues: Record<string, string>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  /**
   * The file's statistics as the log carries them: JSON text (parseStats reads it), null when a
   * writer left them out. Kept as text so that opening a table of many files parses none of them,
   * and a checkpoint or commit passes them on unchanged.
   */
  stats: string | null;
}

/** A tombstone: the file left the table at `deletionTimestamp`; VACUUM deletes it after the retention. */
export interface RemoveFile {
  path: string;
  deletionTimestamp: number;
  dataChange: boolean;
  extendedFileMetadata: boolean;
  partitionValues: Record<string, string>;
  size: number;
}

export interface Txn {
  appId: string;
  version: number;
  lastUpdated: number | null;
}

export interface Protocol {
  minReaderVersion: number;
  minWriterVersion: number;
  /** Table features (reader version 3, writer version 7). */
  readerFeatures?: string[];
  writerFeatures?: string[];
}

export interface Metadata {
  id: string;
  name: string | null;
  description: string | null;
  format: { provider: string; options: Record<string, string> };
  schemaString: string;
  partitionColumns: string[];
  configuration: Record<string, string>;
  createdTime: number | null;
}

/** What a data set says about its table before version 0 exists. */
export interface TableMetadata {
  tableId: string;
  name: string;
  schema: DeltaSchema;
  partitionColumns: string[];
  createdTime: number;
}

export type Operation = 'WRITE' | 'OPTIMIZE' | 'SET TBLPROPERTIES';

export type Action =
  | { add: AddFile }
  | { remove: RemoveFile }
  | { txn: Txn }
  | { protocol: Protocol }
  | { metaData: Metadata }
  | { commitInfo: Record<string, unknown> };

export const protocol: Protocol = { minReaderVersion: 1, minWriterVersion: 2 };

const pad = (version: number) => String(version).padStart(20, '0');

export function logFileName(version: number): string {
  return `_delta_log/${pad(version)}.json`;
}

export function checkpointFileName(version: number): string {
  return `_delta_log/${pad(version)}.checkpoint.parquet`;
}

export const lastCheckpointFile = '_delta_log/_last_checkpoint';

/** The version of a commit or classic checkpoint file name; null for anything else in `_delta_log/`. */
export function versionOfLogFile(key: string): { version: number; kind: 'commit' | 'checkpoint' } | null {
  const match = /(?:^|\/)(\d{20})\.(json|checkpoint\.parquet)$/.exec(key);
  if (!match) return null;
  return { version: Number(match[1]), kind: match[2] === 'json' ? 'commit' : 'checkpoint' };
}

export function metadataAction(table: TableMetadata): Metadata {
  return {
    id: table.tableId,
    name: table.name,
    description: null,
    format: { provider: 'parquet', options: {} },
    schemaString: JSON.stringify(table.schema),
    partitionColumns: table.partitionColumns,
    configuration: {},
    createdTime: table.createdTime,
  };
}

export interface CommitInput {
  version: number;
  /** Written with version 0 (protocol and metadata), or when the metadata changes. */
  metadata: Metadata | null;
  adds: AddFile[];
  removes: RemoveFile[];
  txn: Txn | null;
  timestamp: number;
  operation: Operation;
  /** The run that writes the version: its commitInfo's txnId. */
  runId: string;
}

/** What Tributary reads back from a commit's commitInfo: when, by which engine, which run. */
export interface CommitSummary {
  version: number;
  /** Milliseconds (the commitInfo's timestamp); null when the commit has none. */
  timestamp: number | null;
  engine: string | null;
  txnId: string | null;
}

export function commitSummary(version: number, actions: Action[]): CommitSummary {
  const info = actions.find(
    (action): action is { commitInfo: Record<string, unknown> } => 'commitInfo' in action,
  )?.commitInfo;
  const timestamp = Number(info?.inCommitTimestamp ?? info?.timestamp);
  return {
    version,
    timestamp: Number.isFinite(timestamp) ? timestamp : null,
    engine: typeof info?.engineInfo === 'string' ? info.engineInfo : null,
    txnId: typeof info?.txnId === 'string' ? info.txnId : null,
  };
}

export function commitContent(input: CommitInput): string {
  const commitInfo: Record<string, unknown> = {
    timestamp: input.timestamp,
    operation: input.operation,
    operationParameters:
      input.operation === 'WRITE'
        ? {
            mode: 'Append',
            partitionBy: JSON.stringify(input.metadata?.partitionColumns ?? ['dt']),
          }
        : input.operation === 'OPTIMIZE'
          ? { predicate: '[]', targetSize: null }
          : { properties: JSON.stringify(input.metadata?.configuration ?? {}) },
    isBlindAppend: input.operation === 'WRITE',
    engineInfo: 'Tributary',
    txnId: input.runId,
  };
  if (input.operation === 'OPTIMIZE') {
    commitInfo.operationMetrics = {
      numRemovedFiles: String(input.removes.length),
      numAddedFiles: String(input.adds.length),
      numRemovedBytes: String(input.removes.reduce((sum, remove) => sum + remove.size, 0)),
      numAddedBytes: String(input.adds.reduce((sum, add) => sum + add.size, 0)),
    };
  }
  const actions: Action[] = [{ commitInfo }];
  if (input.version === 0) actions.push({ protocol });
  if (input.metadata) actions.push({ metaData: input.metadata });
  if (input.txn) actions.push({ txn: input.txn });
  for (const remove of input.removes) actions.push({ remove });
  for (const add of input.adds) actions.push({ add });
  return `${actions.map((action) => JSON.stringify(action)).join('\n')}\n`;
}

const emptyStats = (): FileStats => ({ numRecords: 0, minValues: {}, maxValues: {}, nullCount: {} });

/** A file's statistics from the JSON text of its add; a file without them counts no records. */
export function parseStats(stats: unknown): FileStats {
  if (typeof stats !== 'string' || stats === '') return emptyStats();
  const parsed = JSON.parse(stats) as Partial<FileStats>;
  return {
    numRecords: Number(parsed.numRecords ?? 0),
    minValues: parsed.minValues ?? {},
    maxValues: parsed.maxValues ?? {},
    nullCount: parsed.nullCount ?? {},
  };
}

const num = (value: unknown): number => (typeof value === 'bigint' ? Number(value) : Number(value ?? 0));
const strings = (value: unknown): Record<string, string> =>
  value instanceof Map ? Object.fromEntries(value) : ((value as Record<string, string> | null | undefined) ?? {});

/**
 * Normalises one action as found in a JSON commit or a checkpoint row (where longs may arrive as
 * bigint and maps as objects or Maps); null for actions Tributary does not keep (cdc, …).
 */
export function normaliseAction(raw: Record<string, unknown>): Action | null {
  if (raw.commitInfo && typeof raw.commitInfo === 'object')
    return { commitInfo: raw.commitInfo as Record<string, unknown> };
  if (raw.add) {
    const add = raw.add as Record<string, unknown>;
    return {
      add: {
        path: String(add.path),
        partitionValues: strings(add.partitionValues),
        size: num(add.size),
        modificationTime: num(add.modificationTime),
        dataChange: Boolean(add.dataChange),
        stats: typeof add.stats === 'string' && add.stats !== '' ? add.stats : null,
      },
    };
  }
  if (raw.remove) {
    const remove = raw.remove as Record<string, unknown>;
    return {
      remove: {
        path: String(remove.path),
        deletionTimestamp: num(remove.deletionTimestamp),
        dataChange: Boolean(remove.dataChange),
        extendedFileMetadata: Boolean(remove.extendedFileMetadata),
        partitionValues: strings(remove.partitionValues),
        size: num(remove.size),
      },
    };
  }
  if (raw.txn) {
    const txn = raw.txn as Record<string, unknown>;
    return {
      txn: {
        appId: String(txn.appId),
        version: num(txn.version),
        lastUpdated: txn.lastUpdated === null || txn.lastUpdated === undefined ? null : num(txn.lastUpdated),
      },
    };
  }
  if (raw.protocol) {
    const value = raw.protocol as Record<string, unknown>;
    return {
      protocol: {
        minReaderVersion: num(value.minReaderVersion),
        minWriterVersion: num(value.minWriterVersion),
        ...(Array.isArray(value.readerFeatures) ? { readerFeatures: value.readerFeatures.map(String) } : {}),
        ...(Array.isArray(value.writerFeatures) ? { writerFeatures: value.writerFeatures.map(String) } : {}),
      },
    };
  }
  if (raw.metaData) {
    const value = raw.metaData as Record<string, unknown>;
    const format = (value.format as Record<string, unknown> | undefined) ?? {};
    return {
      metaData: {
        id: String(value.id),
        name: (value.name as string | null | undefined) ?? null,
        description: (value.description as string | null | undefined) ?? null,
        format: { provider: String(format.provider ?? 'parquet'), options: strings(format.options) },
        schemaString: String(value.schemaString),
        partitionColumns: [...((value.partitionColumns as string[] | null | undefined) ?? [])],
        configuration: strings(value.configuration),
        createdTime: value.createdTime === null || value.createdTime === undefined ? null : num(value.createdTime),
      },
    };
  }
  return null;
}

export function parseCommit(text: string): Action[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => normaliseAction(JSON.parse(line) as Record<string, unknown>))
    .filter((action): action is Action => action !== null);
}
