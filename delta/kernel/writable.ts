/**
 * Whether Tributary may commit to a table as its log describes it now. Another writer may have
 * upgraded the protocol or changed the schema since Tributary's last commit; writing anyway would
 * corrupt the table for the readers that rely on what changed (PROTOCOL.md, "Table Features",
 * "Protocol Evolution"). Which features Tributary honours, and how, is features.ts; the refusal
 * names what is in the way and what the tenant can do.
 */
import { TableNotWritable } from '../errors.ts';
import { writeSupport } from './features.ts';
import type { TableMetadata } from './log.ts';
import type { TableState } from './snapshot.ts';

/**
 * Throws TableNotWritable when the table's protocol needs a feature Tributary does not implement,
 * or (for an append of rows in `expects`' schema) when the table no longer takes those rows.
 */
export function assertWritable(state: Pick<TableState, 'protocol' | 'metadata'>, expects?: TableMetadata): void {
  const support = writeSupport(
    state.protocol,
    state.metadata,
    expects ? { schema: expects.schema, partitionColumns: expects.partitionColumns } : {},
  );
  if (support.ok) return;
  const schemaOnly = support.unsupported.every((name) => name === 'schema');
  throw new TableNotWritable(
    schemaOnly ? 'TABLE_SCHEMA_INCOMPATIBLE' : 'TABLE_PROTOCOL_UNSUPPORTED',
    support.message,
    support.unsupported.filter((name) => name !== 'schema'),
  );
}
