/**
 * Delta Lake transaction log actions (protocol: github.com/delta-io/delta/blob/master/PROTOCOL.md).
 * A commit is a JSON-lines file `_delta_log/<version, 20 digits>.json`; version 0 also carries the
 * protocol and the table metadata. Tributary only ever appends (blind appends of new files).
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
  dataChange: true;
  stats: FileStats;
}

export interface TableMetadata {
  tableId: string;
  name: string;
  schema: DeltaSchema;
  partitionColumns: string[];
  createdTime: number;
}

export function logFileName(version: number): string {
  return `_delta_log/${String(version).padStart(20, '0')}.json`;
}

export function commitContent(input: {
  version: number;
  metadata: TableMetadata;
  adds: AddFile[];
  timestamp: number;
  operation: 'WRITE';
}): string {
  const actions: unknown[] = [
    {
      commitInfo: {
        timestamp: input.timestamp,
        operation: input.operation,
        operationParameters: { mode: 'Append', partitionBy: JSON.stringify(input.metadata.partitionColumns) },
        isBlindAppend: true,
        engineInfo: 'Tributary',
      },
    },
  ];
  if (input.version === 0) {
    actions.push(
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      {
        metaData: {
          id: input.metadata.tableId,
          name: input.metadata.name,
          format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify(input.metadata.schema),
          partitionColumns: input.metadata.partitionColumns,
          configuration: {},
          createdTime: input.metadata.createdTime,
        },
      },
    );
  }
  for (const add of input.adds) actions.push({ add: { ...add, stats: JSON.stringify(add.stats) } });
  return `${actions.map((action) => JSON.stringify(action)).join('\n')}\n`;
}
