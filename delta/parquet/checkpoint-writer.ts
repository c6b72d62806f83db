/**
 * Delta checkpoints as Parquet, through parquet-wasm from an explicit Arrow schema: one nullable
 * struct column per action type (txn, add, remove, metaData, protocol, and domainMetadata and
 * checkpointMetadata when the table has them), exactly one of them set in each row; maps are Parquet
 * MAPs of string to string (`key_value` entries), longs are INT64 and the protocol versions INT32, as
 * the protocol's checkpoint schema and delta-rs write them.
 *
 * Everything another writer set travels on: the protocol's reader and writer features, domain
 * metadata, and each file's tags, deletion vector and row-tracking fields. Those columns exist only
 * when some row has a value for them (the protocol reads a missing column as null): a table only
 * Tributary writes gets the same small checkpoint as always, and its readers assemble no null maps.
 * Snappy, the codec every Delta reader (and hyparquet, our own reader) handles without extras.
 */
import {
  Bool,
  type DataType,
  Field,
  Int32,
  Int64,
  List,
  Map_,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import * as parquet from 'parquet-wasm';
import { type DeletionVectorDescriptor, encodeLogPath } from '../kernel/log.ts';
import type { CheckpointContent } from '../operations/checkpoint.ts';

const field = (name: string, type: DataType) => new Field(name, type, true);
const string = (name: string) => field(name, new Utf8());
const long = (name: string) => field(name, new Int64());
const int = (name: string) => field(name, new Int32());
const stringMap = (name: string) =>
  field(
    name,
    new Map_(
      new Field('key_value', new Struct([new Field('key', new Utf8(), false), string('value')]), false) as never,
    ),
  );
const stringList = (name: string) => field(name, new List(new Field('element', new Utf8(), true)));

const deletionVector = field(
  'deletionVector',
  new Struct([string('storageType'), string('pathOrInlineDv'), int('offset'), int('sizeInBytes'), long('cardinality')]),
);

/** Optional fields of the file actions, each with the test that some action has it. */
const optionalFileFields = {
  tags: stringMap('tags'),
  deletionVector,
  baseRowId: long('baseRowId'),
  defaultRowCommitVersion: long('defaultRowCommitVersion'),
  clusteringProvider: string('clusteringProvider'),
};
type OptionalFileField = keyof typeof optionalFileFields;

/** The checkpoint's schema for this content: the protocol's columns, and the optional ones some row sets. */
export function checkpointSchema(content: CheckpointContent): Schema {
  const used = (files: object[], name: OptionalFileField) => files.some((file) => name in file);
  const optional = (files: object[], names: OptionalFileField[]) =>
    names.filter((name) => used(files, name)).map((name) => optionalFileFields[name]);
  const { protocol } = content;
  return new Schema([
    field('txn', new Struct([string('appId'), long('version'), long('lastUpdated')])),
    field(
      'add',
      new Struct([
        string('path'),
        stringMap('partitionValues'),
        long('size'),
        long('modificationTime'),
        field('dataChange', new Bool()),
        string('stats'),
        ...optional(content.adds, [
          'tags',
          'deletionVector',
          'baseRowId',
          'defaultRowCommitVersion',
          'clusteringProvider',
        ]),
      ]),
    ),
    field(
      'remove',
      new Struct([
        string('path'),
        long('deletionTimestamp'),
        field('dataChange', new Bool()),
        field('extendedFileMetadata', new Bool()),
        stringMap('partitionValues'),
        long('size'),
        ...optional(content.removes, ['deletionVector', 'baseRowId', 'defaultRowCommitVersion']),
      ]),
    ),
    field(
      'metaData',
      new Struct([
        string('id'),
        string('name'),
        string('description'),
        field('format', new Struct([string('provider'), stringMap('options')])),
        string('schemaString'),
        stringList('partitionColumns'),
        stringMap('configuration'),
        long('createdTime'),
      ]),
    ),
    field(
      'protocol',
      new Struct([
        int('minReaderVersion'),
        int('minWriterVersion'),
        // Required (not null) from reader version 3 and writer version 7; absent before.
        ...(protocol.readerFeatures ? [stringList('readerFeatures')] : []),
        ...(protocol.writerFeatures ? [stringList('writerFeatures')] : []),
      ]),
    ),
    ...(content.domainMetadata.length > 0
      ? [field('domainMetadata', new Struct([string('domain'), string('configuration'), field('removed', new Bool())]))]
      : []),
    ...(content.checkpointMetadata
      ? [field('checkpointMetadata', new Struct([long('version'), stringMap('tags')]))]
      : []),
  ]);
}

const asMap = (record: Record<string, string | null>) => new Map(Object.entries(record));
const big = (value: number | null | undefined) => (value === null || value === undefined ? null : BigInt(value));
const dv = (descriptor: DeletionVectorDescriptor | undefined) =>
  descriptor ? { ...descriptor, cardinality: BigInt(descriptor.cardinality) } : null;

type Row = Partial<
  Record<'txn' | 'add' | 'remove' | 'metaData' | 'protocol' | 'domainMetadata' | 'checkpointMetadata', unknown>
>;

function rowsOf(content: CheckpointContent): Row[] {
  const { metadata } = content;
  return [
    { protocol: content.protocol },
    {
      metaData: {
        ...metadata,
        format: { provider: metadata.format.provider, options: asMap(metadata.format.options) },
        configuration: asMap(metadata.configuration),
        createdTime: big(metadata.createdTime),
      },
    },
    ...(content.checkpointMetadata
      ? [{ checkpointMetadata: { version: big(content.checkpointMetadata.version), tags: null } }]
      : []),
    ...content.domainMetadata.map((domainMetadata) => ({ domainMetadata })),
    ...content.txns.map((txn) => ({ txn: { ...txn, version: big(txn.version), lastUpdated: big(txn.lastUpdated) } })),
    ...content.adds.map((add) => ({
      add: {
        path: encodeLogPath(add.path),
        partitionValues: asMap(add.partitionValues),
        size: big(add.size),
        modificationTime: big(add.modificationTime),
        dataChange: add.dataChange,
        stats: add.stats,
        tags: add.tags ? asMap(add.tags) : null,
        deletionVector: dv(add.deletionVector),
        baseRowId: big(add.baseRowId),
        defaultRowCommitVersion: big(add.defaultRowCommitVersion),
        clusteringProvider: add.clusteringProvider ?? null,
      },
    })),
    ...content.removes.map((remove) => ({
      remove: {
        ...remove,
        path: encodeLogPath(remove.path),
        partitionValues: asMap(remove.partitionValues),
        deletionTimestamp: big(remove.deletionTimestamp),
        size: big(remove.size),
        deletionVector: dv(remove.deletionVector),
        baseRowId: big(remove.baseRowId),
        defaultRowCommitVersion: big(remove.defaultRowCommitVersion),
      },
    })),
  ];
}

/**
 * Rows come grouped by action type (protocol, metadata, txns, then adds, then removes), so that in
 * row groups this small most groups hold one type and a reader can skip the other columns there
 * (checkpoint-reader.ts does); one row group of 10,000 adds would make it assemble every column.
 */
const rowGroupRows = 1024;

export function encodeCheckpoint(content: CheckpointContent): Uint8Array {
  const rows = rowsOf(content);
  const schema = checkpointSchema(content);
  const columns = schema.fields.map(
    (column) =>
      vectorFromArray(
        rows.map((row) => row[column.name as keyof Row] ?? null),
        column.type,
      ).data[0],
  );
  const batch = new RecordBatch(
    schema,
    makeData({
      type: new Struct(schema.fields),
      length: rows.length,
      nullCount: 0,
      children: columns as NonNullable<(typeof columns)[number]>[],
    }),
  );
  const properties = new parquet.WriterPropertiesBuilder()
    .setCompression(parquet.Compression.SNAPPY)
    .setMaxRowGroupSize(rowGroupRows)
    .build();
  return parquet.writeParquet(parquet.Table.fromIPCStream(tableToIPC(new Table([batch]), 'stream')), properties);
}
