/**
 * Environment configuration. Every value is read once, on first use, and a missing required
 * value fails the cold start loudly instead of surfacing later as an obscure SDK error.
 * The CDK stack sets these per function; the local runtime sets them for the whole process.
 */

import { queues } from './topology.ts';

function lazy<T>(read: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    if (value === undefined) value = { v: read() };
    return value.v;
  };
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${name} is required but not set`);
  }
  return value;
}

/**
 * The numbers a setting may take: whole ones from `min` to `max` (any number between them when
 * `fractional`), and of those only divisors of `divides` when it is set.
 */
export interface Bounds {
  min: number;
  max: number;
  fractional?: boolean;
  divides?: number;
}

/**
 * A number from the environment: `fallback` when unset or empty, else a number within `bounds`. Any
 * other value fails at once, naming the variable, what it takes and what it was given: a bare
 * Number() read "5m" as NaN, and a schedule of NaN seconds ran back to back.
 */
export function numberEnv(
  name: string,
  fallback: number,
  bounds: Bounds,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  const whole = bounds.fractional !== true;
  if (
    !Number.isFinite(value) ||
    value < bounds.min ||
    value > bounds.max ||
    (whole && !Number.isInteger(value)) ||
    (bounds.divides !== undefined && bounds.divides % value !== 0)
  ) {
    const range = `${bounds.min.toLocaleString('en-US')} to ${bounds.max.toLocaleString('en-US')}`;
    const divisor = bounds.divides === undefined ? '' : ` that divides ${bounds.divides.toLocaleString('en-US')}`;
    throw new Error(
      `Environment variable ${name} must be a ${whole ? 'whole number' : 'number'} from ${range}${divisor}, got "${raw}"`,
    );
  }
  return value;
}

export function boolEnv(name: string, fallback: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === 'true' || raw === '1';
}

/**
 * How long staged envelopes wait at most before their table commits them, unless the table sets
 * `tributary.freshness`: the deployment's default (the stack's tableFreshnessSeconds context value,
 * TABLE_FRESHNESS_SECONDS locally). Chosen from `npm run bench cost`: for 1,000 quiet connections
 * (Zipf rates, 20 events/s in all) 10 minutes makes 0.062 commits per event and 16 rows per file, where
 * 5 minutes makes 0.100 and 10 (and costs 11 % more per event); 15 minutes saves another 5 % for rows
 * 5 minutes later. Accepted events are listed (pending) at once whatever the target.
 */
export const defaultFreshnessSeconds = 600;

/** How often an ingest instance writes its own counts (each envelope carries a receipt of them meanwhile). */
export const defaultCounterFlushSeconds = 300;

/**
 * The service's numeric settings (docs/settings.md), each with its default and what it may be: every
 * function reads them through `setting`, and local mode checks every one set at start, so that a
 * bad value stops the start rather than the first request that reads it.
 */
export const numericSettings = {
  TABLE_FRESHNESS_SECONDS: { fallback: defaultFreshnessSeconds, min: 0, max: 86_400 },
  DATA_RETENTION_DAYS: { fallback: 0, min: 0, max: 36_500 },
  /** API Gateway hands Lambda a body base64-encoded within 6 MB: 4 MiB at most. */
  INGEST_MAX_BYTES: { fallback: 1024 * 1024, min: 1, max: 4 * 1024 * 1024 },
  /** A queue message whole (the envelope, its body base64-encoded) within SQS's 256 KiB. */
  INGEST_INLINE_MAX_BYTES: { fallback: 240 * 1024, min: 1024, max: 256 * 1024 },
  INGEST_CACHE_SECONDS: { fallback: 2, min: 0, max: 3600 },
  REJECTIONS_PER_SOURCE: { fallback: 1000, min: 1, max: 100_000 },
  /** Within a quarter hour: an epoch's counts must be written before the upkeep settles it. */
  COUNTER_FLUSH_SECONDS: { fallback: defaultCounterFlushSeconds, min: 1, max: 900 },
  /** The index's windows tile the quarter hour (shared/adapters/dynamo/counters.ts). */
  COUNTER_WINDOW_SECONDS: { fallback: 300, min: 1, max: 900, divides: 900 },
  JOB_LEASE_SECONDS: { fallback: 60, min: 1, max: 900 },
  /** SQS's visibility timeouts: 0 to 12 hours. */
  COMMIT_RETRY_SECONDS: { fallback: queues.commits.visibilityTimeoutSeconds, min: 0, max: 43_200 },
  /** Eight times it must stay within SQS's 12-hour visibility timeout. */
  WRITER_BACKOFF_SECONDS: { fallback: 30, min: 0, max: 5400 },
  HEALTH_MAX_AGE_SECONDS: { fallback: 10, min: 0, max: 10 },
} as const satisfies Record<string, Bounds & { fallback: number }>;
export type NumericSetting = keyof typeof numericSettings;

export function setting(name: NumericSetting, env: NodeJS.ProcessEnv = process.env): number {
  const { fallback, ...bounds } = numericSettings[name];
  return numberEnv(name, fallback, bounds, env);
}

/**
 * The deployment's data retention for tables that set no `tributary.dataRetention`: whole days
 * (DATA_RETENTION_DAYS, the stack's dataRetentionDays context value); unset or 0, rows are kept.
 */
export function dataRetentionMs(env: NodeJS.ProcessEnv = process.env): number | null {
  const days = setting('DATA_RETENTION_DAYS', env);
  return days === 0 ? null : days * 86_400_000;
}

/** A comma-separated setting's entries, trimmed; none when unset. */
function listSetting(name: string): string[] {
  return (process.env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export const config = {
  tableFreshnessMs: lazy(() => setting('TABLE_FRESHNESS_SECONDS') * 1000),
  dataRetentionMs: lazy(() => dataRetentionMs()),
  /** How long a table whose staged commit failed waits before the next attempt: the commits queue's visibility timeout. */
  commitRetryMs: lazy(() => setting('COMMIT_RETRY_SECONDS') * 1000),
  /**
   * The first wait of a writer batch's records after it could not be staged (WRITER_BACKOFF_SECONDS,
   * default 30; it doubles with each receive up to eight times this: shared/domain/ingest/write-batch.ts).
   */
  writerBackoffSeconds: lazy(() => setting('WRITER_BACKOFF_SECONDS')),
  tableName: lazy(() => requiredEnv('TABLE_NAME')),
  platformBucket: lazy(() => requiredEnv('PLATFORM_BUCKET')),
  /** Path-style S3 addressing by default (S3-compatible stores such as the local one). */
  s3ForcePathStyle: lazy(() => boolEnv('S3_FORCE_PATH_STYLE', false)),
  queueUrl: (envName: string) => requiredEnv(envName),
  /**
   * What the function does with tenants' stores, as it declares (TENANT_STORES_ACCESS, set by the
   * stack and by local mode from the template): only a function that declares it writes opens store
   * sessions that may write. Unset, or anything else: read-only, so a function that forgot to
   * declare its access cannot write by default.
   */
  tenantStoreAccess: (): 'read' | 'readWrite' =>
    process.env.TENANT_STORES_ACCESS === 'readWrite' ? 'readWrite' : 'read',
  /** The platform's own role for tenant buckets (the stack's, for this function's access); unset locally. */
  tenantBucketRole: () => process.env.TENANT_BUCKET_ROLE_ARN || undefined,
  /**
   * The buckets the platform reaches with its own role for tenants' stores (TENANT_BUCKETS: the
   * deployment's tenantBuckets, set by the stack for the functions that register stores; in local
   * mode the template's, from LOCAL_BUCKETS). A store without keys or a role must sit in one of them.
   * Read at every use: none when unset.
   */
  tenantBuckets: () => listSetting('TENANT_BUCKETS'),
  /**
   * Custom object store endpoints the deployment accepts (host patterns, see endpointAllowed in
   * shared/domain/tenants/object-stores.ts). Read at every use: none when unset.
   */
  allowedStoreEndpoints: () => listSetting('ALLOWED_STORE_ENDPOINTS'),
};
