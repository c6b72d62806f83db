/**
 * A Delta table's version as an Iceberg v2 table over the same Parquet files (spec: iceberg.apache.org/spec):
 * `metadata/v<N>.metadata.json`, a manifest list per snapshot, manifests, and `version-hint.text`
 * (N) for readers of file-system catalogs. Each snapshot mirrors one Delta version (summary
 * `delta-version`); its data files are exactly that version's live add files.
 *
 * One manifest per partition (a day, for Tributary's tables), named by a hash of its file set: a
 * mirror after an append rewrites only the manifests of the partitions whose files changed and
 * lists the others as the previous snapshot did. A file the previous snapshot had keeps its entry
 * (EXISTING, with the snapshot and sequence numbers that added it), and a file it had that is gone
 * is listed DELETED in that snapshot's manifest of its partition, so readers of incremental changes
 * see exactly what the Delta versions changed, deletions included.
 *
 * Snapshots, metadata files and manifests older than the Delta table's own log retention
 * (`delta.logRetentionDuration`) are expired, in batches: once the oldest snapshot is a day past it.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { ConditionalWritesUnsupported } from '#delta/errors.ts';
import { type AddFile, hasRecordCount, isAbsolutePath, parseStats } from '#delta/kernel/log.ts';
import { latestTimestamp, type TableState } from '#delta/kernel/snapshot.ts';
import { tableConfig } from '#delta/kernel/table-config.ts';
import {
  decodeManifest,
  decodeManifestList,
  encodeManifest,
  encodeManifestList,
  entryStatus,
  type FieldSummary,
  type ManifestEntry,
  type ManifestFile,
} from './avro.ts';
import {
  deltaColumns,
  type IcebergSchema,
  icebergSchema,
  identitySpec,
  nameMapping,
  type PartitionSpec,
} from './schema.ts';
import type { IcebergStorage } from './storage.ts';

export interface Snapshot {
  'snapshot-id': number;
  'parent-snapshot-id'?: number;
  'sequence-number': number;
  'timestamp-ms': number;
  'manifest-list': string;
  summary: Record<string, string>;
  'schema-id': number;
}

/** A table metadata file (spec "Table Metadata"), format version 2. */
export interface TableMetadata {
  'format-version': 2;
  'table-uuid': string;
  location: string;
  'last-sequence-number': number;
  'last-updated-ms': number;
  'last-column-id': number;
  'current-schema-id': number;
  schemas: IcebergSchema[];
  'default-spec-id': number;
  'partition-specs': PartitionSpec[];
  'last-partition-id': number;
  'default-sort-order-id': number;
  'sort-orders': { 'order-id': number; fields: never[] }[];
  properties: Record<string, string>;
  'current-snapshot-id': number;
  refs: Record<string, { 'snapshot-id': number; type: 'branch' }>;
  snapshots: Snapshot[];
  'snapshot-log': { 'timestamp-ms': number; 'snapshot-id': number }[];
  'metadata-log': { 'timestamp-ms': number; 'metadata-file': string }[];
}

export type MirrorResult =
  | {
      status: 'Current';
      deltaVersion: number;
      /** Absolute, under the table's location. */
      metadataLocation: string;
      metadata: TableMetadata;
      /** Whether this call wrote the metadata file (false: it was up to date already). */
      wrote: boolean;
    }
  | { status: 'Unsupported'; deltaVersion: number; reason: string };

export interface MirrorRequest {
  /** The table's location (`s3://bucket/prefix`): where metadata says its files are. */
  root: string;
  /** The Delta table at the version to mirror. */
  state: TableState;
  /** Milliseconds. */
  now: number;
  /**
   * The metadata file last recorded (its location): read instead of `version-hint.text`. A newer
   * one written meanwhile is found when writing the next one fails.
   */
  known?: string | null;
}

export const versionHintKey = 'metadata/version-hint.text';
const metadataKey = (n: number) => `metadata/v${n}.metadata.json`;
const manifestName = (snapshotId: number, hash: string) => `metadata/manifest-${snapshotId}-${hash}.avro`;
const manifestPattern = /manifest-(\d+)-([0-9a-f]{16})\.avro$/;
const manifestListPattern = /snap-(\d+)-\d+-[0-9a-f-]+\.avro$/;
const metadataPattern = /v(\d+)\.metadata\.json$/;
const dayMs = 24 * 60 * 60 * 1000;

/** Why Iceberg cannot express the Delta table as it stands, or null. */
export function unsupportedReason(state: TableState): string | null {
  const configuration = state.metadata?.configuration ?? {};
  const mapping = (configuration['delta.columnMapping.mode'] ?? 'none').toLowerCase();
  if (mapping !== 'none') return 'column mapping';
  for (const file of state.files.values()) {
    if (file.deletionVector) return 'deletion vectors';
    if (!hasRecordCount(file.stats)) return 'files without a record count';
  }
  return null;
}

/**
 * Brings the table's Iceberg metadata to `state`'s Delta version.
 *  1. A table Iceberg cannot express (unsupportedReason, a column type it does not mirror): its version hint
 *     withdrawn (withdrawn), the metadata left as it is.
 *  2. The current metadata (the recorded location, else `version-hint.text`, then any newer file past it, the hint
 *     written again if it was behind); at or past the version: done.
 *  3. The snapshot: unchanged partitions keep their manifests, changed ones get a new manifest.
 *  4. Its manifest list, then `v<N+1>.metadata.json` written only if absent (two mirrors racing:
 *     the second reads the first's and starts again), then `version-hint.text`.
 *  5. Expired snapshots and metadata files dropped, and their objects deleted.
 */
export async function mirrorDeltaVersion(storage: IcebergStorage, request: MirrorRequest): Promise<MirrorResult> {
  const { state } = request;
  const reason = unsupportedReason(state);
  const columns = state.metadata ? deltaColumns(state.metadata.schemaString) : { unsupported: 'no table metadata' };
  if (reason !== null) return withdrawn(storage, state.version, reason);
  if ('unsupported' in columns) return withdrawn(storage, state.version, columns.unsupported);
  let known = request.known ?? null;
  for (let attempt = 0; ; attempt++) {
    const current = await readCurrent(storage, request.root, known);
    if (current?.hintBehind) await storage.put(versionHintKey, String(current.n), 'text/plain');
    if (current && mirroredVersion(current.metadata) >= state.version)
      return {
        status: 'Current',
        deltaVersion: mirroredVersion(current.metadata),
        metadataLocation: `${request.root}/${metadataKey(current.n)}`,
        metadata: current.metadata,
        wrote: false,
      };
    const next = await nextMetadata(storage, request, columns.columns, current);
    if ('unsupported' in next) return withdrawn(storage, state.version, next.unsupported);
    const key = metadataKey((current?.n ?? 0) + 1);
    if (await putIfAbsent(storage, key, JSON.stringify(next.metadata))) {
      await storage.put(versionHintKey, String((current?.n ?? 0) + 1), 'text/plain');
      // The sync stands whether or not the expired objects go (an object-locked bucket refuses): they stay
      // unreferenced, and the next expiry pass lists them again.
      if (next.expired.length > 0) await storage.delete(next.expired).catch(() => undefined);
      return {
        status: 'Current',
        deltaVersion: state.version,
        metadataLocation: `${request.root}/${key}`,
        metadata: next.metadata,
        wrote: true,
      };
    }
    if (attempt >= 3) throw new Error(`Iceberg metadata ${key} kept being written by another writer`);
    known = null;
  }
}

/**
 * A table Iceberg cannot express as it stands (another writer's deletion vectors, say): its version
 * hint goes, so that a reader finding the table by its path fails rather than read the last mirrored
 * version, which may hold rows Delta has deleted since. The metadata files stay, the last one still
 * named by the caller's record; a later sync, once the table is expressible again, goes on from it and
 * writes the hint again.
 */
async function withdrawn(storage: IcebergStorage, deltaVersion: number, reason: string): Promise<MirrorResult> {
  await storage.delete([versionHintKey]);
  return { status: 'Unsupported', deltaVersion, reason };
}

async function putIfAbsent(storage: IcebergStorage, key: string, body: string): Promise<boolean> {
  try {
    return await storage.putIfAbsent(key, body, 'application/json');
  } catch (error) {
    if (!(error instanceof ConditionalWritesUnsupported)) throw error;
    // Without the condition the last of two racing mirrors wins; both describe the same Delta files.
    await storage.put(key, body, 'application/json');
    return true;
  }
}

/** The Delta version a metadata file's current snapshot mirrors (-1 for none). */
export function mirroredVersion(metadata: TableMetadata): number {
  const snapshot = metadata.snapshots.find((s) => s['snapshot-id'] === metadata['current-snapshot-id']);
  return Number(snapshot?.summary['delta-version'] ?? -1);
}

/** The key of a location under the table's root. */
function keyOf(root: string, location: string): string {
  return location.startsWith(`${root}/`) ? location.slice(root.length + 1) : location;
}

/**
 * The newest metadata file: from the recorded location, else from `version-hint.text` (else from none), then past it
 * while a next one exists, as Iceberg's own file-system tables read it. A mirror that stopped after writing
 * `v<N+1>` and before the hint left the hint at N: read from the hint alone, every later mirror would build on
 * `v<N>`, find `v<N+1>` taken, and fail for good. `hintBehind` says the hint must be written again.
 */
async function readCurrent(
  storage: IcebergStorage,
  root: string,
  known: string | null,
): Promise<{ n: number; metadata: TableMetadata; hintBehind: boolean } | null> {
  let n = known ? Number(metadataPattern.exec(known)?.[1] ?? Number.NaN) : Number.NaN;
  let hinted: number | null = null;
  if (!Number.isSafeInteger(n)) {
    const hint = await storage.getIfExists(versionHintKey);
    hinted = hint ? Number.parseInt(hint.toString('utf8').trim(), 10) : 0;
    n = Number.isSafeInteger(hinted) ? hinted : 0;
  }
  let body = n > 0 ? await storage.getIfExists(metadataKey(n)) : null;
  if (!body && known) return readCurrent(storage, root, null);
  let moved = false;
  for (;;) {
    const newer = await storage.getIfExists(metadataKey(n + 1));
    if (!newer) break;
    n++;
    body = newer;
    moved = true;
  }
  if (!body) return null;
  const metadata: TableMetadata = JSON.parse(body.toString('utf8'));
  return { n, metadata, hintBehind: moved || (hinted !== null && hinted !== n) };
}

/** Where a file is, as an absolute location (Delta paths are relative to the table root, or absolute). */
const locationOf = (root: string, file: AddFile) => (isAbsolutePath(file.path) ? file.path : `${root}/${file.path}`);

/** A partition tuple as a map key. */
const partitionKey = (values: (string | null)[]) => JSON.stringify(values);

/** A manifest list entry's partition tuple, when all its files share one (lower bound = upper bound, or all null). */
function manifestPartition(manifest: ManifestFile): string | null {
  const values: (string | null)[] = [];
  for (const summary of manifest.partitions ?? []) {
    if (summary.lower_bound === null && summary.upper_bound === null && summary.contains_null) values.push(null);
    else if (summary.lower_bound && summary.upper_bound?.equals(summary.lower_bound) && !summary.contains_null)
      values.push(summary.lower_bound.toString('utf8'));
    else return null;
  }
  return partitionKey(values);
}

interface PartitionGroup {
  values: (string | null)[];
  files: { location: string; add: AddFile; records: number }[];
  hash: string;
}

function groupByPartition(root: string, files: Iterable<AddFile>, columns: string[]): Map<string, PartitionGroup> {
  const groups = new Map<string, PartitionGroup>();
  for (const add of files) {
    const values = columns.map((column) => add.partitionValues[column] ?? null);
    const key = partitionKey(values);
    const group = groups.get(key) ?? { values, files: [], hash: '' };
    group.files.push({ location: locationOf(root, add), add, records: parseStats(add.stats).numRecords });
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    group.files.sort((a, b) => (a.location < b.location ? -1 : a.location > b.location ? 1 : 0));
    const hash = createHash('sha256');
    for (const file of group.files) hash.update(`${file.location}\u0000${file.add.size}\u0000${file.records}\n`);
    group.hash = hash.digest('hex').slice(0, 16);
  }
  return groups;
}

function summaryOf(values: (string | null)[]): FieldSummary[] {
  return values.map((value) => ({
    contains_null: value === null,
    contains_nan: null,
    lower_bound: value === null ? null : Buffer.from(value, 'utf8'),
    upper_bound: value === null ? null : Buffer.from(value, 'utf8'),
  }));
}

interface NextMetadata {
  metadata: TableMetadata;
  /** Keys of objects the expired snapshots and metadata files leave unreferenced. */
  expired: string[];
}

/** The next metadata file: the new snapshot (its manifests and manifest list written), expired ones dropped. */
async function nextMetadata(
  storage: IcebergStorage,
  request: MirrorRequest,
  columns: Parameters<typeof icebergSchema>[0],
  current: { n: number; metadata: TableMetadata } | null,
): Promise<NextMetadata | { unsupported: string }> {
  const { root, state } = request;
  const deltaMetadata = state.metadata;
  if (!deltaMetadata) return { unsupported: 'no table metadata' };
  const previous = current?.metadata ?? null;
  const previousSchema = previous?.schemas.find((s) => s['schema-id'] === previous['current-schema-id']) ?? null;
  const { schema, lastColumnId } = icebergSchema(
    columns,
    previousSchema && previous ? { schema: previousSchema, lastColumnId: previous['last-column-id'] } : null,
  );
  const partitionColumns = deltaMetadata.partitionColumns;
  for (const name of partitionColumns) {
    const field = schema.fields.find((f) => f.name === name);
    if (!field) return { unsupported: `partition column ${name} missing from the schema` };
    if (field.type !== 'string') return { unsupported: `partition column ${name} of type ${field.type}` };
  }
  const spec = identitySpec(schema, partitionColumns);
  const table = { schema, spec };

  const snapshotId = randomInt(1, 2 ** 47);
  const sequenceNumber = (previous?.['last-sequence-number'] ?? 0) + 1;
  const parent = previous?.snapshots.find((s) => s['snapshot-id'] === previous['current-snapshot-id']) ?? null;
  const previousManifests = parent ? await readManifestList(storage, root, parent['manifest-list']) : [];
  const byHash = new Map<string, ManifestFile>();
  const byPartition = new Map<string, ManifestFile[]>();
  for (const manifest of previousManifests) {
    const hash = manifestPattern.exec(manifest.manifest_path)?.[2];
    if (hash) byHash.set(hash, manifest);
    const key = manifestPartition(manifest) ?? '';
    byPartition.set(key, [...(byPartition.get(key) ?? []), manifest]);
  }
  // A schema change rewrites every manifest: each carries the schema it was written with.
  const schemaChanged = previousSchema !== null && previousSchema['schema-id'] !== schema['schema-id'];

  const groups = groupByPartition(root, state.files.values(), partitionColumns);
  const manifests: ManifestFile[] = [];
  const counts = { addedFiles: 0, addedRecords: 0, addedSize: 0, deletedFiles: 0, deletedRecords: 0, deletedSize: 0 };
  const changedPartitions = new Set<string>();
  let allAddedQuiet = true;
  const writing: ManifestWriting = { storage, root, table, snapshotId, sequenceNumber };
  /** The files a partition's manifests listed live in the previous snapshot, by location. */
  const previousLive = async (key: string) => {
    const before = new Map<string, ManifestEntry>();
    for (const old of byPartition.get(key) ?? [])
      for (const entry of await readManifest(storage, root, old.manifest_path))
        if (entry.status !== entryStatus.deleted) before.set(entry.data_file.file_path, entry);
    return before;
  };
  const countDeleted = (gone: Iterable<ManifestEntry>) => {
    for (const entry of gone) {
      counts.deletedFiles++;
      counts.deletedRecords += entry.data_file.record_count;
      counts.deletedSize += entry.data_file.file_size_in_bytes;
    }
  };
  const changed = [...groups.entries()].map(async ([key, group]) => {
    const same = byHash.get(group.hash);
    if (same && !schemaChanged) {
      manifests.push(same);
      return;
    }
    const before = await previousLive(key);
    const entries: ManifestEntry[] = group.files.map((file) => {
      const existing = before.get(file.location);
      before.delete(file.location);
      if (!existing) {
        counts.addedFiles++;
        counts.addedRecords += file.records;
        counts.addedSize += file.add.size;
        if (file.add.dataChange !== false) allAddedQuiet = false;
      }
      return {
        status: existing ? entryStatus.existing : entryStatus.added,
        snapshot_id: existing?.snapshot_id ?? snapshotId,
        sequence_number: existing?.sequence_number ?? sequenceNumber,
        file_sequence_number: existing?.file_sequence_number ?? sequenceNumber,
        data_file: {
          content: 0,
          file_path: file.location,
          file_format: 'PARQUET',
          partition: Object.fromEntries(spec.fields.map((field, i) => [field.name, group.values[i] ?? null])),
          record_count: file.records,
          file_size_in_bytes: file.add.size,
        },
      };
    });
    countDeleted(before.values());
    entries.push(...deletedEntries(before.values(), snapshotId));
    if (entries.some((entry) => entry.status !== entryStatus.existing)) changedPartitions.add(key);
    manifests.push(await writeManifest(writing, group.hash, group.values, entries));
  });
  // Partitions with no file left (a day past the data retention): their files listed DELETED in this snapshot's
  // manifest of the partition, which the next snapshot drops.
  const dropped = [...byPartition.keys()]
    .filter((key) => !groups.has(key))
    .map(async (key) => {
      const gone = [...(await previousLive(key)).values()];
      if (gone.length === 0) return;
      changedPartitions.add(key);
      countDeleted(gone);
      if (key === '') return;
      const hash = createHash('sha256').update(`deleted\u0000${key}`).digest('hex').slice(0, 16);
      manifests.push(await writeManifest(writing, hash, JSON.parse(key), deletedEntries(gone, snapshotId)));
    });
  await Promise.all([...changed, ...dropped]);
  manifests.sort((a, b) => (a.manifest_path < b.manifest_path ? -1 : 1));
  const manifestList = `metadata/snap-${snapshotId}-1-${randomUUID()}.avro`;
  await storage.put(
    manifestList,
    await encodeManifestList(manifests, {
      snapshotId,
      parentSnapshotId: parent?.['snapshot-id'] ?? null,
      sequenceNumber,
    }),
    'application/octet-stream',
  );

  const files = [...groups.values()].flatMap((group) => group.files);
  const operation = operationOf(counts, allAddedQuiet);
  const timestamp = Math.max(latestTimestamp(state) || request.now, (previous?.['last-updated-ms'] ?? 0) + 1);
  const snapshot: Snapshot = {
    'snapshot-id': snapshotId,
    ...(parent ? { 'parent-snapshot-id': parent['snapshot-id'] } : {}),
    'sequence-number': sequenceNumber,
    'timestamp-ms': timestamp,
    'manifest-list': `${root}/${manifestList}`,
    summary: {
      operation,
      'delta-version': String(state.version),
      'added-data-files': String(counts.addedFiles),
      'deleted-data-files': String(counts.deletedFiles),
      'added-records': String(counts.addedRecords),
      'deleted-records': String(counts.deletedRecords),
      'added-files-size': String(counts.addedSize),
      'removed-files-size': String(counts.deletedSize),
      'changed-partition-count': String(changedPartitions.size),
      'total-records': String(files.reduce((sum, file) => sum + file.records, 0)),
      'total-files-size': String(files.reduce((sum, file) => sum + file.add.size, 0)),
      'total-data-files': String(files.length),
      'total-delete-files': '0',
      'total-position-deletes': '0',
      'total-equality-deletes': '0',
    },
    'schema-id': schema['schema-id'],
  };

  const schemas = previous?.schemas.some((s) => s['schema-id'] === schema['schema-id'])
    ? previous.schemas
    : [...(previous?.schemas ?? []), schema];
  const metadata: TableMetadata = {
    'format-version': 2,
    'table-uuid': previous?.['table-uuid'] ?? tableUuid(deltaMetadata.id),
    location: root,
    'last-sequence-number': sequenceNumber,
    'last-updated-ms': timestamp,
    'last-column-id': lastColumnId,
    'current-schema-id': schema['schema-id'],
    schemas,
    'default-spec-id': spec['spec-id'],
    'partition-specs': [spec],
    'last-partition-id': Math.max(999, ...spec.fields.map((field) => field['field-id'])),
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: {
      ...previous?.properties,
      'schema.name-mapping.default': nameMapping(schema),
      'write.parquet.compression-codec': 'zstd',
    },
    'current-snapshot-id': snapshotId,
    refs: { main: { 'snapshot-id': snapshotId, type: 'branch' } },
    snapshots: [...(previous?.snapshots ?? []), snapshot],
    'snapshot-log': [...(previous?.['snapshot-log'] ?? []), { 'timestamp-ms': timestamp, 'snapshot-id': snapshotId }],
    'metadata-log': [
      ...(previous?.['metadata-log'] ?? []),
      ...(previous && current
        ? [{ 'timestamp-ms': previous['last-updated-ms'], 'metadata-file': `${root}/${metadataKey(current.n)}` }]
        : []),
    ],
  };
  const retentionMs = tableConfig(deltaMetadata.configuration).logRetentionMs;
  const expired = await expire(storage, root, metadata, manifests, {
    cutoff: request.now - retentionMs,
    previousMetadata: current?.n ?? 0,
  });
  return { metadata, expired };
}

/**
 * A snapshot's operation (spec "Snapshots"), which incremental readers go by: `replace` (they skip it) only when
 * every file added rewrote rows already there (Delta's `dataChange: false`, a compaction) and as many rows came as
 * went; a sync that folds a compaction with a retention drop or another writer's delete removed rows, and is an
 * `overwrite`.
 */
function operationOf(
  counts: { addedFiles: number; addedRecords: number; deletedFiles: number; deletedRecords: number },
  allAddedQuiet: boolean,
): 'append' | 'delete' | 'overwrite' | 'replace' {
  if (counts.addedFiles === 0) return counts.deletedFiles > 0 ? 'delete' : 'replace';
  if (counts.deletedFiles === 0) return 'append';
  return allAddedQuiet && counts.addedRecords === counts.deletedRecords ? 'replace' : 'overwrite';
}

/**
 * Files the previous snapshot listed live and this one removes, as DELETED entries of this snapshot (spec "Manifest
 * Entry Fields": they keep the sequence numbers of the snapshot that added them), so that a reader of incremental
 * changes sees what went.
 */
function deletedEntries(gone: Iterable<ManifestEntry>, snapshotId: number): ManifestEntry[] {
  return [...gone].map((entry) => ({ ...entry, status: entryStatus.deleted, snapshot_id: snapshotId }));
}

interface ManifestWriting {
  storage: IcebergStorage;
  root: string;
  table: { schema: IcebergSchema; spec: PartitionSpec };
  snapshotId: number;
  sequenceNumber: number;
}

/** Writes one partition's manifest and answers its manifest-list entry, counted by entry status. */
async function writeManifest(
  writing: ManifestWriting,
  hash: string,
  values: (string | null)[],
  entries: ManifestEntry[],
): Promise<ManifestFile> {
  const { storage, root, table, snapshotId, sequenceNumber } = writing;
  const path = manifestName(snapshotId, hash);
  const bytes = await encodeManifest(entries, table);
  await storage.put(path, bytes, 'application/octet-stream');
  const of = (status: number) => entries.filter((entry) => entry.status === status);
  const rows = (list: ManifestEntry[]) => list.reduce((sum, entry) => sum + entry.data_file.record_count, 0);
  const [added, existing, deleted] = [of(entryStatus.added), of(entryStatus.existing), of(entryStatus.deleted)];
  const live = [...added, ...existing];
  return {
    manifest_path: `${root}/${path}`,
    manifest_length: bytes.length,
    partition_spec_id: table.spec['spec-id'],
    content: 0,
    sequence_number: sequenceNumber,
    min_sequence_number: Math.min(sequenceNumber, ...live.map((entry) => entry.sequence_number ?? sequenceNumber)),
    added_snapshot_id: snapshotId,
    added_files_count: added.length,
    existing_files_count: existing.length,
    deleted_files_count: deleted.length,
    added_rows_count: rows(added),
    existing_rows_count: rows(existing),
    deleted_rows_count: rows(deleted),
    partitions: summaryOf(values),
    key_metadata: null,
  };
}

/** Delta's table id when it is a UUID (Iceberg's table-uuid must be one), else a new one. */
function tableUuid(id: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id.toLowerCase() : randomUUID();
}

async function readManifestList(storage: IcebergStorage, root: string, location: string): Promise<ManifestFile[]> {
  const bytes = await storage.getIfExists(keyOf(root, location));
  if (!bytes) throw new Error(`Iceberg manifest list ${keyOf(root, location)} is missing`);
  return decodeManifestList(bytes);
}

async function readManifest(storage: IcebergStorage, root: string, location: string): Promise<ManifestEntry[]> {
  const bytes = await storage.getIfExists(keyOf(root, location));
  if (!bytes) throw new Error(`Iceberg manifest ${keyOf(root, location)} is missing`);
  return decodeManifest(bytes);
}

/**
 * How many snapshots and metadata-log entries a table's metadata keeps at most, whatever their age:
 * a busy table is synced every few minutes, and a month of its snapshots (thousands) would make the
 * metadata file megabytes, over what a catalog's LoadTable answers (Lambda's 6 MB) and rewritten at
 * every sync. The metadata log keeps Iceberg's own default (write.metadata.previous-versions-max).
 */
export const metadataLimits = { snapshots: 1000, metadataLog: 100 };

/**
 * Drops snapshots and metadata-log entries older than `cutoff` or past metadataLimits (never the
 * current snapshot) from `metadata`, in place, once the oldest is a day past the cutoff or the
 * snapshots a tenth past their limit; answers the objects under `metadata/` older than the oldest
 * snapshot kept that nothing kept refers to (a mirror that lost a race leaves such too). A manifest
 * a kept snapshot lists was added by a kept snapshot, or is listed by the oldest kept one (a
 * manifest is only ever carried from one snapshot to the next).
 */
async function expire(
  storage: IcebergStorage,
  root: string,
  metadata: TableMetadata,
  currentManifests: ManifestFile[],
  { cutoff: ageCutoff, previousMetadata }: { cutoff: number; previousMetadata: number },
): Promise<string[]> {
  metadata['metadata-log'] = metadata['metadata-log'].slice(-metadataLimits.metadataLog);
  const oldest = metadata.snapshots[0];
  const tooMany = metadata.snapshots.length > metadataLimits.snapshots * 1.1;
  if (!oldest || (!tooMany && oldest['timestamp-ms'] >= ageCutoff - dayMs)) return [];
  const current = metadata['current-snapshot-id'];
  const byCount = metadata.snapshots.at(-metadataLimits.snapshots)?.['timestamp-ms'] ?? ageCutoff;
  const cutoff = tooMany ? Math.max(ageCutoff, byCount) : ageCutoff;
  metadata.snapshots = metadata.snapshots.filter((s) => s['timestamp-ms'] >= cutoff || s['snapshot-id'] === current);
  const kept = new Set(metadata.snapshots.map((s) => s['snapshot-id']));
  metadata['snapshot-log'] = metadata['snapshot-log'].filter((entry) => kept.has(entry['snapshot-id']));
  metadata['metadata-log'] = metadata['metadata-log'].filter((entry) => entry['timestamp-ms'] >= cutoff);
  const oldestKept = metadata.snapshots[0];
  const listed =
    oldestKept && oldestKept['snapshot-id'] !== current
      ? await readManifestList(storage, root, oldestKept['manifest-list'])
      : [];
  const referenced = new Set<string>([
    versionHintKey,
    ...metadata['metadata-log'].map((entry) => keyOf(root, entry['metadata-file'])),
    ...metadata.snapshots.map((s) => keyOf(root, s['manifest-list'])),
    ...[...listed, ...currentManifests].map((manifest) => keyOf(root, manifest.manifest_path)),
  ]);
  return (await storage.list('metadata/'))
    .filter((object) => object.lastModified < cutoff && !referenced.has(object.key))
    .filter((object) => {
      const manifest = manifestPattern.exec(object.key);
      if (manifest) return !kept.has(Number(manifest[1]));
      const list = manifestListPattern.exec(object.key);
      if (list) return !kept.has(Number(list[1]));
      // The previous metadata file stays whatever its age: a reader may have just found it in the hint.
      return metadataPattern.test(object.key) && metadataNumber(object.key) < previousMetadata;
    })
    .map((object) => object.key);
}

const metadataNumber = (location: string) => Number(metadataPattern.exec(location)?.[1] ?? -1);
