/**
 * Whether Tributary may commit to a table as its log describes it now. Another writer may have
 * upgraded the protocol or changed the schema since Tributary's last commit; writing anyway would
 * corrupt the table for the readers that rely on what changed (PROTOCOL.md, "Table Features",
 * "Protocol Evolution"). The refusal names what is in the way and what the tenant can do.
 */
import { DomainError } from '../errors.ts';
import { writeSupport } from './features.ts';
import type { Protocol, TableMetadata } from './log.ts';
import type { TableState } from './snapshot.ts';

export class TableNotWritable extends DomainError {
  constructor(
    code: 'TABLE_PROTOCOL_UNSUPPORTED' | 'TABLE_SCHEMA_INCOMPATIBLE',
    message: string,
    readonly unsupported: string[] = [],
  ) {
    super(
      code,
      message,
      unsupported.map((feature) => ({ path: 'table.protocol', message: feature })),
    );
    this.name = 'TableNotWritable';
  }
}

interface SchemaField {
  name: string;
  type: unknown;
  nullable?: boolean;
}

function fieldsOf(schemaString: string): SchemaField[] {
  try {
    const schema = JSON.parse(schemaString) as { fields?: SchemaField[] };
    return Array.isArray(schema.fields) ? schema.fields : [];
  } catch {
    return [];
  }
}

/**
 * Throws TableNotWritable when the table's protocol needs a feature Tributary does not implement,
 * or (for an append) when the table no longer accepts rows of `expects`: one of its columns is gone
 * or changed type, a column it lacks is required, or its partitioning changed.
 */
export function assertWritable(state: Pick<TableState, 'protocol' | 'metadata'>, expects?: TableMetadata): void {
  if (state.protocol) {
    const support = writeSupport(state.protocol as Protocol, state.metadata);
    if (!support.ok) throw new TableNotWritable('TABLE_PROTOCOL_UNSUPPORTED', support.message, support.unsupported);
  }
  if (!expects || !state.metadata) return;
  const current = fieldsOf(state.metadata.schemaString);
  const byName = new Map(current.map((field) => [field.name, field]));
  const problems: string[] = [];
  for (const field of expects.schema.fields) {
    const found = byName.get(field.name);
    if (!found) problems.push(`column ${field.name} is gone`);
    else if (JSON.stringify(found.type) !== JSON.stringify(field.type))
      problems.push(`column ${field.name} is now ${JSON.stringify(found.type)}, not ${field.type}`);
  }
  const ours = new Set([...expects.schema.fields.map((field) => field.name), ...expects.partitionColumns]);
  for (const field of current)
    if (!ours.has(field.name) && field.nullable === false) problems.push(`column ${field.name} is required`);
  if (JSON.stringify(state.metadata.partitionColumns) !== JSON.stringify(expects.partitionColumns))
    problems.push(`the table is partitioned by ${JSON.stringify(state.metadata.partitionColumns)}`);
  if (problems.length > 0)
    throw new TableNotWritable(
      'TABLE_SCHEMA_INCOMPATIBLE',
      `Another writer changed the table so that Tributary's rows no longer fit (${problems.join('; ')}). ` +
        'Restore the columns, then redrive the failed deliveries.',
    );
}
