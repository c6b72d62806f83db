/**
 * The table properties a data set's table honours: Delta's own (read by the Delta library, with
 * the bounds Tributary lets a tenant set them within) and Tributary's (`tributary.*`: compaction,
 * freshness, data retention), all kept in the table's metaData.configuration. Anything unset takes
 * its default.
 */
import {
  defaultTableConfig,
  parseInterval,
  parsePositiveInteger,
  readProperty,
  type TableConfig,
  tableConfig,
} from '#delta/kernel/table-config.ts';
import { invalid } from '../errors.ts';

/** The table properties in force: each one the table sets, else its default. */
export interface TableSettings extends TableConfig {
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

export const defaultTableSettings: TableSettings = {
  ...defaultTableConfig,
  optimizeMinFiles: 50,
  freshnessMs: null,
  dataRetentionMs: null,
};

/** Each settable property: how to read it, and the smallest value that keeps the table safe to read. */
export const settableProperties = {
  'delta.checkpointInterval': { parse: parsePositiveInteger, min: 1, max: 1000 },
  'delta.deletedFileRetentionDuration': { parse: parseInterval, min: 3_600_000, max: 3650 * day },
  'delta.logRetentionDuration': { parse: parseInterval, min: day, max: 3650 * day },
  'delta.targetFileSize': { parse: parsePositiveInteger, min: 1024 * 1024, max: 1024 * 1024 * 1024 },
  'tributary.optimize.minFiles': { parse: parsePositiveInteger, min: 2, max: 100_000 },
  'tributary.freshness': { parse: parseInterval, min: 0, max: day },
  // A day partition is the unit removed, so less than a day would mean nothing more; 100 years is "keep".
  'tributary.dataRetention': { parse: parseInterval, min: day, max: 36_500 * day },
} as const;

export type SettableProperty = keyof typeof settableProperties;

/**
 * A property without a default: its value, or null when unset or unreadable. A value another
 * writer set beyond the bounds is held to them (a retention of an hour is taken as a day).
 */
function bounded(configuration: Record<string, string>, key: SettableProperty): number | null {
  const { parse, min, max } = settableProperties[key];
  const value = readProperty(configuration, key, parse);
  return value === null ? null : Math.min(max, Math.max(min, value));
}

export function tableSettings(configuration: Record<string, string>): TableSettings {
  const read = (key: SettableProperty) => readProperty(configuration, key, settableProperties[key].parse);
  return {
    ...tableConfig(configuration),
    optimizeMinFiles: read('tributary.optimize.minFiles') ?? defaultTableSettings.optimizeMinFiles,
    freshnessMs: configuration['tributary.freshness'] === undefined ? null : (read('tributary.freshness') ?? 0),
    dataRetentionMs: bounded(configuration, 'tributary.dataRetention'),
  };
}

/**
 * Throws a VALIDATION_ERROR naming every property a writer may not set: unknown names, unreadable values, values out of
 * bounds. A value of "" removes the property: only the name is checked (a property another writer set, such as
 * column mapping or append-only, is theirs to remove). Names are looked up as the object's own keys, never inherited
 * ones (`constructor` is a name like any other).
 */
export function checkTableProperties(properties: Record<string, string>): void {
  const issues: { path: string; message: string }[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const spec = Object.hasOwn(settableProperties, key) ? settableProperties[key as SettableProperty] : undefined;
    if (!spec) {
      issues.push({
        path: `properties.${key}`,
        message: `Not a property Tributary sets; one of ${Object.keys(settableProperties).join(', ')}`,
      });
      continue;
    }
    if (value === '') continue;
    const parsed = spec.parse(value);
    if (parsed === null || parsed < spec.min || parsed > spec.max)
      issues.push({ path: `properties.${key}`, message: `Out of range or unreadable: ${value.slice(0, 64)}` });
  }
  if (issues.length > 0) throw invalid('Invalid table properties', issues);
}

/** How the table properties read: what the table-properties use cases are given. */
export interface TablePropertyRules {
  /** Throws a VALIDATION_ERROR (400) naming every property that is unknown, unreadable or out of its bounds. */
  check(properties: Record<string, string>): void;
  inForce(properties: Record<string, string>): TableSettings;
}

/** The rules the table-properties use cases apply. */
export const tablePropertyRules: TablePropertyRules = { check: checkTableProperties, inForce: tableSettings };
