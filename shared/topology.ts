/**
 * Queues, queue consumers and schedules: everything asynchronous, in one place. The CDK stacks and
 * the local runtime both read this module, so a queue or a consumer is declared nowhere else.
 */

export type QueueName =
  | 'ingest'
  | 'ingestDeadLetter'
  | 'commits'
  | 'commitsDeadLetter'
  | 'dashboard'
  | 'dashboardDeadLetter'
  | 'jobs'
  | 'jobsDeadLetter'
  | 'upkeep'
  | 'upkeepDeadLetter';

export interface QueueSpec {
  /** The environment variable that carries the queue URL to functions that use it. */
  envVar: string;
  /** Physical name suffix (the stack prefixes it; the local runtime uses it as is). */
  name: string;
  /** Seconds; at least six times the consumer's timeout (AWS guidance for Lambda event sources). */
  visibilityTimeoutSeconds: number;
  retentionDays: number;
  deadLetter?: { queue: QueueName; maxReceiveCount: number };
}

/**
 * The platform bucket's areas, each under its own prefix: a function is granted the areas it uses,
 * not the whole bucket.
 */
export const platformAreas = {
  /** Bodies too large for a queue message, until their envelope is written. */
  claims: 'claims/',
  /** Envelopes that exhausted their deliveries, kept whole until redriven. */
  deadLetters: 'dead-letters/',
  /** Query jobs' result rows. */
  jobResults: 'job-results/',
  /**
   * Writer batches, staged until their tables are committed (shared/domain/ingest/staging.ts): one
   * that held a single table's envelopes is removed by their committer, the bucket's lifecycle rule
   * removes the others.
   */
  staging: 'staging/',
} as const;
export type PlatformArea = keyof typeof platformAreas;

/**
 * Days after which the platform bucket's lifecycle rule removes a staged batch: longer than the
 * records that point into it are kept (shared/domain/ingest/staging.ts, recordLifetimeMs).
 */
export const stagedObjectDays = 8;

/**
 * Days the platform bucket keeps what nothing removes by itself, unless a deployment says otherwise
 * (context values `unreadableDeadLetterDays`, `jobResultDays`): dead letters that named no envelope
 * (read by an operator, never redriven) and query jobs' results (read soon after the job, if ever).
 */
export const platformExpiryDays = { unreadableDeadLetters: 30, jobResults: 7 } as const;

/** What a function may touch. The stack turns it into IAM grants and environment variables. */
export interface Access {
  table?: 'read' | 'readWrite';
  /** Deletes items (DeleteItem, a transaction's Delete, BatchWriteItem); a readWrite function without it only puts and updates. */
  deletesItems?: boolean;
  /** Describes the table (the health check). */
  describesTable?: boolean;
  /** Notes API keys' last use: set for every API-key route (a read-only one may write that attribute only). */
  recordsKeyUse?: boolean;
  queues?: Partial<Record<QueueName, 'send' | 'consume' | 'inspect'>>;
  /** The platform bucket's areas it reads (or reads, writes and deletes in); `{}`: the bucket itself only (a health check). */
  /** readDelete: reads and deletes objects (a committer removes a staged object it has committed whole). */
  platformBucket?: Partial<Record<PlatformArea, 'read' | 'readDelete' | 'readWrite'>>;
  /** Tenants' own object stores (their buckets, with their credentials or role): read only, or read, write and delete. */
  tenantStores?: 'read' | 'readWrite';
  /**
   * Checks a store's role when it is registered or changed: assumes it once without the external id
   * (a role that allows that is refused), and knows the platform's own account (whose roles are refused).
   */
  checksTenantRoles?: boolean;
  /** Seals and opens stored secrets (object store options, signing secrets, credentials). */
  secretsKey?: boolean;
  /** Issues and checks list cursors (a MAC key of its own, not the secrets key). */
  cursorKey?: boolean;
  /** Reads and replaces the bootstrap key secret (the deploy-time installer only). */
  bootstrapKey?: boolean;
  /**
   * Hands tenants' credentials to the dashboard tool: the deployment's dashboardUrl, and the secret
   * holding the tool's token (dashboardTokenSecret), when set.
   */
  dashboardTool?: boolean;
}

/**
 * Choices a deployment makes (bin/app.ts context values) that functions read from their environment.
 * `every`: every function gets it when the deployment sets it; `declared`: only functions whose
 * settings name it.
 */
export const deploymentSettings = {
  tableFreshnessSeconds: { envVar: 'TABLE_FRESHNESS_SECONDS', readBy: 'every' },
  dataRetentionDays: { envVar: 'DATA_RETENTION_DAYS', readBy: 'every' },
  ingestMaxBytes: { envVar: 'INGEST_MAX_BYTES', readBy: 'declared' },
} as const satisfies Record<string, { envVar: string; readBy: 'every' | 'declared' }>;
export type DeploymentSetting = keyof typeof deploymentSettings;

/**
 * How a function is deployed, whatever starts it (a route, a queue, a schedule, a deployment): the
 * stack builds every function from these fields in one place (lib/constructs/service-function.ts).
 */
export interface FunctionSettings {
  memoryMb?: number;
  timeoutSeconds?: number;
  /** Files (repository-relative) the bundled function reads from beside itself. */
  assets?: string[];
  /**
   * Concurrency reserved for the function, which is also its ceiling (none by default: it shares the
   * account's unreserved pool).
   */
  reservedConcurrency?: number;
  /** With the deployment's tracing on, also trace each AWS SDK call (the tracer is then bundled in). */
  tracesSdkCalls?: boolean;
  /** Deployment settings it reads beyond those every function reads. */
  settings?: DeploymentSetting[];
}

/** parquet-wasm loads its WebAssembly from beside its code: the functions that write Parquet ship it. */
export const parquetAssets = ['node_modules/parquet-wasm/node/parquet_wasm_bg.wasm'];

/**
 * The writer and the table committer: 1769 MB is one full vCPU, which the Parquet encoder (wasm,
 * single-threaded) uses. No reservation by default: Lambda refuses one that leaves an account fewer
 * than 100 unreserved executions, and a new account's quota starts far below that. A deployment's
 * reservedConcurrency context value reserves their maximum concurrency or more; without it the
 * ingest route's API Gateway throttle is what keeps an ingest flood from taking their instances.
 */
const committingFunction = {
  memoryMb: 1769,
  timeoutSeconds: 120,
  assets: parquetAssets,
  tracesSdkCalls: true,
};

export interface ConsumerSpec {
  queue: QueueName;
  entry: string;
  summary: string;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  /** Upper bound on concurrent invocations (Lambda's maximum concurrency for SQS sources, ≥ 2). */
  maxConcurrency: number;
  access: Access;
  function: FunctionSettings & { memoryMb: number; timeoutSeconds: number };
}

export type ConsumerName =
  | 'ingest-writer'
  | 'table-committer'
  | 'dead-letter-recorder'
  | 'job-runner'
  | 'dashboard-provisioner'
  | 'counter-upkeep-worker';
export type ScheduleName =
  | 'table-commits'
  | 'job-lease-sweeper'
  | 'table-maintenance'
  | 'pipeline-runs-on-new-data'
  | 'counter-upkeep';

export interface ScheduleSpec {
  entry: string;
  summary: string;
  everyMinutes: number;
  access: Access;
  function?: FunctionSettings;
  /**
   * Local mode runs it once more at a graceful stop, after the queues are drained, with
   * `detail: { stopping: true }` and this time limit in place of the function's (a Lambda deployment
   * never stops, so this has no meaning on AWS, and its function is sized for its runs there).
   */
  runsAtStop?: { timeoutSeconds: number };
}

/**
 * What Lambda accepts for an SQS event source mapping: a batch of 1 to 10,000 messages, a batching
 * window of 0 to 300 s, and a batch of more than 10 only with a window of at least 1 s. A consumer's
 * settings (and a deployment's window for it) go through here before they reach the stack: a window
 * or batch outside Lambda's ranges is refused at synth with the reason; a window of 0 (invoke as soon
 * as messages arrive, for the freshest rows) is kept and the batch made the largest Lambda allows
 * with it, 10, rather than refusing a setting that has a meaning.
 */
export function eventSourceSettings(
  spec: Pick<ConsumerSpec, 'batchSize' | 'maxBatchingWindowSeconds'>,
  windowSeconds: number = spec.maxBatchingWindowSeconds,
): { batchSize: number; windowSeconds: number } {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 0 || windowSeconds > 300)
    throw new Error(`A batching window must be a whole number of seconds from 0 to 300, got ${windowSeconds}`);
  if (!Number.isInteger(spec.batchSize) || spec.batchSize < 1 || spec.batchSize > 10_000)
    throw new Error(`A batch size must be a whole number from 1 to 10000, got ${spec.batchSize}`);
  return { batchSize: windowSeconds === 0 ? Math.min(spec.batchSize, 10) : spec.batchSize, windowSeconds };
}

/** Maximum receives before a message moves to its dead-letter queue (specification: five attempts). */
export const maxReceiveCount = 5;

export const queues: Record<QueueName, QueueSpec> = {
  ingest: {
    envVar: 'INGEST_QUEUE_URL',
    name: 'ingest',
    // Six times the writer's timeout plus the longest batching window a deployment may set (300 s),
    // as Lambda asks of a queue it polls (lib/constructs/queue-consumer.ts checks it at synth).
    visibilityTimeoutSeconds: 6 * 120 + 300,
    retentionDays: 4,
    deadLetter: { queue: 'ingestDeadLetter', maxReceiveCount },
  },
  ingestDeadLetter: {
    envVar: 'INGEST_DLQ_URL',
    name: 'ingest-dlq',
    visibilityTimeoutSeconds: 6 * 60,
    retentionDays: 14,
  },
  // One message per table to commit, delayed until the table is due (shared/domain/ingest/staging.ts).
  commits: {
    envVar: 'COMMITS_QUEUE_URL',
    name: 'commits',
    visibilityTimeoutSeconds: 6 * 120,
    retentionDays: 4,
    deadLetter: { queue: 'commitsDeadLetter', maxReceiveCount },
  },
  // A trigger whose committer crashed five times: the table stays listed as pending, and the overdue
  // check sends another (the staged rows wait, nothing is lost).
  commitsDeadLetter: {
    envVar: 'COMMITS_DLQ_URL',
    name: 'commits-dlq',
    visibilityTimeoutSeconds: 6 * 60,
    retentionDays: 14,
  },
  dashboard: {
    envVar: 'DASHBOARD_QUEUE_URL',
    name: 'dashboard',
    visibilityTimeoutSeconds: 6 * 30,
    retentionDays: 4,
    deadLetter: { queue: 'dashboardDeadLetter', maxReceiveCount },
  },
  dashboardDeadLetter: {
    envVar: 'DASHBOARD_DLQ_URL',
    name: 'dashboard-dlq',
    visibilityTimeoutSeconds: 6 * 30,
    retentionDays: 14,
  },
  // Standard, not FIFO: one pipeline's jobs are kept apart by a lease in the table, which also
  // notices a runner that died; a FIFO group would only order them.
  jobs: {
    envVar: 'JOBS_QUEUE_URL',
    name: 'jobs',
    visibilityTimeoutSeconds: 6 * 900,
    retentionDays: 4,
    deadLetter: { queue: 'jobsDeadLetter', maxReceiveCount },
  },
  jobsDeadLetter: {
    envVar: 'JOBS_DLQ_URL',
    name: 'jobs-dlq',
    visibilityTimeoutSeconds: 6 * 900,
    retentionDays: 14,
  },
  // The counters' upkeep in pieces (shared/domain/observability/counter-upkeep.ts): each a shard of a
  // settled window or of a quarter's fold. A piece that keeps failing waits in the dead-letter queue
  // (alarmed): its window's sources are read again once they move, its quarter handed out again.
  upkeep: {
    envVar: 'UPKEEP_QUEUE_URL',
    name: 'upkeep',
    visibilityTimeoutSeconds: 6 * 120,
    retentionDays: 4,
    deadLetter: { queue: 'upkeepDeadLetter', maxReceiveCount },
  },
  upkeepDeadLetter: {
    envVar: 'UPKEEP_DLQ_URL',
    name: 'upkeep-dlq',
    visibilityTimeoutSeconds: 6 * 120,
    retentionDays: 14,
  },
};

export const consumers: Record<ConsumerName, ConsumerSpec> = {
  'ingest-writer': {
    queue: 'ingest',
    entry: 'functions/ingest/write-batch.ts',
    summary: 'Stages queued envelopes, commits at once the tables they made due, and sends the others a commit trigger',
    batchSize: 1000,
    // Envelopes are listed as pending (the events view) once staged, so the window is short; how
    // often a table commits is its freshness target's business, not the window's. A window of at
    // least a second is also what Lambda requires of a batch size over 10. The
    // writerBatchingWindowSeconds context value changes it per deployment.
    maxBatchingWindowSeconds: 2,
    // A batch of 1,000 is staged in about half a second: 50 instances take 50,000 requests a second.
    maxConcurrency: 50,
    access: {
      table: 'readWrite',
      deletesItems: true,
      platformBucket: { staging: 'readWrite', claims: 'readWrite' },
      tenantStores: 'readWrite',
      secretsKey: true,
      // ingest: a batch that could not be staged defers its records (ChangeMessageVisibility).
      queues: { ingest: 'consume', ingestDeadLetter: 'send', commits: 'send' },
    },
    // One full vCPU for the Parquet encoder when the writer commits a table at once.
    function: committingFunction,
  },
  'table-committer': {
    queue: 'commits',
    entry: 'functions/ingest/commit-tables.ts',
    summary: 'Commits the table a commit trigger names once it is due; dead-letters what keeps failing',
    // A trigger is handled as soon as it arrives: a freshness target of seconds is honoured.
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    maxConcurrency: 50,
    access: {
      table: 'readWrite',
      deletesItems: true,
      platformBucket: { staging: 'readDelete', claims: 'readWrite' },
      tenantStores: 'readWrite',
      secretsKey: true,
      queues: { ingestDeadLetter: 'send', commits: 'send' },
    },
    function: committingFunction,
  },
  'dead-letter-recorder': {
    queue: 'ingestDeadLetter',
    entry: 'functions/ingest/record-dead-letters.ts',
    summary: 'Records every envelope that exhausted its deliveries as a failed delivery of its connection, kept whole',
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    maxConcurrency: 2,
    // Staging: whether a copy of the envelope still waits for its commit.
    access: { table: 'readWrite', platformBucket: { claims: 'read', deadLetters: 'readWrite', staging: 'read' } },
    function: { memoryMb: 512, timeoutSeconds: 60, tracesSdkCalls: true },
  },
  'job-runner': {
    queue: 'jobs',
    entry: 'functions/jobs/run.ts',
    summary: 'Runs queued jobs: pipeline runs into Delta tables, queries, table maintenance (and its data retention)',
    batchSize: 1,
    maxBatchingWindowSeconds: 0,
    maxConcurrency: 10,
    access: {
      table: 'readWrite',
      deletesItems: true,
      // Dead letters: the data retention deletes failed deliveries' envelopes with the table's expired days.
      platformBucket: { jobResults: 'readWrite', deadLetters: 'readWrite' },
      tenantStores: 'readWrite',
      secretsKey: true,
      queues: { jobs: 'send' },
    },
    function: { memoryMb: 3008, timeoutSeconds: 900, assets: parquetAssets, tracesSdkCalls: true },
  },
  'dashboard-provisioner': {
    queue: 'dashboard',
    entry: 'functions/tenants/provision-dashboard.ts',
    summary: "Hands a tenant's read-only credential to the dashboard tool (DASHBOARD_URL) and records the outcome",
    // One tenant an invocation: records are handled one after another and the tool may take 10 s to
    // answer each (shared/adapters/dashboard-tool.ts), so a larger batch could outlast the timeout
    // and send the records it never reached back to the queue, a receive spent each time.
    batchSize: 1,
    maxBatchingWindowSeconds: 0,
    maxConcurrency: 2,
    // Its own queue: a run whose credential was replaced during its delivery asks for one more.
    access: { table: 'readWrite', secretsKey: true, dashboardTool: true, queues: { dashboard: 'send' } },
    function: { memoryMb: 256, timeoutSeconds: 30, tracesSdkCalls: true },
  },
  'counter-upkeep-worker': {
    queue: 'upkeep',
    entry: 'functions/monitoring/counter-upkeep-worker.ts',
    summary:
      "Takes a piece of the counters' upkeep: keeps the figures of the sources that moved in a shard of a window, or folds a shard of a settled quarter",
    // A piece reads at most a page of the index (2,000 entries) and hands the rest on: ten of them
    // are some 30,000 source reads at most, a few seconds' each at a full vCPU.
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    // A shard each of the index's 64: a piece's work is bounded, so this is what bounds the sources
    // that move a second (`npm run bench scale`).
    maxConcurrency: 64,
    access: { table: 'readWrite', deletesItems: true, queues: { upkeep: 'send' } },
    // Mostly CPU (each source's items summed), as the whole upkeep was at 2.5 ms a source.
    function: { memoryMb: 1769, timeoutSeconds: 120 },
  },
};

export interface DeployHookSpec {
  entry: string;
  summary: string;
  access: Access;
  function: FunctionSettings & { timeoutSeconds: number };
}

export const schedules: Record<ScheduleName, ScheduleSpec> = {
  'table-commits': {
    entry: 'functions/ingest/commit-staged.ts',
    summary: 'Reports how overdue staged tables are, and sends another commit trigger where one is overdue',
    everyMinutes: 1,
    // At a graceful stop of local mode it commits everything staged itself, in up to five minutes.
    runsAtStop: { timeoutSeconds: 300 },
    access: {
      table: 'readWrite',
      deletesItems: true,
      platformBucket: { staging: 'readDelete', claims: 'readWrite' },
      tenantStores: 'readWrite',
      secretsKey: true,
      queues: { ingestDeadLetter: 'send', commits: 'send' },
    },
    // On AWS a run reads the overdue tables and sends triggers: no Parquet, so no full vCPU, and
    // done before the next run starts. Its bundle still ships the Parquet encoder (and loads it) for
    // local mode's run at a stop.
    function: { memoryMb: 512, timeoutSeconds: 50, assets: parquetAssets },
  },
  'job-lease-sweeper': {
    entry: 'functions/jobs/sweep.ts',
    summary:
      'Fails jobs whose runner stopped responding (expired lease), so none stays Running forever, and offers again Queued jobs whose offer went unanswered',
    everyMinutes: 1,
    access: { table: 'readWrite', deletesItems: true, queues: { jobs: 'send' } },
    // Ended before the next run: EventBridge's minute is not to the second.
    function: { memoryMb: 256, timeoutSeconds: 50 },
  },
  'table-maintenance': {
    entry: 'functions/maintenance/schedule.ts',
    summary: 'Queues an Optimize job (compaction, vacuum, log clean-up) for every Delta table a writer marked due',
    // A run queues at most `listedPerRunAtMost` (20,000) tables: every five minutes, some 66 a second
    // come due before runs fall behind (hourly, 10,000 a run, it was under 3).
    everyMinutes: 5,
    // deletesItems: it moves the due tables of the layout before the minutes (table-maintenance.ts).
    access: { table: 'readWrite', deletesItems: true, queues: { jobs: 'send' } },
    function: { memoryMb: 256, timeoutSeconds: 60 },
  },
  'pipeline-runs-on-new-data': {
    entry: 'functions/pipelines/run-on-new-data.ts',
    summary:
      'Queues a run of each Active pipeline with on_new_data whose source got rows since its checkpoint (reads nothing while sources are quiet)',
    everyMinutes: 1,
    // It removes the watch of a source nobody watches any more (shared/adapters/dynamo/source-watches.ts).
    access: { table: 'readWrite', deletesItems: true, queues: { jobs: 'send' } },
    // Ended before the next run: EventBridge's minute is not to the second.
    function: { memoryMb: 256, timeoutSeconds: 50 },
  },
  'counter-upkeep': {
    entry: 'functions/monitoring/counter-upkeep.ts',
    summary:
      "Hands the counters' upkeep to its workers (settled windows and quarters, a piece per shard), and reports accepted envelopes neither written, failed nor queued",
    everyMinutes: 5,
    // It moves figures kept before shards to their shard, removing each from the one partition.
    access: {
      table: 'readWrite',
      deletesItems: true,
      queues: { ingest: 'inspect', ingestDeadLetter: 'inspect', upkeep: 'send' },
    },
    // A run reads its marks and the shards' kept figures (a query each), looks at a key or so of
    // each shard's index per window and quarter (pieces only for shards with something to read),
    // and sends a message per piece: no source read, whatever the sources.
    function: { memoryMb: 256, timeoutSeconds: 60 },
  },
};

/** The function CloudFormation runs during each deployment (a custom resource), not on any event. */
export const bootstrapKeyInstaller: DeployHookSpec = {
  entry: 'functions/platform/install-bootstrap-key.ts',
  summary: 'Custom resource: makes the bootstrap secret a valid PlatformAdmin API key',
  access: { table: 'readWrite', deletesItems: true, bootstrapKey: true },
  function: { timeoutSeconds: 30 },
};

/** The bootstrap key secret's rotation function (Secrets Manager runs it on `rotate-secret`), not on any event of ours. */
export const bootstrapKeyRotation: DeployHookSpec = {
  entry: 'functions/platform/rotate-bootstrap-key.ts',
  summary: 'Rotates the bootstrap key: a new key in the secret, installed, the old one retired',
  access: { table: 'readWrite', deletesItems: true, bootstrapKey: true },
  function: { timeoutSeconds: 30 },
};
