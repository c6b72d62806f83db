/**
 * Delta checkpoints as Parquet, through parquet-wasm from an explicit Arrow schema: one nullable
 * struct column per action type (txn, add, remove, metaData, protocol), exactly one of them set in
 * each row; maps are Parquet MAPs of string to string (`key_value` entries), longs are INT64 and
 * the protocol versions INT32, as the protocol's checkpoint schema and delta-rs write them. An add
 * leaves out the optional `tags`, which Tributary never sets.
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
import type { CheckpointContent } from '../../domain/delta/checkpoint.ts';

const field = (name: string, type: DataType) => new Field(name, type, true);
const string = (name: string) => field(name, new Utf8());
const long = (name: string) => field(name, new Int64());
const stringMap = (name: string) =>
  field(
    name,
    new Map_(
      new Field('key_value', new Struct([new Field('key', new Utf8(), false), string('value')]), false) as never,
    ),
  );

export const checkpointSchema = new Schema([
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
      field('partitionColumns', new List(new Field('element', new Utf8(), true))),
      stringMap('configuration'),
      long('createdTime'),
    ]),
  ),
  field('protocol', new Struct([field('minReaderVersion', new Int32()), field('minWriterVersion', new Int32())])),
]);

const asMap = (record: Record<string, string>) => new Map(Object.entries(record));
const big = (value: number | null) => (value === null ? null : BigInt(value));

type Row = Partial<Record<'txn' | 'add' | 'remove' | 'metaData' | 'protocol', unknown>>;

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
    ...content.txns.map((txn) => ({ txn: { ...txn, version: big(txn.version), lastUpdated: big(txn.lastUpdated) } })),
    ...content.adds.map((add) => ({
      add: {
        path: add.path,
        partitionValues: asMap(add.partitionValues),
        size: big(add.size),
        modificationTime: big(add.modificationTime),
        dataChange: add.dataChange,
        stats: add.stats,
      },
    })),
    ...content.removes.map((remove) => ({
      remove: {
        ...remove,
        partitionValues: asMap(remove.partitionValues),
        deletionTimestamp: big(remove.deletionTimestamp),
        size: big(remove.size),
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
  const columns = checkpointSchema.fields.map(
    (column) =>
      vectorFromArray(
        rows.map((row) => row[column.name as keyof Row] ?? null),
        column.type,
      ).data[0],
  );
  const batch = new RecordBatch(
    checkpointSchema,
    makeData({
      type: new Struct(checkpointSchema.fields),
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
