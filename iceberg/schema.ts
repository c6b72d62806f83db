/**
 * A Delta table's schema as an Iceberg schema (spec "Schemas and Data Types"): each top-level
 * column a field with a positive id, kept by name across schema changes so that a column keeps its
 * id; the identity partition spec on the Delta partition columns; and the name mapping
 * (`schema.name-mapping.default`) that lets readers find columns in Parquet files written without
 * Iceberg field ids.
 */

export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: string;
}

export interface IcebergSchema {
  type: 'struct';
  'schema-id': number;
  fields: IcebergField[];
}

export interface PartitionField {
  name: string;
  transform: 'identity';
  'source-id': number;
  'field-id': number;
}

export interface PartitionSpec {
  'spec-id': number;
  fields: PartitionField[];
}

/** Delta primitive types and the Iceberg type each is read as (Delta timestamps are UTC instants). */
const icebergTypes: Record<string, string> = {
  string: 'string',
  binary: 'binary',
  long: 'long',
  integer: 'int',
  short: 'int',
  byte: 'int',
  double: 'double',
  float: 'float',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'timestamptz',
  timestamp_ntz: 'timestamp',
};

/** Iceberg's partition field ids start at 1000 (spec "Partition Specs"). */
export const firstPartitionFieldId = 1000;

export interface DeltaColumn {
  name: string;
  type: unknown;
  nullable: boolean;
}

/** The columns of a Delta `schemaString`, or a reason Iceberg cannot express them. */
export function deltaColumns(schemaString: string): { columns: DeltaColumn[] } | { unsupported: string } {
  const parsed: unknown = JSON.parse(schemaString);
  const fields = typeof parsed === 'object' && parsed !== null && 'fields' in parsed ? parsed.fields : null;
  if (!Array.isArray(fields)) return { unsupported: 'a schema without columns' };
  const columns: DeltaColumn[] = [];
  for (const field of fields) {
    const name = typeof field?.name === 'string' ? field.name : null;
    if (name === null) return { unsupported: 'a column without a name' };
    if (typeof field.type !== 'string' || !(field.type in icebergTypes))
      return { unsupported: `column ${name} of a type Tributary does not mirror (${describeType(field.type)})` };
    columns.push({ name, type: field.type, nullable: field.nullable !== false });
  }
  return { columns };
}

const describeType = (type: unknown) =>
  typeof type === 'string'
    ? type
    : typeof type === 'object' && type !== null && 'type' in type
      ? String(type.type)
      : '?';

/**
 * The Iceberg schema of these columns: a column the previous schema has keeps its id, a new one
 * gets the next id after `lastColumnId`. The schema id is the previous one's when nothing changed.
 */
export function icebergSchema(
  columns: DeltaColumn[],
  previous: { schema: IcebergSchema; lastColumnId: number } | null,
): { schema: IcebergSchema; lastColumnId: number } {
  let lastColumnId = previous?.lastColumnId ?? 0;
  const known = new Map((previous?.schema.fields ?? []).map((field) => [field.name, field.id]));
  const fields = columns.map((column) => ({
    id: known.get(column.name) ?? ++lastColumnId,
    name: column.name,
    required: !column.nullable,
    type: icebergTypes[String(column.type)] ?? 'string',
  }));
  const same =
    previous !== null && JSON.stringify(previous.schema.fields) === JSON.stringify(fields)
      ? previous.schema['schema-id']
      : null;
  const schemaId = same ?? (previous ? previous.schema['schema-id'] + 1 : 0);
  return { schema: { type: 'struct', 'schema-id': schemaId, fields }, lastColumnId };
}

/** The identity partition spec on the Delta partition columns (each must be a column of the schema). */
export function identitySpec(schema: IcebergSchema, partitionColumns: string[]): PartitionSpec {
  return {
    'spec-id': 0,
    fields: partitionColumns.map((name, i) => {
      const source = schema.fields.find((field) => field.name === name);
      if (!source) throw new Error(`partition column ${name} is not a column of the schema`);
      return { name, transform: 'identity', 'source-id': source.id, 'field-id': firstPartitionFieldId + i };
    }),
  };
}

/** `schema.name-mapping.default`: each field id with the column name Parquet files hold it under. */
export function nameMapping(schema: IcebergSchema): string {
  return JSON.stringify(schema.fields.map((field) => ({ 'field-id': field.id, names: [field.name] })));
}
