/**
 * Delta Lake transaction log actions (protocol: github.com/delta-io/delta/blob/master/PROTOCOL.md).
 * A commit is a JSON-lines file `_delta_log/<version, 20 digits>.json`; version 0 also carries the
 * protocol and the table metadata. Writers append new files (WRITE) and rearrange them (OPTIMIZE:
 * removes and adds with `dataChange: false` in one version); pipelines record their progress with
 * a `txn` (appId, version) in the same commit as their rows.
 *
 * A writer says who made a commit in its `commitInfo` (`engineInfo`, the application's name), and
 * `txnId` is the run that wrote the version: a writer whose answer was lost recognises its own
 * commit. An application may add fields of its own to the commitInfo (operations/transaction.ts),
 * and reads them back from the commit's summary.
 */

import * as z from 'zod';
import { jsonObject, parseJson, readJson } from './json.ts';

export interface FileStats {
  numRecords: number;
  minValues: Record<string, string | number>;
  maxValues: Record<string, string | number>;
  nullCount: Record<string, number>;
}

/**
 * A file's partition values by column: a string as the log serialises it, or null (the protocol's
 * null, also written as an empty string; the file's directory then says `__HIVE_DEFAULT_PARTITION__`).
 */
export type PartitionValues = Record<string, string | null>;

/**
 * Rows of a data file that no longer belong to the table (protocol "Deletion Vectors"): a set of row
 * indexes stored inline in the log (`i`, Z85) or in a file of the table (`u`: a UUID relative to the
 * table root, `p`: an absolute path). deletion-vectors.ts reads it.
 */
export interface DeletionVectorDescriptor {
  storageType: string;
  pathOrInlineDv: string;
  /** Where the DV starts in its file; absent for inline DVs. */
  offset: number | null;
  sizeInBytes: number;
  cardinality: number;
}

export interface AddFile {
  /**
   * The data file relative to the table root (e.g. dt=2026-11-21/part-<uuid>.zstd.parquet), or an
   * absolute URI for a file elsewhere. Decoded: the log holds paths as URIs (`%20` for a space),
   * this is the object's own name; commits and checkpoints encode it again.
   */
  path: string;
  partitionValues: PartitionValues;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  /**
   * The file's statistics as the log carries them: JSON text (parseStats reads it), null when a
   * writer left them out. Kept as text so that opening a table of many files parses none of them,
   * and a checkpoint or commit passes them on unchanged.
   */
  stats: string | null;
  /** Set by other writers (Spark's insertion times, …); kept as they are. */
  tags?: Record<string, string | null>;
  /** Rows of the file deleted since it was added; they are not part of the table. */
  deletionVector?: DeletionVectorDescriptor;
  /** Row tracking (protocol "Row Tracking"): the first row's id, and the version that added the file. */
  baseRowId?: number;
  defaultRowCommitVersion?: number;
  clusteringProvider?: string;
}

/** A tombstone: the file left the table at `deletionTimestamp`; VACUUM deletes it after the retention. */
export interface RemoveFile {
  path: string;
  deletionTimestamp: number;
  dataChange: boolean;
  extendedFileMetadata: boolean;
  partitionValues: PartitionValues;
  size: number;
  /** The logical file removed is (path, this DV): a remove without it leaves the same path with a DV live. */
  deletionVector?: DeletionVectorDescriptor;
  baseRowId?: number;
  defaultRowCommitVersion?: number;
}

export interface Txn {
  appId: string;
  version: number;
  lastUpdated: number | null;
}

export interface Protocol {
  minReaderVersion: number;
  minWriterVersion: number;
  /** Present from reader version 3 (features.ts says which Tributary implements). */
  readerFeatures?: string[];
  /** Present from writer version 7. */
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
  /** Fields this version of the protocol does not name, written back as they came (another writer's). */
  otherFields?: Record<string, unknown>;
}

/** Configuration of a named metadata domain (protocol "Domain Metadata"); `removed` is a tombstone. */
export interface DomainMetadata {
  domain: string;
  configuration: string;
  removed: boolean;
}

/** Only in V2 checkpoints: the checkpoint's version, and a sidecar file holding some of its file actions. */
export interface CheckpointMetadata {
  version: number;
  tags: Record<string, string | null> | null;
}

export interface Sidecar {
  /** Decoded, relative to `_delta_log/_sidecars/` (or an absolute URI). */
  path: string;
  sizeInBytes: number;
  modificationTime: number;
}

/** The primitive column types the library writes (protocol "Primitive Types"). */
export type PrimitiveType = 'string' | 'long' | 'double' | 'boolean' | 'timestamp';

/** A table's schema as the library writes it into metaData.schemaString: a struct of primitive columns. */
export interface TableSchema {
  type: 'struct';
  fields: { name: string; type: PrimitiveType; nullable: boolean; metadata: Record<string, never> }[];
}

/** What the writer says about its table before version 0 exists. */
export interface TableMetadata {
  tableId: string;
  name: string;
  schema: TableSchema;
  partitionColumns: string[];
  createdTime: number;
}

/**
 * What a commit does, as its commitInfo names it: WRITE appends (or, with removes, overwrites the
 * partitions it removes files from: a pipeline's ranged re-run), OPTIMIZE rearranges, DELETE removes
 * whole files (retention), SET TBLPROPERTIES changes the metadata.
 */
/** The operations a commit names (commitInfo.operation). */
export const operations = ['WRITE', 'OPTIMIZE', 'DELETE', 'SET TBLPROPERTIES'] as const;
export type Operation = (typeof operations)[number];

export type Action =
  | { add: AddFile }
  | { remove: RemoveFile }
  | { txn: Txn }
  | { protocol: Protocol }
  | { metaData: Metadata }
  | { domainMetadata: DomainMetadata }
  | { commitInfo: Record<string, unknown> }
  | { checkpointMetadata: CheckpointMetadata }
  | { sidecar: Sidecar };

export const protocol: Protocol = { minReaderVersion: 1, minWriterVersion: 2 };

const pad = (version: number) => String(version).padStart(20, '0');

export function logFileName(version: number): string {
  return `_delta_log/${pad(version)}.json`;
}

export function checkpointFileName(version: number): string {
  return `_delta_log/${pad(version)}.checkpoint.parquet`;
}

export const lastCheckpointFile = '_delta_log/_last_checkpoint';
export const sidecarDirectory = '_delta_log/_sidecars/';

/** The version of a commit or classic checkpoint file name; null for anything else in `_delta_log/`. */
export function versionOfLogFile(key: string): { version: number; kind: 'commit' | 'checkpoint' } | null {
  const match = /(?:^|\/)(\d{20})\.(json|checkpoint\.parquet)$/.exec(key);
  if (!match) return null;
  return { version: Number(match[1]), kind: match[2] === 'json' ? 'commit' : 'checkpoint' };
}

/**
 * A checkpoint file directly in `_delta_log/`, in any of the protocol's three namings: classic
 * `<v>.checkpoint.parquet`, multi-part `<v>.checkpoint.<part>.<parts>.parquet` (part of a set that
 * counts only when whole), UUID-named V2 `<v>.checkpoint.<uuid>.json|parquet`. Null otherwise (sidecars
 * under `_sidecars/` included).
 */
export interface CheckpointFile {
  key: string;
  version: number;
  naming: 'classic' | 'multi-part' | 'uuid';
  format: 'parquet' | 'json';
  part: number;
  parts: number;
}

export function checkpointFileOf(key: string): CheckpointFile | null {
  const match = /(?:^|\/)_delta_log\/(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10})|\.([^./]+))?\.(parquet|json)$/.exec(
    key,
  );
  if (!match) return null;
  const [, version, part, parts, unique, format] = match;
  if (part !== undefined)
    return format === 'parquet'
      ? { key, version: Number(version), naming: 'multi-part', format, part: Number(part), parts: Number(parts) }
      : null;
  if (unique !== undefined)
    return { key, version: Number(version), naming: 'uuid', format: format as 'parquet' | 'json', part: 1, parts: 1 };
  return format === 'parquet' ? { key, version: Number(version), naming: 'classic', format, part: 1, parts: 1 } : null;
}

/** The multi-part checkpoint's file names, parts 1 to `parts`. */
export function checkpointPartNames(version: number, parts: number): string[] {
  const ten = (n: number) => String(n).padStart(10, '0');
  return Array.from(
    { length: parts },
    (_, i) => `_delta_log/${pad(version)}.checkpoint.${ten(i + 1)}.${ten(parts)}.parquet`,
  );
}

/**
 * A path as the log holds it (a URI, RFC 2396) to the object's name: `%20` is a space, `%2525` the
 * `%25` of a Hive-escaped directory. A path that is not valid percent-encoding (a writer that did
 * not encode a `%`) is taken as it is.
 */
export function decodeLogPath(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The object's name as a URI path for the log: what decodeLogPath reads back. */
export function encodeLogPath(path: string): string {
  return encodeURIComponent(path).replace(/%(2F|3A|40|24|26|2B|2C|3B|3D)/g, (escaped) => decodeURIComponent(escaped));
}

/** An absolute URI (`s3://…`, `file:/…`) rather than a path relative to the table root. */
export function isAbsolutePath(path: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path);
}

/** Null partition values as the log may write them (null, or the empty string). */
export function isNullPartitionValue(value: string | null | undefined): boolean {
  return value === null || value === undefined || value === '';
}

/** Hive's escaping of a partition directory name (as Spark writes it): these characters and control characters become %XX. */
const escapedInDirectory = new Set('"#%\'*/:=?\\{[]^\x7f');

const escapePathPart = (part: string) =>
  [...part]
    .map((char) =>
      escapedInDirectory.has(char) || char.charCodeAt(0) < 0x20
        ? `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
        : char,
    )
    .join('');

/**
 * The directory a writer puts a partition's files in: `dt=2026-11-21`, `k=__HIVE_DEFAULT_PARTITION__`
 * for a null value, special characters Hive-escaped (`x=A%2FA` for `A/A`). Only a convention: the
 * log's partition values are what count.
 */
export function partitionDirectory(values: PartitionValues): string {
  return Object.entries(values)
    .map(
      ([key, value]) =>
        `${escapePathPart(key)}=${isNullPartitionValue(value) ? '__HIVE_DEFAULT_PARTITION__' : escapePathPart(value as string)}`,
    )
    .join('/');
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

/** A live file's remove, naming the logical file as the log has it: with its deletion vector (else that file stays live). */
export function removeOf(file: AddFile, deletionTimestamp: number, dataChange: boolean): RemoveFile {
  return {
    path: file.path,
    deletionTimestamp,
    dataChange,
    extendedFileMetadata: true,
    partitionValues: file.partitionValues,
    size: file.size,
    ...(file.deletionVector ? { deletionVector: file.deletionVector } : {}),
    ...(file.baseRowId === undefined ? {} : { baseRowId: file.baseRowId }),
    ...(file.defaultRowCommitVersion === undefined ? {} : { defaultRowCommitVersion: file.defaultRowCommitVersion }),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The table's metadata with the nullable columns of `schema` it lacks (by name, case-insensitively)
 * added at the end of its schema, everything else as it was; null when it lacks none, or its schema
 * is not one to add to. Adding a nullable column at the end is a metadata change any Delta writer
 * may make without a new protocol (no column mapping): files written before have no such column,
 * and readers see null for their rows.
 */
export function withAddedColumns(metadata: Metadata | null, schema: TableSchema): Metadata | null {
  if (!metadata) return null;
  const table = readJson(metadata.schemaString, jsonObject);
  if (table?.type !== 'struct' || !Array.isArray(table.fields)) return null;
  const names = new Set(
    table.fields.map((field: unknown) =>
      isRecord(field) && typeof field.name === 'string' ? field.name.toLowerCase() : '',
    ),
  );
  const added = schema.fields.filter((field) => field.nullable && !names.has(field.name.toLowerCase()));
  if (added.length === 0) return null;
  return { ...metadata, schemaString: JSON.stringify({ ...table, fields: [...table.fields, ...added] }) };
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
  /** Version 0's protocol; the library's own (reader 1, writer 2) when absent. */
  protocol?: Protocol;
  /** Fields added to the commitInfo, e.g. the inCommitTimestamp a table with in-commit timestamps needs. */
  commitInfo?: Record<string, unknown>;
  /** Domains this commit sets, e.g. the row-id high-water mark of a table with row tracking. */
  domainMetadata?: DomainMetadata[];
  /** The run that writes the version: its commitInfo's txnId. */
  runId: string;
  /** The application writing the version: its commitInfo's engineInfo. */
  engine: string;
}

/** What a commit says of itself in its commitInfo: when, by which engine, which run, and the rest as written. */
export interface CommitSummary {
  version: number;
  /** Milliseconds (the commit's in-commit timestamp, else its commitInfo's timestamp); null when it has none. */
  timestamp: number | null;
  engine: string | null;
  txnId: string | null;
  /** The commitInfo as the commit holds it (empty when it has none): fields an application added are read here. */
  info: Record<string, unknown>;
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
    info: info ?? {},
  };
}

/** An action as a line of a commit: paths encoded as URIs, metadata with the fields it came with. */
export function serialiseAction(action: Action): string {
  if ('add' in action) return JSON.stringify({ add: { ...action.add, path: encodeLogPath(action.add.path) } });
  if ('remove' in action)
    return JSON.stringify({ remove: { ...action.remove, path: encodeLogPath(action.remove.path) } });
  if ('metaData' in action) {
    const { otherFields, ...known } = action.metaData;
    return JSON.stringify({ metaData: { ...otherFields, ...known } });
  }
  return JSON.stringify(action);
}

/**
 * The partitions a commit replaces or deletes, as the predicate Delta's history shows for it
 * (`["dt IN ('2026-01-01', '2026-01-02')"]`): informative only, no reader evaluates it.
 */
function partitionPredicate(files: Pick<RemoveFile, 'partitionValues'>[]): string {
  const byColumn = new Map<string, Set<string>>();
  for (const file of files)
    for (const [column, value] of Object.entries(file.partitionValues)) {
      const values = byColumn.get(column) ?? new Set<string>();
      values.add(isNullPartitionValue(value) ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`);
      byColumn.set(column, values);
    }
  return JSON.stringify([...byColumn].map(([column, values]) => `${column} IN (${[...values].sort().join(', ')})`));
}

export function commitContent(input: CommitInput): string {
  const removesData = input.removes.some((remove) => remove.dataChange);
  const commitInfo: Record<string, unknown> = {
    // In-commit timestamps must come first in the commitInfo's own fields too, for readers that stream it.
    ...(input.commitInfo?.inCommitTimestamp === undefined
      ? {}
      : { inCommitTimestamp: input.commitInfo.inCommitTimestamp }),
    timestamp: input.timestamp,
    operation: input.operation,
    operationParameters:
      input.operation === 'WRITE'
        ? {
            mode: removesData ? 'Overwrite' : 'Append',
            partitionBy: JSON.stringify(input.metadata?.partitionColumns ?? ['dt']),
            ...(removesData ? { predicate: partitionPredicate([...input.removes, ...input.adds]) } : {}),
          }
        : input.operation === 'OPTIMIZE'
          ? { predicate: '[]', targetSize: null }
          : input.operation === 'DELETE'
            ? { predicate: partitionPredicate(input.removes) }
            : { properties: JSON.stringify(input.metadata?.configuration ?? {}) },
    isBlindAppend: input.operation === 'WRITE' && !removesData,
    engineInfo: input.engine,
    txnId: input.runId,
    ...input.commitInfo,
  };
  if (input.operation === 'OPTIMIZE' || input.removes.length > 0) {
    commitInfo.operationMetrics = {
      numRemovedFiles: String(input.removes.length),
      numAddedFiles: String(input.adds.length),
      numRemovedBytes: String(input.removes.reduce((sum, remove) => sum + remove.size, 0)),
      numAddedBytes: String(input.adds.reduce((sum, add) => sum + add.size, 0)),
    };
  }
  const actions: Action[] = [{ commitInfo }];
  if (input.version === 0) actions.push({ protocol: input.protocol ?? protocol });
  if (input.metadata) actions.push({ metaData: input.metadata });
  for (const domainMetadata of input.domainMetadata ?? []) actions.push({ domainMetadata });
  if (input.txn) actions.push({ txn: input.txn });
  for (const remove of input.removes) actions.push({ remove });
  for (const add of input.adds) actions.push({ add });
  return `${actions.map(serialiseAction).join('\n')}\n`;
}

const emptyStats = (): FileStats => ({ numRecords: 0, minValues: {}, maxValues: {}, nullCount: {} });

/** The rows a live file holds: its record count less the rows its deletion vector removed. */
export function liveRecords(file: Pick<AddFile, 'stats' | 'deletionVector'>): number {
  return parseStats(file.stats).numRecords - (file.deletionVector?.cardinality ?? 0);
}

/** A file's statistics as its add's JSON holds them: each part read only when it has the expected shape. */
const statsJson = z.object({
  numRecords: z.unknown().optional(),
  minValues: z.unknown().optional(),
  maxValues: z.unknown().optional(),
  nullCount: z.unknown().optional(),
});

/** Column bounds a reader can compare: text (strings, dates, times) and numbers; nested or other values are left out. */
function columnValues<T extends string | number>(
  value: unknown,
  keeps: (entry: unknown) => entry is T,
): Record<string, T> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, T] => keeps(entry[1])));
}
/**
 * A min or max as JSON reads it: text, or a number that JSON.parse read exactly. A long past 2^53 (a snowflake id) is
 * read rounded, and a bound rounded up (a min) or down (a max) would let another engine skip a file that holds the
 * value it looks for: such a bound is left out, which only costs skipping.
 */
const isBound = (value: unknown): value is string | number =>
  typeof value === 'string' ||
  (typeof value === 'number' && !(Number.isInteger(value) && !Number.isSafeInteger(value)));
const isCount = (value: unknown): value is number => typeof value === 'number';

/** A file's statistics from the JSON text of its add; a file without them counts no records. */
export function parseStats(stats: unknown): FileStats {
  if (typeof stats !== 'string' || stats === '') return emptyStats();
  const parsed = parseJson(stats, statsJson, "A file's statistics");
  return {
    numRecords: Number(parsed.numRecords ?? 0),
    minValues: columnValues(parsed.minValues, isBound),
    maxValues: columnValues(parsed.maxValues, isBound),
    nullCount: columnValues(parsed.nullCount, isCount),
  };
}

/** Statistics present as a number of records (a writer may leave them out: then they are unknown, not 0). */
export function hasRecordCount(stats: string | null): boolean {
  if (stats === null) return false;
  const { numRecords } = parseJson(stats, statsJson, "A file's statistics");
  return numRecords !== undefined && numRecords !== null;
}

const num = (value: unknown): number => (typeof value === 'bigint' ? Number(value) : Number(value ?? 0));
const optionalNumber = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : num(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);

/** A map as JSON (an object) or a checkpoint (an object, a Map, or key/value entries) has it. */
function mapOf(value: unknown): Record<string, string | null> {
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, entry]) => [String(key), text(entry)]));
  if (Array.isArray(value))
    return Object.fromEntries(
      value.filter(isObject).map((entry) => [String(entry.key), text(entry.value)] as [string, string | null]),
    );
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, text(entry)]));
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** Configuration maps hold strings: a null value reads as absent. */
function stringMap(value: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(mapOf(value)).filter((entry): entry is [string, string] => entry[1] !== null),
  );
}

/** A checkpoint's typed value as the JSON statistics hold it: longs as numbers, dates and times as text. */
function jsonValue(value: unknown): unknown {
  // A long past 2^53 cannot be a JSON number exactly: left out (a bound left out only costs skipping).
  if (typeof value === 'bigint')
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : undefined;
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) return value.map(jsonValue);
  if (isObject(value)) {
    const entries = Object.entries(value)
      .map(([key, entry]) => [key, jsonValue(entry)] as const)
      .filter(([, entry]) => entry !== undefined && entry !== null);
    return Object.fromEntries(entries);
  }
  return value;
}

/** JSON statistics: as written, or rebuilt from a checkpoint's `stats_parsed` struct. */
function statsOf(file: Record<string, unknown>): string | null {
  if (typeof file.stats === 'string' && file.stats !== '') return file.stats;
  const parsed = file.stats_parsed;
  if (!isObject(parsed) || parsed.numRecords === null || parsed.numRecords === undefined) return null;
  return JSON.stringify(jsonValue(parsed));
}

/** Partition values: the map, or (a checkpoint that only has them typed) `partitionValues_parsed`. */
function partitionValuesOf(file: Record<string, unknown>): PartitionValues {
  const values = mapOf(file.partitionValues);
  if (Object.keys(values).length > 0 || !isObject(file.partitionValues_parsed)) return values;
  return Object.fromEntries(
    Object.entries(file.partitionValues_parsed).map(([key, value]) => {
      const json = jsonValue(value);
      return [key, json === null || json === undefined ? null : String(json)];
    }),
  );
}

function deletionVectorOf(value: unknown): DeletionVectorDescriptor | undefined {
  if (!isObject(value) || typeof value.storageType !== 'string' || typeof value.pathOrInlineDv !== 'string')
    return undefined;
  return {
    storageType: value.storageType,
    pathOrInlineDv: value.pathOrInlineDv,
    offset: value.offset === null || value.offset === undefined ? null : num(value.offset),
    sizeInBytes: num(value.sizeInBytes),
    cardinality: num(value.cardinality),
  };
}

/** The optional fields of a file action, only those present (so that they are not written as null). */
function fileExtras(file: Record<string, unknown>) {
  const extras: Pick<AddFile, 'deletionVector' | 'baseRowId' | 'defaultRowCommitVersion'> = {};
  const deletionVector = deletionVectorOf(file.deletionVector);
  if (deletionVector) extras.deletionVector = deletionVector;
  const baseRowId = optionalNumber(file.baseRowId);
  if (baseRowId !== undefined) extras.baseRowId = baseRowId;
  const defaultRowCommitVersion = optionalNumber(file.defaultRowCommitVersion);
  if (defaultRowCommitVersion !== undefined) extras.defaultRowCommitVersion = defaultRowCommitVersion;
  return extras;
}

/** A struct column of a checkpoint row is null when its required field is (a reader may fill it with nulls). */
const present = (value: unknown, field: string): value is Record<string, unknown> =>
  isObject(value) && value[field] !== null && value[field] !== undefined;

const metadataFields = new Set([
  'id',
  'name',
  'description',
  'format',
  'schemaString',
  'partitionColumns',
  'configuration',
  'createdTime',
]);

/**
 * Normalises one action as found in a JSON commit or a checkpoint row (where longs may arrive as
 * bigint, maps as objects, Maps or entries, statistics as `stats_parsed`); null for actions no
 * reader of Tributary needs (cdc) and for any action this version of the protocol does not name,
 * which the protocol says readers ignore. Unknown fields of an action are ignored too, except the
 * metadata's, which are kept so that a metadata change written back loses none of them.
 */
export function normaliseAction(raw: Record<string, unknown>): Action | null {
  for (const { key, holds, read } of actionKinds) {
    const value = raw[key];
    if (isObject(value) && (holds === null || present(value, holds))) return read(value);
  }
  return null;
}

type Fields = Record<string, unknown>;

function addAction(add: Fields): Action {
  const file: AddFile = {
    path: decodeLogPath(String(add.path)),
    partitionValues: partitionValuesOf(add),
    size: num(add.size),
    modificationTime: num(add.modificationTime),
    dataChange: Boolean(add.dataChange),
    stats: statsOf(add),
    ...fileExtras(add),
  };
  const tags = mapOf(add.tags);
  if (Object.keys(tags).length > 0) file.tags = tags;
  if (typeof add.clusteringProvider === 'string') file.clusteringProvider = add.clusteringProvider;
  return { add: file };
}

function removeAction(remove: Fields): Action {
  return {
    remove: {
      path: decodeLogPath(String(remove.path)),
      deletionTimestamp: num(remove.deletionTimestamp),
      dataChange: Boolean(remove.dataChange),
      extendedFileMetadata: Boolean(remove.extendedFileMetadata),
      partitionValues: partitionValuesOf(remove),
      size: num(remove.size),
      ...fileExtras(remove),
    },
  };
}

function txnAction(txn: Fields): Action {
  return {
    txn: {
      appId: String(txn.appId),
      version: num(txn.version),
      lastUpdated: optionalNumber(txn.lastUpdated) ?? null,
    },
  };
}

function protocolAction(value: Fields): Action {
  const result: Protocol = {
    minReaderVersion: num(value.minReaderVersion),
    minWriterVersion: num(value.minWriterVersion),
  };
  if (Array.isArray(value.readerFeatures)) result.readerFeatures = value.readerFeatures.map(String);
  if (Array.isArray(value.writerFeatures)) result.writerFeatures = value.writerFeatures.map(String);
  return { protocol: result };
}

function metaDataAction(value: Fields): Action {
  const format = isObject(value.format) ? value.format : {};
  const otherFields = Object.fromEntries(
    Object.entries(value).filter(([key, field]) => !metadataFields.has(key) && field !== undefined),
  );
  return {
    metaData: {
      id: String(value.id),
      name: (value.name as string | null | undefined) ?? null,
      description: (value.description as string | null | undefined) ?? null,
      format: { provider: String(format.provider ?? 'parquet'), options: stringMap(format.options) },
      schemaString: String(value.schemaString),
      partitionColumns: [...((value.partitionColumns as string[] | null | undefined) ?? [])],
      configuration: stringMap(value.configuration),
      createdTime: optionalNumber(value.createdTime) ?? null,
      ...(Object.keys(otherFields).length > 0 ? { otherFields } : {}),
    },
  };
}

function domainMetadataAction(value: Fields): Action {
  return {
    domainMetadata: {
      domain: String(value.domain),
      configuration: String(value.configuration ?? ''),
      removed: Boolean(value.removed),
    },
  };
}

function checkpointMetadataAction(value: Fields): Action {
  return {
    checkpointMetadata: {
      version: num(value.version),
      tags: value.tags === null || value.tags === undefined ? null : mapOf(value.tags),
    },
  };
}

function sidecarAction(value: Fields): Action {
  return {
    sidecar: {
      path: decodeLogPath(String(value.path)),
      sizeInBytes: num(value.sizeInBytes),
      modificationTime: num(value.modificationTime),
    },
  };
}

/**
 * The actions normaliseAction reads, in the order it tries them: the key naming each, the field it
 * must hold to count (null: any object), and its reader.
 */
const actionKinds: { key: string; holds: string | null; read: (value: Fields) => Action }[] = [
  { key: 'add', holds: 'path', read: addAction },
  { key: 'remove', holds: 'path', read: removeAction },
  { key: 'txn', holds: 'appId', read: txnAction },
  { key: 'protocol', holds: 'minReaderVersion', read: protocolAction },
  { key: 'metaData', holds: 'id', read: metaDataAction },
  { key: 'domainMetadata', holds: 'domain', read: domainMetadataAction },
  { key: 'commitInfo', holds: null, read: (commitInfo) => ({ commitInfo }) },
  { key: 'checkpointMetadata', holds: 'version', read: checkpointMetadataAction },
  { key: 'sidecar', holds: 'path', read: sidecarAction },
];

/**
 * The files a commit adds with new rows, for readers that follow the log (pipelines): not the ones
 * it only rearranges (`dataChange: false`), nor a file it removes and adds back with a deletion
 * vector (a DELETE or UPDATE of another engine), whose remaining rows were read before.
 */
export function appendedFiles(actions: Action[]): AddFile[] {
  const removed = new Set(actions.flatMap((action) => ('remove' in action ? [action.remove.path] : [])));
  return actions.flatMap((action) =>
    'add' in action && action.add.dataChange && !removed.has(action.add.path) ? [action.add] : [],
  );
}

/**
 * The files a commit removes with their rows (`dataChange: true`) and does not add back: with adds of
 * new rows beside them, another engine's copy-on-write DELETE, UPDATE or MERGE, whose added files
 * hold the removed files' other rows again, read before by whoever follows the log.
 */
export function rewrittenFiles(actions: Action[]): RemoveFile[] {
  const added = new Set(actions.flatMap((action) => ('add' in action ? [action.add.path] : [])));
  return actions.flatMap((action) =>
    'remove' in action && action.remove.dataChange && !added.has(action.remove.path) ? [action.remove] : [],
  );
}

export function parseCommit(text: string): Action[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => normaliseAction(parseJson(line, jsonObject, 'A line of a commit')))
    .filter((action): action is Action => action !== null);
}
