/**
 * The table properties the library itself honours, read from the table's metaData.configuration
 * under Delta's own names; anything unset takes the protocol's default. An application's own
 * properties live in the same configuration: the library keeps them as they are and reads none.
 */

export interface TableConfig {
  /** A checkpoint every this many versions (`delta.checkpointInterval`, default 10). */
  checkpointInterval: number;
  /** Removed files stay this long for readers of older snapshots (`delta.deletedFileRetentionDuration`, 7 days). */
  deletedFileRetentionMs: number;
  /** Commits and checkpoints stay this long for time travel (`delta.logRetentionDuration`, 30 days). */
  logRetentionMs: number;
  /** OPTIMIZE writes files of about this size (`delta.targetFileSize`, 128 MiB). */
  targetFileSize: number;
}

const day = 86_400_000;

export const defaultTableConfig: TableConfig = {
  checkpointInterval: 10,
  deletedFileRetentionMs: 7 * day,
  logRetentionMs: 30 * day,
  targetFileSize: 128 * 1024 * 1024,
};

const unitMs: Record<string, number> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day,
  week: 7 * day,
};

/** Delta's interval syntax: `interval 7 days`, `interval 1 week`, `interval 36 hours`. */
export function parseInterval(text: string): number | null {
  const match = /^\s*(?:interval\s+)?(\d+)\s+(millisecond|second|minute|hour|day|week)s?\s*$/i.exec(text);
  if (!match) return null;
  return Number(match[1]) * (unitMs[(match[2] as string).toLowerCase()] as number);
}

/** A positive whole number as a property holds it (`delta.checkpointInterval`, `delta.targetFileSize`). */
export function parsePositiveInteger(text: string): number | null {
  return /^\d{1,15}$/.test(text) && Number(text) > 0 ? Number(text) : null;
}

/** How each of Delta's properties the library honours reads. */
export const deltaProperties = {
  'delta.checkpointInterval': parsePositiveInteger,
  'delta.deletedFileRetentionDuration': parseInterval,
  'delta.logRetentionDuration': parseInterval,
  'delta.targetFileSize': parsePositiveInteger,
} as const;

export type DeltaProperty = keyof typeof deltaProperties;

/** The configuration's value of a property, read; null when unset or unreadable. */
export function readProperty(
  configuration: Record<string, string>,
  key: string,
  parse: (text: string) => number | null,
): number | null {
  const raw = configuration[key];
  return raw === undefined ? null : parse(raw);
}

export function tableConfig(configuration: Record<string, string>): TableConfig {
  const read = (key: DeltaProperty, fallback: number) =>
    readProperty(configuration, key, deltaProperties[key]) ?? fallback;
  return {
    checkpointInterval: read('delta.checkpointInterval', defaultTableConfig.checkpointInterval),
    deletedFileRetentionMs: read('delta.deletedFileRetentionDuration', defaultTableConfig.deletedFileRetentionMs),
    logRetentionMs: read('delta.logRetentionDuration', defaultTableConfig.logRetentionMs),
    targetFileSize: read('delta.targetFileSize', defaultTableConfig.targetFileSize),
  };
}
