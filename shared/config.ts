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

export function intEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`Environment variable ${name} must be a number, got "${raw}"`);
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
 * The deployment's data retention for tables that set no `tributary.dataRetention`: whole days
 * (DATA_RETENTION_DAYS, the stack's dataRetentionDays context value); unset or 0, rows are kept.
 */
export function dataRetentionMs(env: NodeJS.ProcessEnv = process.env): number | null {
  const days = intEnv('DATA_RETENTION_DAYS', 0, env);
  if (!Number.isInteger(days) || days < 0 || days > 36_500)
    throw new Error(
      `Environment variable DATA_RETENTION_DAYS must be a whole number of days from 0 to 36500, got "${days}"`,
    );
  return days === 0 ? null : days * 86_400_000;
}

export const config = {
  tableFreshnessMs: lazy(() => intEnv('TABLE_FRESHNESS_SECONDS', defaultFreshnessSeconds) * 1000),
  dataRetentionMs: lazy(() => dataRetentionMs()),
  /** How long a table whose staged commit failed waits before the next attempt: the commits queue's visibility timeout. */
  commitRetryMs: lazy(() => intEnv('COMMIT_RETRY_SECONDS', queues.commits.visibilityTimeoutSeconds) * 1000),
  /**
   * The first wait of a writer batch's records after it could not be staged (WRITER_BACKOFF_SECONDS,
   * default 30; it doubles with each receive up to eight times this: shared/domain/ingest/write-batch.ts).
   */
  writerBackoffSeconds: lazy(() => {
    const seconds = intEnv('WRITER_BACKOFF_SECONDS', 30);
    // Eight times it must stay within SQS's 12-hour visibility timeout.
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 5400)
      throw new Error(
        `Environment variable WRITER_BACKOFF_SECONDS must be a whole number from 0 to 5400, got "${seconds}"`,
      );
    return seconds;
  }),
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
   * Custom object store endpoints the deployment accepts (host patterns, see endpointAllowed in
   * shared/domain/tenants/object-stores.ts). Read at every use: none when unset.
   */
  allowedStoreEndpoints: () =>
    (process.env.ALLOWED_STORE_ENDPOINTS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
};
