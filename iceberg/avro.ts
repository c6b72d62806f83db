/**
 * Manifests and manifest lists as Iceberg v2 writes them (spec "Manifests", "Manifest Lists"): Avro
 * object container files (deflate) whose schemas carry Iceberg's field ids, with the key-value
 * metadata the spec asks for. avsc encodes and decodes them.
 */
import { Readable } from 'node:stream';
import avro from 'avsc';
import type { IcebergSchema, PartitionSpec } from './schema.ts';

/** A manifest entry's status (spec: 0 EXISTING, 1 ADDED, 2 DELETED). */
export const entryStatus = { existing: 0, added: 1, deleted: 2 } as const;

export interface DataFile {
  content: number;
  file_path: string;
  file_format: string;
  /** The partition tuple by partition field name (identity partitions on strings). */
  partition: Record<string, string | null>;
  record_count: number;
  file_size_in_bytes: number;
}

export interface ManifestEntry {
  status: number;
  snapshot_id: number | null;
  sequence_number: number | null;
  file_sequence_number: number | null;
  data_file: DataFile;
}

export interface FieldSummary {
  contains_null: boolean;
  contains_nan: boolean | null;
  lower_bound: Buffer | null;
  upper_bound: Buffer | null;
}

export interface ManifestFile {
  manifest_path: string;
  manifest_length: number;
  partition_spec_id: number;
  content: number;
  sequence_number: number;
  min_sequence_number: number;
  added_snapshot_id: number;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: number;
  existing_rows_count: number;
  deleted_rows_count: number;
  partitions: FieldSummary[] | null;
  key_metadata: Buffer | null;
}

const optional = (type: unknown) => ['null', type];

/** The manifest entry schema for a partition spec of string identity partitions. */
export function manifestEntrySchema(spec: PartitionSpec) {
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      { name: 'status', type: 'int', 'field-id': 0 },
      { name: 'snapshot_id', type: optional('long'), default: null, 'field-id': 1 },
      { name: 'sequence_number', type: optional('long'), default: null, 'field-id': 3 },
      { name: 'file_sequence_number', type: optional('long'), default: null, 'field-id': 4 },
      {
        name: 'data_file',
        'field-id': 2,
        type: {
          type: 'record',
          name: 'r2',
          fields: [
            { name: 'content', type: 'int', 'field-id': 134 },
            { name: 'file_path', type: 'string', 'field-id': 100 },
            { name: 'file_format', type: 'string', 'field-id': 101 },
            {
              name: 'partition',
              'field-id': 102,
              type: {
                type: 'record',
                name: 'r102',
                fields: spec.fields.map((field) => ({
                  name: field.name,
                  type: optional('string'),
                  default: null,
                  'field-id': field['field-id'],
                })),
              },
            },
            { name: 'record_count', type: 'long', 'field-id': 103 },
            { name: 'file_size_in_bytes', type: 'long', 'field-id': 104 },
          ],
        },
      },
    ],
  };
}

export const manifestFileSchema = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    { name: 'manifest_path', type: 'string', 'field-id': 500 },
    { name: 'manifest_length', type: 'long', 'field-id': 501 },
    { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
    { name: 'content', type: 'int', 'field-id': 517 },
    { name: 'sequence_number', type: 'long', 'field-id': 515 },
    { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
    { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
    { name: 'added_files_count', type: 'int', 'field-id': 504 },
    { name: 'existing_files_count', type: 'int', 'field-id': 505 },
    { name: 'deleted_files_count', type: 'int', 'field-id': 506 },
    { name: 'added_rows_count', type: 'long', 'field-id': 512 },
    { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
    { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
    {
      name: 'partitions',
      type: optional({
        type: 'array',
        'element-id': 508,
        items: {
          type: 'record',
          name: 'r508',
          fields: [
            { name: 'contains_null', type: 'boolean', 'field-id': 509 },
            { name: 'contains_nan', type: optional('boolean'), default: null, 'field-id': 518 },
            { name: 'lower_bound', type: optional('bytes'), default: null, 'field-id': 510 },
            { name: 'upper_bound', type: optional('bytes'), default: null, 'field-id': 511 },
          ],
        },
      }),
      default: null,
      'field-id': 507,
    },
    { name: 'key_metadata', type: optional('bytes'), default: null, 'field-id': 519 },
  ],
};

type AvroSchema = Parameters<typeof avro.createBlobEncoder>[0];

/** An Avro object container file of `records`, with the key-value metadata given. */
async function encodeFile(schema: object, records: object[], metadata: Record<string, string>): Promise<Buffer> {
  // The schemas carry Iceberg's attributes (field-id, element-id), which avsc's types do not name.
  const withAttributes: AvroSchema = JSON.parse(JSON.stringify(schema));
  // avsc writes `metadata` into the file header; its types leave the option out.
  const options = {
    codec: 'deflate',
    metadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, Buffer.from(value)])),
  };
  const encoder = new avro.streams.BlockEncoder(withAttributes, options);
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    encoder.on('data', (chunk: Buffer) => chunks.push(chunk));
    encoder.on('end', () => resolve());
    encoder.on('error', reject);
  });
  for (const record of records) encoder.write(record);
  encoder.end();
  await done;
  return Buffer.concat(chunks);
}

/** The records of an Avro object container file, and its key-value metadata. */
export async function decodeFile(bytes: Buffer): Promise<{ records: unknown[]; metadata: Record<string, string> }> {
  const decoder = new avro.streams.BlockDecoder();
  const records: unknown[] = [];
  const metadata: Record<string, string> = {};
  const done = new Promise<void>((resolve, reject) => {
    decoder.on('metadata', (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
      for (const [key, value] of Object.entries(header.meta)) metadata[key] = value.toString('utf8');
    });
    decoder.on('data', (record: unknown) => records.push(record));
    decoder.on('end', () => resolve());
    decoder.on('error', reject);
  });
  Readable.from([bytes]).pipe(decoder);
  await done;
  return { records, metadata };
}

export function encodeManifest(
  entries: ManifestEntry[],
  table: { schema: IcebergSchema; spec: PartitionSpec },
): Promise<Buffer> {
  return encodeFile(manifestEntrySchema(table.spec), entries, {
    schema: JSON.stringify(table.schema),
    'schema-id': String(table.schema['schema-id']),
    'partition-spec': JSON.stringify(table.spec.fields),
    'partition-spec-id': String(table.spec['spec-id']),
    'format-version': '2',
    content: 'data',
  });
}

export function encodeManifestList(
  manifests: ManifestFile[],
  snapshot: { snapshotId: number; parentSnapshotId: number | null; sequenceNumber: number },
): Promise<Buffer> {
  return encodeFile(manifestFileSchema, manifests, {
    'snapshot-id': String(snapshot.snapshotId),
    'parent-snapshot-id': String(snapshot.parentSnapshotId ?? 'null'),
    'sequence-number': String(snapshot.sequenceNumber),
    'format-version': '2',
  });
}

const asNumber = (value: unknown) => (typeof value === 'number' ? value : Number(value));
const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value)) : {};
const asBuffer = (value: unknown) => (Buffer.isBuffer(value) ? value : null);
const asNullableNumber = (value: unknown) => (value === null || value === undefined ? null : asNumber(value));

/** A manifest list's entries, as this library wrote them (another writer's fields beyond these are dropped). */
export async function decodeManifestList(bytes: Buffer): Promise<ManifestFile[]> {
  return (await decodeFile(bytes)).records.map((value) => {
    const record = asRecord(value);
    const partitions = Array.isArray(record.partitions) ? record.partitions : null;
    return {
      manifest_path: String(record.manifest_path),
      manifest_length: asNumber(record.manifest_length),
      partition_spec_id: asNumber(record.partition_spec_id),
      content: asNumber(record.content),
      sequence_number: asNumber(record.sequence_number),
      min_sequence_number: asNumber(record.min_sequence_number),
      added_snapshot_id: asNumber(record.added_snapshot_id),
      added_files_count: asNumber(record.added_files_count),
      existing_files_count: asNumber(record.existing_files_count),
      deleted_files_count: asNumber(record.deleted_files_count),
      added_rows_count: asNumber(record.added_rows_count),
      existing_rows_count: asNumber(record.existing_rows_count),
      deleted_rows_count: asNumber(record.deleted_rows_count),
      partitions:
        partitions?.map((summary) => {
          const fields = asRecord(summary);
          return {
            contains_null: fields.contains_null === true,
            contains_nan: typeof fields.contains_nan === 'boolean' ? fields.contains_nan : null,
            lower_bound: asBuffer(fields.lower_bound),
            upper_bound: asBuffer(fields.upper_bound),
          };
        }) ?? null,
      key_metadata: asBuffer(record.key_metadata),
    };
  });
}

/** A manifest's entries, as this library wrote them. */
export async function decodeManifest(bytes: Buffer): Promise<ManifestEntry[]> {
  return (await decodeFile(bytes)).records.map((value) => {
    const record = asRecord(value);
    const file = asRecord(record.data_file);
    const partition = asRecord(file.partition);
    return {
      status: asNumber(record.status),
      snapshot_id: asNullableNumber(record.snapshot_id),
      sequence_number: asNullableNumber(record.sequence_number),
      file_sequence_number: asNullableNumber(record.file_sequence_number),
      data_file: {
        content: asNumber(file.content),
        file_path: String(file.file_path),
        file_format: String(file.file_format),
        partition: Object.fromEntries(
          Object.entries(partition).map(([key, v]) => [key, typeof v === 'string' ? v : null]),
        ),
        record_count: asNumber(file.record_count),
        file_size_in_bytes: asNumber(file.file_size_in_bytes),
      },
    };
  });
}
