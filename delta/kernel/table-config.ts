/**
 * The table properties Tributary honours, read from the table's metaData.configuration (Delta's own
 * names where Delta has one). Anything unset takes the protocol's default.
 */
import { InvalidTableProperties } from '../errors.ts';

export interface TableProperties {
  /** A checkpoint every this many versions (`delta.checkpointInterval`, default 10). */
  checkpointInterval: number;
  /** Removed files stay this long for readers of older snapshots (`delta.deletedFileRetentionDuration`, 7 days). */
  deletedFileRetentionMs: number;
  /** Commits and checkpoints stay this long for time travel (`delta.logRetentionDuration`, 30 days). */
  logRetentionMs: number;
  /** OPTIMIZE writes files of about this size (`delta.targetFileSize`, 128 MiB). */
  targetFileSize: number;
  /** Scheduled maintenance compacts a day only when it has this many small files (`tributary.optimize.minFiles`, 50). */
  optimizeMinFiles: number;
  /**
   * Staged rows are committed at the latest this long after they arrived (`tributary.freshness`);
   * null: the deployment's default (TABLE_FRESHNESS_SECONDS).
   */
  freshnessMs: number | null;
  /**
   * Whole day partitions older than this are removed by maintenance (`tributary.dataRetention`);
   * null: the deployment's default (DATA_RETENTION_DAYS), and without one the rows are kept.
   */
  dataRetentionMs: number | null;
}

const day = 86_400_000;

export const defaultTableProperties: TableProperties = {
  checkpointInterval: 10,
  deletedFileRetentionMs: 7 * day,
  logRetentionMs: 30 * day,
  targetFileSize: 128 * 1024 * 1024,
  optimizeMinFiles: 50,
  freshnessMs: null,
  dataRetentionMs: null,
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

function positiveInteger(text: string): number | null {
  return /^\d{1,15}$/.test(text) && Number(text) > 0 ? Number(text) : null;
}

/** Each settable property: how to read it, and the smallest value that keeps the table safe to read. */
export const settableProperties = {
  'delta.checkpointInterval': { parse: positiveInteger, min: 1, max: 1000 },
  'delta.deletedFileRetentionDuration': { parse: parseInterval, min: 3_600_000, max: 3650 * day },
  'delta.logRetentionDuration': { parse: parseInterval, min: day, max: 3650 * day },
  'delta.targetFileSize': { parse: positiveInteger, min: 1024 * 1024, max: 1024 * 1024 * 1024 },
  'tributary.optimize.minFiles': { parse: positiveInteger, min: 2, max: 100_000 },
  'tributary.freshness': { parse: parseInterval, min: 0, max: day },
  // A day partition is the unit removed, so less than a day would mean nothing more; 100 years is "keep".
  'tributary.dataRetention': { parse: parseInterval, min: day, max: 36_500 * day },
} as const;

export type SettableProperty = keyof typeof settableProperties;

/**
 * A property without a protocol default: its value, or null when unset or unreadable. A value
 * another writer set beyond the bounds is held to them (a retention of an hour is taken as a day).
 */
function optional(configuration: Record<string, string>, key: SettableProperty): number | null {
  const raw = configuration[key];
  const value = raw === undefined ? null : settableProperties[key].parse(raw);
  const { min, max } = settableProperties[key];
  return value === null ? null : Math.min(max, Math.max(min, value));
}

export function tableProperties(configuration: Record<string, string>): TableProperties {
  const read = (key: SettableProperty, fallback: number) => {
    const raw = configuration[key];
    const value = raw === undefined ? null : settableProperties[key].parse(raw);
    return value ?? fallback;
  };
  return {
    checkpointInterval: read('delta.checkpointInterval', defaultTableProperties.checkpointInterval),
    deletedFileRetentionMs: read('delta.deletedFileRetentionDuration', defaultTableProperties.deletedFileRetentionMs),
    logRetentionMs: read('delta.logRetentionDuration', defaultTableProperties.logRetentionMs),
    targetFileSize: read('delta.targetFileSize', defaultTableProperties.targetFileSize),
    optimizeMinFiles: read('tributary.optimize.minFiles', defaultTableProperties.optimizeMinFiles),
    freshnessMs: configuration['tributary.freshness'] === undefined ? null : read('tributary.freshness', 0),
    dataRetentionMs: optional(configuration, 'tributary.dataRetention'),
  };
}

/** Checks properties a writer wants to set: known names, readable values in bounds (else InvalidTableProperties). */
export function validateProperties(properties: Record<string, string>): Record<string, string> {
  const issues: { property: string; message: string }[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const spec = settableProperties[key as SettableProperty];
    if (!spec) {
      issues.push({
        property: key,
        message: `Not a property Tributary sets; one of ${Object.keys(settableProperties).join(', ')}`,
      });
      continue;
    }
    const parsed = spec.parse(value);
    if (parsed === null || parsed < spec.min || parsed > spec.max)
      issues.push({ property: key, message: `Out of range or unreadable: ${value.slice(0, 64)}` });
  }
  if (issues.length > 0) throw new InvalidTableProperties(issues);
  return properties;
}
