/**
 * Local mode settings, all from the environment (docs/settings.md lists them). Defaults match the contract:
 * PORT 3000, DynamoDB 8000, S3 4569, SQS 9324, state under .data/.
 */
import path from 'node:path';
import { boolEnv, type NumericSetting, numberEnv, numericSettings, setting } from '#shared/config.ts';
import { defaultAccountConcurrency } from './deploy/concurrency.ts';

export interface LocalSettings {
  port: number;
  host: string;
  dataDir: string;
  dynamodbPort: number;
  s3Port: number;
  sqsPort: number;
  /** DynamoDB Local keeps its tables in memory, not under DATA_DIR: nothing of the table survives a stop. */
  dynamodbInMemory: boolean;
  buckets: string[];
  tableName: string;
  platformBucket: string;
  /** The queue consumers' batching window, in place of the template's (LOCAL_BATCH_WINDOW_SECONDS). */
  batchWindowSeconds: number | null;
  visibilityTimeoutSeconds: number;
  /** How long a graceful stop waits for accepted envelopes to be written before it keeps them on disk. */
  drainTimeoutSeconds: number;
  /** Concurrent pollers per queue consumer (Lambda would scale these out). */
  pollersPerConsumer: number;
  /** Seconds between runs of scheduled functions (EventBridge rules on AWS). */
  scheduleSecondsOverride: number | null;
  logLevel: string;
  /** Custom tenant store endpoints the functions accept (default: loopback, where the stand-ins live). */
  allowedStoreEndpoints: string;
  /** The Lambda account concurrency the functions' reservations are checked against (LOCAL_ACCOUNT_CONCURRENCY). */
  accountConcurrency: number;
}

/** Every local setting, and the functions' numeric ones checked: a value out of its range fails here, naming it. */
export function readLocalSettings(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  const list = (value: string | undefined, fallback: string[]) =>
    value === undefined || value.trim() === ''
      ? fallback
      : value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
  const port = (name: string, fallback: number) => numberEnv(name, fallback, { min: 1, max: 65_535 }, env);
  // Unset: the template's own (the consumers' batching windows, each schedule's rate).
  const unlessUnset = (name: string, bounds: { min: number; max: number }) =>
    env[name] === undefined || env[name]?.trim() === '' ? null : numberEnv(name, 0, bounds, env);
  const settings: LocalSettings = {
    port: port('PORT', 3000),
    host: env.HOST ?? '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR ?? '.data'),
    dynamodbPort: port('LOCAL_DYNAMODB_PORT', 8000),
    s3Port: port('LOCAL_S3_PORT', 4569),
    sqsPort: port('LOCAL_SQS_PORT', 9324),
    dynamodbInMemory: boolEnv('LOCAL_DYNAMODB_IN_MEMORY', false, env),
    buckets: list(env.LOCAL_BUCKETS, ['demo-bucket']),
    tableName: env.TABLE_NAME ?? 'tributary',
    platformBucket: env.PLATFORM_BUCKET ?? 'tributary-platform',
    // Lambda's batching windows: up to 300 s; SQS's visibility timeouts: up to 12 hours.
    batchWindowSeconds: unlessUnset('LOCAL_BATCH_WINDOW_SECONDS', { min: 0, max: 300 }),
    visibilityTimeoutSeconds: numberEnv('LOCAL_VISIBILITY_TIMEOUT_SECONDS', 10, { min: 0, max: 43_200 }, env),
    drainTimeoutSeconds: numberEnv('LOCAL_DRAIN_TIMEOUT_SECONDS', 30, { min: 0, max: 3600 }, env),
    // 0: no consumer polls (what is accepted waits in the queues), as with a disabled event source mapping.
    pollersPerConsumer: numberEnv('LOCAL_POLLERS_PER_CONSUMER', 2, { min: 0, max: 1000 }, env),
    scheduleSecondsOverride: unlessUnset('LOCAL_SCHEDULE_SECONDS', { min: 1, max: 3600 }),
    logLevel: env.LOG_LEVEL ?? env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    allowedStoreEndpoints: env.ALLOWED_STORE_ENDPOINTS ?? 'loopback',
    accountConcurrency: numberEnv(
      'LOCAL_ACCOUNT_CONCURRENCY',
      defaultAccountConcurrency,
      { min: 1, max: 1_000_000 },
      env,
    ),
  };
  // The functions' own settings reach every function: checked here, so that a bad one stops the start.
  for (const name of functionSettingNames) if (name in numericSettings) setting(name as NumericSetting, env);
  return settings;
}

/**
 * The service's own settings (README, Settings) a function reads from its environment. On AWS the
 * stack sets some of them from context values; locally each one set in the environment reaches
 * every function, beside the template's variables. Local mode sets COMMIT_RETRY_SECONDS itself, to the
 * queues' visibility timeout (LOCAL_VISIBILITY_TIMEOUT_SECONDS, local/runtime.ts), and hands it on here.
 */
export const functionSettingNames = [
  'TABLE_FRESHNESS_SECONDS',
  'DATA_RETENTION_DAYS',
  'INGEST_MAX_BYTES',
  'INGEST_INLINE_MAX_BYTES',
  'INGEST_CACHE_SECONDS',
  'REJECTIONS_PER_SOURCE',
  'COUNTER_FLUSH_SECONDS',
  'COUNTER_WINDOW_SECONDS',
  'JOB_LEASE_SECONDS',
  'COMMIT_RETRY_SECONDS',
  'WRITER_BACKOFF_SECONDS',
  'HEALTH_MAX_AGE_SECONDS',
  'PUBLIC_BASE_URL',
  'DASHBOARD_URL',
  'DASHBOARD_TOKEN',
] as const;

export function functionSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    functionSettingNames.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name] as string]])),
  );
}
