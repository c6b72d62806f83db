/**
 * Which Delta tables Tributary may read and write, and what a commit must carry to honour the
 * features another writer turned on (PROTOCOL.md, "Table Features", each feature's reader and writer
 * requirements). Pure: the protocol and metadata in, a decision out.
 *
 * A reader must implement every feature in `readerFeatures`, a writer every one in `writerFeatures`
 * (and, since it reads before it writes, the reader ones too). Tables on older protocol versions
 * have their features implied by the versions (writer 2: appendOnly, invariants; 3: checkConstraints;
 * 4: changeDataFeed, generatedColumns; 5: columnMapping; 6: identityColumns; reader 2: columnMapping).
 *
 * What Tributary writes: appends of new files (webhook envelopes, pipeline rows), OPTIMIZE (files of
 * a partition rewritten into larger ones, `dataChange: false`), metadata changes (table properties),
 * classic checkpoints, vacuum and log clean-up. Each feature below is honoured where that writer can
 * do what the protocol asks at little cost, and refused otherwise, with the reason a tenant reads.
 */
import * as z from 'zod';
import { CommitNotAllowed } from '../errors.ts';
import { jsonObject, readJson } from './json.ts';
import type { AddFile, DomainMetadata, Metadata, Protocol, RemoveFile, TableSchema } from './log.ts';
import { hasRecordCount, parseStats } from './log.ts';
import type { TableState } from './snapshot.ts';

export type Support = { ok: true } | { ok: false; unsupported: string[]; message: string };
export type WriteSupport = Support;

/** A column of the table's schema (only what the checks below read). */
/** A field of the table's schema (protocol "Schema Serialization Format"), as far as the checks read it. */
const schemaField = z.looseObject({
  name: z.string(),
  type: z.unknown(),
  nullable: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
type SchemaField = z.infer<typeof schemaField>;
const schemaJson = z.looseObject({ fields: z.array(schemaField).optional() });

/** A metadata domain's configuration: a JSON object (row tracking's holds its high-water mark). */
const domainConfiguration = z.looseObject({ rowIdHighWaterMark: z.unknown().optional() });

function schemaFields(metadata: Metadata | null): SchemaField[] {
  if (!metadata) return [];
  return readJson(metadata.schemaString, schemaJson)?.fields ?? [];
}

/** Every field of the schema, nested ones included, with its dotted path. */
function allFields(fields: SchemaField[], prefix = ''): { path: string; field: SchemaField }[] {
  const found: { path: string; field: SchemaField }[] = [];
  const visit = (type: unknown, path: string) => {
    if (typeof type !== 'object' || type === null) return;
    const value = type as {
      type?: string;
      fields?: SchemaField[];
      elementType?: unknown;
      keyType?: unknown;
      valueType?: unknown;
    };
    if (value.type === 'struct' && Array.isArray(value.fields)) found.push(...allFields(value.fields, `${path}.`));
    if (value.type === 'array') visit(value.elementType, `${path}.element`);
    if (value.type === 'map') {
      visit(value.keyType, `${path}.key`);
      visit(value.valueType, `${path}.value`);
    }
  };
  for (const field of fields) {
    found.push({ path: `${prefix}${field.name}`, field });
    visit(field.type, `${prefix}${field.name}`);
  }
  return found;
}

const fieldsWith = (metadata: Metadata | null, key: (name: string) => boolean) =>
  allFields(schemaFields(metadata))
    .filter(({ field }) => Object.keys(field.metadata ?? {}).some(key))
    .map(({ path }) => path);

const property = (metadata: Metadata | null, name: string) => metadata?.configuration[name];
const enabled = (metadata: Metadata | null, name: string) => property(metadata, name)?.toLowerCase() === 'true';

/** What a writer needs to know of the table to check a feature against it. */
interface WriteContext {
  metadata: Metadata | null;
  /** The columns Tributary writes to this table, when the caller knows them. */
  columns: Set<string> | null;
}

/** null: Tributary honours the feature on this table; otherwise why it cannot (for the tenant). */
type WriteCheck = (context: WriteContext) => string | null;

interface FeatureRule {
  /** Reader and writer feature, or writer only. */
  readers: boolean;
  /** null: readable as it is; otherwise why Tributary's readers cannot read the table. */
  read: (metadata: Metadata | null) => string | null;
  write: WriteCheck;
}

const honoured: WriteCheck = () => null;
const readable = () => null;

const columnMappingMode = (metadata: Metadata | null) =>
  (property(metadata, 'delta.columnMapping.mode') ?? 'none').toLowerCase();

const columnMapping = (metadata: Metadata | null) =>
  columnMappingMode(metadata) === 'none'
    ? null
    : `column mapping (delta.columnMapping.mode = ${columnMappingMode(metadata)}) stores columns under other names in the data files, and Tributary reads and writes them by their names; drop the feature (ALTER TABLE … DROP FEATURE columnMapping) or use another table`;

const icebergCompat = (version: string) => (context: WriteContext) =>
  enabled(context.metadata, `delta.enableIcebergCompat${version}`) ||
  enabled(context.metadata, `delta.enableIcebergWriterCompat${version}`)
    ? `Iceberg compatibility ${version} (delta.enableIcebergCompat${version}) requires column mapping and Iceberg field ids in every data file, which Tributary does not write; unset the property`
    : null;

/** Which columns a row written by Tributary leaves without a value (every column it does not write). */
const unwritten = (context: WriteContext, paths: string[]) =>
  paths.filter((path) => context.columns === null || !context.columns.has(path.split('.')[0] as string));

/**
 * Each feature Tributary knows, as PROTOCOL.md defines it (names as in "Valid Feature Names"; the
 * `-preview` names are Delta's earlier names of the same features). Any other name is refused.
 */
const rules: Record<string, FeatureRule> = {
  // Appends never change or remove data; a commit that would (dataChange removes) is refused by prepareCommit.
  appendOnly: { readers: false, read: readable, write: honoured },
  invariants: {
    readers: false,
    read: readable,
    write: ({ metadata }) => {
      const columns = fieldsWith(metadata, (key) => key === 'delta.invariants');
      return columns.length === 0
        ? null
        : `column invariants (delta.invariants on ${columns.join(', ')}) must hold for every new row, and Tributary does not evaluate SQL expressions; drop them`;
    },
  },
  checkConstraints: {
    readers: false,
    read: readable,
    write: ({ metadata }) => {
      const constraints = Object.keys(metadata?.configuration ?? {})
        .filter((key) => key.startsWith('delta.constraints.'))
        .map((key) => key.slice('delta.constraints.'.length));
      return constraints.length === 0
        ? null
        : `CHECK constraints (${constraints.join(', ')}) must hold for every new row, and Tributary does not evaluate SQL expressions; drop them (ALTER TABLE … DROP CONSTRAINT)`;
    },
  },
  generatedColumns: {
    readers: false,
    read: readable,
    write: ({ metadata }) => {
      const columns = fieldsWith(metadata, (key) => key === 'delta.generationExpression');
      return columns.length === 0
        ? null
        : `generated columns (${columns.join(', ')}) must be computed for every new row, and Tributary does not evaluate SQL expressions; drop them`;
    },
  },
  allowColumnDefaults: {
    readers: false,
    read: readable,
    write: (context) => {
      const columns = unwritten(
        context,
        fieldsWith(context.metadata, (key) => key === 'CURRENT_DEFAULT'),
      );
      return columns.length === 0
        ? null
        : `columns with a default value (${columns.join(', ')}) must be filled in every new row, and Tributary does not write them; drop the defaults`;
    },
  },
  // Appends, compaction (dataChange false) and removals of whole files need no change data files.
  changeDataFeed: { readers: false, read: readable, write: honoured },
  columnMapping: {
    readers: true,
    read: columnMapping,
    write: ({ metadata }) => columnMapping(metadata),
  },
  identityColumns: {
    readers: false,
    read: readable,
    write: (context) => {
      const columns = unwritten(
        context,
        fieldsWith(context.metadata, (key) => key.startsWith('delta.identity.')),
      );
      return columns.length === 0
        ? null
        : `identity columns (${columns.join(', ')}) need a generated value in every new row, which Tributary does not write; drop them`;
    },
  },
  // Readers leave out the rows a deletion vector marks; Tributary writes no DVs, and its compaction drops those rows.
  deletionVectors: { readers: true, read: readable, write: honoured },
  // prepareCommit assigns row ids and commit versions and moves the high-water mark.
  rowTracking: { readers: false, read: readable, write: honoured },
  domainMetadata: { readers: false, read: readable, write: honoured },
  // Timestamps without time zone in columns Tributary does not write: nothing to do.
  timestampNtz: { readers: true, read: readable, write: honoured },
  // Read in every naming; written as classic checkpoints with a checkpointMetadata row (V2 spec).
  v2Checkpoint: { readers: true, read: readable, write: honoured },
  icebergCompatV1: { readers: false, read: readable, write: icebergCompat('V1') },
  icebergCompatV2: { readers: false, read: readable, write: icebergCompat('V2') },
  icebergCompatV3: { readers: false, read: readable, write: icebergCompat('V3') },
  icebergWriterCompatV1: { readers: false, read: readable, write: icebergCompat('V1') },
  icebergWriterCompatV3: { readers: false, read: readable, write: icebergCompat('V3') },
  // Files Tributary adds are unclustered (no clusteringProvider), which the protocol allows; they carry statistics.
  clustering: { readers: false, read: readable, write: honoured },
  // Tributary's vacuum checks the write protocol (this module) before it deletes anything.
  vacuumProtocolCheck: { readers: true, read: readable, write: honoured },
  // prepareCommit writes commitInfo first with a monotonic inCommitTimestamp.
  inCommitTimestamp: { readers: false, read: readable, write: honoured },
  // Tributary's columns keep their types (the schema check refuses a widened one); readers read only those.
  typeWidening: { readers: true, read: readable, write: honoured },
  'typeWidening-preview': { readers: true, read: readable, write: honoured },
  // Variant columns are never among Tributary's: readers do not read them, writers leave them null.
  variantType: { readers: true, read: readable, write: honoured },
  'variantType-preview': { readers: true, read: readable, write: honoured },
  variantShredding: { readers: true, read: readable, write: honoured },
  'variantShredding-preview': { readers: true, read: readable, write: honoured },
  // Log clean-up deletes only what lies before a checkpoint, in one go, and creates no checkpoint meanwhile.
  checkpointProtection: { readers: false, read: readable, write: honoured },
  catalogManaged: {
    readers: true,
    read: () =>
      'the table is managed by a catalog (catalogManaged): its latest commits may exist only in the catalog, and every commit must go through it; read and write it through that catalog',
    write: () =>
      'the table is managed by a catalog (catalogManaged): every commit must go through the catalog, which Tributary does not call; write to a table the catalog does not manage',
  },
  materializePartitionColumns: {
    readers: false,
    read: readable,
    write: () =>
      'partition columns must be stored in every data file (materializePartitionColumns), and Tributary keeps them in the path only; drop the feature (ALTER TABLE … DROP FEATURE materializePartitionColumns)',
  },
};
rules['catalogOwned-preview'] = rules.catalogManaged as FeatureRule;

/** The features a protocol requires, legacy versions' implied ones included. */
export function requiredFeatures(protocol: Protocol): { readers: string[]; writers: string[] } {
  const readers =
    protocol.minReaderVersion >= 3
      ? [...(protocol.readerFeatures ?? [])]
      : protocol.minReaderVersion === 2
        ? ['columnMapping']
        : [];
  const implied: [number, string][] = [
    [2, 'appendOnly'],
    [2, 'invariants'],
    [3, 'checkConstraints'],
    [4, 'changeDataFeed'],
    [4, 'generatedColumns'],
    [5, 'columnMapping'],
    [6, 'identityColumns'],
  ];
  const writers =
    protocol.minWriterVersion >= 7
      ? [...(protocol.writerFeatures ?? [])]
      : implied.filter(([version]) => protocol.minWriterVersion >= version).map(([, name]) => name);
  return { readers, writers };
}

function versionProblem(protocol: Protocol): string | null {
  if (protocol.minReaderVersion > 3 || protocol.minWriterVersion > 7)
    return `the table's protocol (reader version ${protocol.minReaderVersion}, writer version ${protocol.minWriterVersion}) is newer than the Delta protocol Tributary implements (reader 3, writer 7)`;
  return null;
}

function unknownFeature(name: string): string {
  return `the table requires the Delta feature "${name}", which Tributary does not implement; remove it from the table (ALTER TABLE … DROP FEATURE ${name}) if that engine allows, or use another table`;
}

function verdict(problems: Map<string, string>, doing: 'read' | 'write'): Support {
  if (problems.size === 0) return { ok: true };
  return {
    ok: false,
    unsupported: [...problems.keys()],
    message: `Tributary cannot ${doing} this Delta table: ${[...problems.values()].join('; ')}.`,
  };
}

/** Whether Tributary's readers (files list, events view, pipelines, maintenance) may read the table. */
export function readSupport(protocol: Protocol | null, metadata: Metadata | null): Support {
  if (!protocol) return { ok: true };
  const problems = new Map<string, string>();
  const version = versionProblem(protocol);
  if (version) problems.set('protocol', version);
  for (const name of requiredFeatures(protocol).readers) {
    const rule = rules[name];
    const problem = rule ? rule.read(metadata) : unknownFeature(name);
    if (problem) problems.set(name, problem);
  }
  return verdict(problems, 'read');
}

/**
 * Whether Tributary may commit to the table, and why not: every reader and writer feature checked
 * against the table's metadata, and, when `schema` (the columns Tributary writes) is given, the
 * table's schema against it. Call it with the protocol and metadata of the version a commit builds
 * on: another writer may have changed them since.
 */
export function writeSupport(
  protocol: Protocol | null,
  metadata: Metadata | null,
  options: { schema?: TableSchema; partitionColumns?: string[] } = {},
): Support {
  const problems = new Map<string, string>();
  if (protocol) {
    const version = versionProblem(protocol);
    if (version) problems.set('protocol', version);
    const context: WriteContext = {
      metadata,
      columns: options.schema ? new Set(options.schema.fields.map((field) => field.name)) : null,
    };
    const { readers, writers } = requiredFeatures(protocol);
    for (const name of new Set([...readers, ...writers])) {
      const rule = rules[name];
      const problem = rule
        ? (rule.write(context) ?? (readers.includes(name) ? rule.read(metadata) : null))
        : unknownFeature(name);
      if (problem) problems.set(name, problem);
    }
  }
  if (metadata && options.schema) {
    const problem = schemaProblem(metadata, options.schema, options.partitionColumns);
    if (problem) problems.set('schema', problem);
  }
  return verdict(problems, 'write');
}

/** The table's schema against the columns Tributary writes: same types, every other column nullable. */
function schemaProblem(metadata: Metadata, schema: TableSchema, partitionColumns?: string[]): string | null {
  const table = new Map(schemaFields(metadata).map((field) => [field.name.toLowerCase(), field]));
  const issues: string[] = [];
  for (const ours of schema.fields) {
    const theirs = table.get(ours.name.toLowerCase());
    if (!theirs) issues.push(`column ${ours.name} is no longer in the table`);
    else if (JSON.stringify(theirs.type) !== JSON.stringify(ours.type))
      issues.push(
        `column ${ours.name} is ${JSON.stringify(theirs.type)} in the table, and Tributary writes ${ours.type}`,
      );
    else if (theirs.nullable === false && ours.nullable) issues.push(`column ${ours.name} became required (not null)`);
  }
  const written = new Set(schema.fields.map((field) => field.name.toLowerCase()));
  for (const [name, field] of table)
    if (!written.has(name) && field.nullable === false)
      issues.push(`column ${field.name} is required (not null), and Tributary's rows have no value for it`);
  if (partitionColumns && partitionColumns.join() !== metadata.partitionColumns.join())
    issues.push(
      `the table is partitioned by [${metadata.partitionColumns.join(', ')}], and Tributary writes [${partitionColumns.join(', ')}]`,
    );
  return issues.length === 0
    ? null
    : `its schema no longer matches what Tributary writes (${issues.join('; ')}); restore it, or let Tributary write to a new data set`;
}

/**
 * Whether Tributary's compaction may rewrite the table's files: on top of writeSupport, row tracking
 * enabled asks writers to keep each row's stable id across a rewrite (materialised row ids), which
 * compaction does not write, so such tables are not compacted (appends still are).
 */
export function compactionSupport(protocol: Protocol | null, metadata: Metadata | null): Support {
  const support = writeSupport(protocol, metadata);
  if (!support.ok) return support;
  if (
    protocol &&
    requiredFeatures(protocol).writers.includes('rowTracking') &&
    enabled(metadata, 'delta.enableRowTracking')
  )
    return {
      ok: false,
      unsupported: ['rowTracking'],
      message:
        'Tributary does not compact this Delta table: row tracking is enabled (delta.enableRowTracking), and a rewrite would change the stable row ids; compact it with an engine that keeps them',
    };
  return { ok: true };
}

/** Whether the table forbids removing its data (delta.appendOnly, on a protocol with the feature). */
export function appendOnly(state: Pick<TableState, 'protocol' | 'metadata'>): boolean {
  return (
    state.protocol !== null &&
    requiredFeatures(state.protocol).writers.includes('appendOnly') &&
    enabled(state.metadata, 'delta.appendOnly')
  );
}

export interface CommitDraft {
  adds: AddFile[];
  removes: RemoveFile[];
}

export interface PreparedCommit {
  /** The adds, with row ids and commit versions where the table tracks rows. */
  adds: AddFile[];
  /** The removes, each naming the live file it removes as the log knows it (its DV, row ids). */
  removes: RemoveFile[];
  /** Fields for the commitInfo, which must be the commit's first action (commitContent writes it first). */
  commitInfo: Record<string, unknown>;
  /** Domains to set in the commit. */
  domainMetadata: DomainMetadata[];
}

const rowTrackingDomain = 'delta.rowTracking';

/** The highest row id assigned so far (-1 for none). */
export function rowIdHighWaterMark(state: Pick<TableState, 'domainMetadata'>): number {
  const domain = state.domainMetadata.get(rowTrackingDomain);
  if (!domain) return -1;
  const value = readJson(domain.configuration, domainConfiguration)?.rowIdHighWaterMark;
  return typeof value === 'number' ? value : -1;
}

/**
 * The actions of a commit as the table's features require them, for the version `version` about to
 * be claimed on top of `state` (the snapshot at version - 1). Pure: call it again for every attempt,
 * since a lost race changes the version and the table's state.
 *  - removes name the live file as the log has it: its deletion vector (else the DV'd file stays
 *    live), and its row id and commit version (row tracking);
 *  - row tracking (supported, not suspended): every new add gets `baseRowId` above the high-water
 *    mark, consecutive by record count, `defaultRowCommitVersion` = version, and the mark moves;
 *  - in-commit timestamps (enabled): `inCommitTimestamp` = max(now, previous + 1);
 *  - append-only (enabled): a remove with dataChange is CommitNotAllowed;
 *  - change data feed (enabled): adds and removes that both change data (an update) need change
 *    data files, which Tributary does not write: CommitNotAllowed.
 */
export function prepareCommit(
  state: Pick<TableState, 'protocol' | 'metadata' | 'files' | 'domainMetadata' | 'inCommitTimestamp'>,
  draft: CommitDraft,
  context: { version: number; now: number },
): PreparedCommit {
  const writers = state.protocol ? requiredFeatures(state.protocol).writers : [];
  const supports = (name: string) => writers.includes(name);
  const { metadata } = state;

  if (appendOnly(state) && draft.removes.some((remove) => remove.dataChange))
    throw new CommitNotAllowed(
      'appendOnly',
      'The table is append-only (delta.appendOnly = true): Tributary may not remove its data; unset the property to allow it',
    );
  if (
    supports('changeDataFeed') &&
    enabled(metadata, 'delta.enableChangeDataFeed') &&
    draft.removes.some((remove) => remove.dataChange) &&
    draft.adds.some((add) => add.dataChange)
  )
    throw new CommitNotAllowed(
      'changeDataFeed',
      'The table records its change data feed (delta.enableChangeDataFeed = true), and a commit that both adds and removes rows needs change data files, which Tributary does not write',
    );

  const removes = draft.removes.map((remove) => {
    const live = state.files.get(remove.path);
    if (!live) return remove;
    const named: RemoveFile = { ...remove };
    if (live.deletionVector && !remove.deletionVector) named.deletionVector = live.deletionVector;
    if (live.baseRowId !== undefined && remove.baseRowId === undefined) named.baseRowId = live.baseRowId;
    if (live.defaultRowCommitVersion !== undefined && remove.defaultRowCommitVersion === undefined)
      named.defaultRowCommitVersion = live.defaultRowCommitVersion;
    return named;
  });

  let adds = draft.adds;
  const domainMetadata: DomainMetadata[] = [];
  if (supports('rowTracking') && !enabled(metadata, 'delta.rowTrackingSuspended')) {
    const mark = rowIdHighWaterMark(state);
    let next = mark + 1;
    adds = draft.adds.map((add) => {
      if (add.baseRowId !== undefined) return add;
      if (!hasRecordCount(add.stats))
        throw new CommitNotAllowed('rowTracking', `The file ${add.path} has no record count to assign row ids from`);
      const tracked: AddFile = { ...add, baseRowId: next, defaultRowCommitVersion: context.version };
      next += parseStats(add.stats).numRecords;
      return tracked;
    });
    if (next - 1 > mark) {
      const current = state.domainMetadata.get(rowTrackingDomain);
      const configuration = (current ? readJson(current.configuration, jsonObject) : null) ?? {};
      domainMetadata.push({
        domain: rowTrackingDomain,
        configuration: JSON.stringify({ ...configuration, rowIdHighWaterMark: next - 1 }),
        removed: false,
      });
    }
  }

  const commitInfo: Record<string, unknown> = {};
  if (supports('inCommitTimestamp') && enabled(metadata, 'delta.enableInCommitTimestamps'))
    commitInfo.inCommitTimestamp = Math.max(context.now, (state.inCommitTimestamp ?? Number.NEGATIVE_INFINITY) + 1);

  return { adds, removes, commitInfo, domainMetadata };
}
