/**
 * The staged-commit path's dependencies, built in one place: the batch writer (write-batch.ts), the
 * table committer (commit-tables.ts) and the table-commits schedule (commit-staged.ts) get staging's
 * ports (shared/domain/ingest/staging.ts, commit-staged.ts, commit-table.ts) from here: each table's
 * records and head in DynamoDB, the batches in the platform bucket, triggers on the commits queue,
 * each table's commit through its own store (shared/adapters/delta-tables.ts). What an instance keeps
 * between invocations (shared/domain/ingest/committer-instance.ts) is made here, once per instance.
 *
 * Only those three functions load this module: it brings the Delta writer (apache-arrow, parquet-wasm).
 * The family's functions that write no table are wired beside it, each function's bundle loading only
 * its own (test/cdk/bundles.test.ts): the door in wiring-door.ts, the dead-letter recorder in
 * wiring-dead-letters.ts.
 */
import { randomUUID } from 'node:crypto';
import { appendEnvelopes } from '#shared/adapters/delta-tables.ts';
import { dependencyFailed } from '#shared/adapters/dependency-failures.ts';
import { freshnessTargets, getDataSet } from '#shared/adapters/dynamo/data-sets.ts';
import { recordDeliveryFailures } from '#shared/adapters/dynamo/deliveries.ts';
import { writtenAfterIngest } from '#shared/adapters/dynamo/delta-log.ts';
import { stagedRecords } from '#shared/adapters/dynamo/staging-heads.ts';
import { markMaintenanceDue } from '#shared/adapters/dynamo/table-maintenance.ts';
import { icebergCatchUpDeps, icebergSyncDeps } from '#shared/adapters/iceberg-tables.ts';
import { count, countOnce, countReceipts, emitGauge, settleSourceCounts } from '#shared/adapters/metrics.ts';
import { checkOut, claimExists } from '#shared/adapters/s3/claim-checks.ts';
import { stagingObjects } from '#shared/adapters/s3/staging.ts';
import { commitTriggers } from '#shared/adapters/sqs/commit-triggers.ts';
import { sendToDeadLetterQueue } from '#shared/adapters/sqs/dead-letter-queue.ts';
import { deferMessages } from '#shared/adapters/sqs/deferred-records.ts';
import { parseStagedSlice } from '#shared/adapters/staged-rows.ts';
import { fixStorage } from '#shared/adapters/table-storage.ts';
import { config } from '#shared/config.ts';
import { ByteBudget } from '#shared/domain/at-most.ts';
import type { CommitOptions, CommitStagedDeps } from '#shared/domain/ingest/commit-staged.ts';
import { commitMemoryBytes, committerReadLimits, FreshnessTargets } from '#shared/domain/ingest/committer-instance.ts';
import { readEnvelope } from '#shared/domain/ingest/envelope.ts';
import {
  countFailedAttempt,
  deadLetterStaged,
  type StagedFailureDeps,
} from '#shared/domain/ingest/staged-dead-letters.ts';
import { StagedReads } from '#shared/domain/ingest/staged-reads.ts';
import { stagedSizeTargetBytes } from '#shared/domain/ingest/staging.ts';
import { type BatchWriterDeps, SentTriggers } from '#shared/domain/ingest/write-batch.ts';
import { describeFailure } from '#shared/domain/tenants/store-failures.ts';
import { logger } from '#shared/observability/logger.ts';

const freshness = new FreshnessTargets({
  read: freshnessTargets,
  defaultMs: () => config.tableFreshnessMs(),
  now: () => Date.now(),
});

/** Where a failing table's envelopes go, and how its failed attempts are counted. */
const failureDeps: StagedFailureDeps = {
  getDataSet,
  recordDeliveryFailures,
  sendToDeadLetterQueue,
  describe: describeFailure,
  count,
  error: (message, fields) => logger.error(message, fields),
  now: () => Date.now(),
};

export const stagingDeps: CommitStagedDeps = {
  ...icebergSyncDeps,
  records: stagedRecords,
  objects: stagingObjects,
  triggers: commitTriggers,
  parse: parseStagedSlice,
  freshness: (tableIds) => freshness.of(tableIds),
  getDataSet,
  fixStorage,
  appendEnvelopes,
  claimExists,
  writtenAfterIngest,
  checkOut,
  markMaintenanceDue: (dataSet, at) => markMaintenanceDue(dataSet.data_set_id, dataSet.tenant_id, at),
  count,
  countOnce,
  info: (message, fields) => logger.info(message, fields),
  warn: (message, fields) => logger.warn(message, fields),
  deadLetter: (...failed) => deadLetterStaged(failureDeps, ...failed),
  failed: (...failed) => countFailedAttempt(failureDeps, ...failed),
  describe: describeFailure,
  dependencyFailed,
  countReceipts: (messages) =>
    countReceipts(
      messages.map((message) => ({
        ...message,
        ingested_at: new Date(Number(BigInt(message.ingested_at_us) / 1000n)).toISOString(),
      })),
    ),
  settleCounts: settleSourceCounts,
  now: () => Date.now(),
  retryMs: config.commitRetryMs(),
  sizeTarget: stagedSizeTargetBytes,
  tableTimeMs: 60_000,
  recordMs: 10_000,
};

export const batchWriterDeps: BatchWriterDeps = {
  ...stagingDeps,
  parseEnvelope: readEnvelope,
  recordFailures: recordDeliveryFailures,
  sent: new SentTriggers(),
  // Small tables' commits mostly wait on the store: more at once keep a batch's last table fresh.
  concurrency: 16,
  backoffFirstSeconds: config.writerBackoffSeconds(),
};

/** Keeps the ingest queue's records off it for a while (their receipt handles, the seconds each waits). */
export const deferIngestRecords = (records: { receiptHandle: string; seconds: number }[]) =>
  deferMessages('ingest', records);

/** The staged objects this instance read whole, kept for the other tables of the same batches. */
const reads = new StagedReads(stagingObjects, committerReadLimits);

/** What the commits of an invocation may hold at once, from the function's memory as Lambda states it. */
const commitMemory = new ByteBudget(commitMemoryBytes(Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? 0)));

/** Who this function instance is, as the holder of a table's lease. */
const committerId = randomUUID();

/** How an invocation with `timeLeftMs` commits staged tables, `concurrency` at a time. */
export function committing(timeLeftMs: number, concurrency: number): CommitOptions & { concurrency: number } {
  return {
    deadline: stagingDeps.now() + timeLeftMs,
    holder: committerId,
    read: (record) => reads.read(record),
    memory: commitMemory,
    concurrency,
  };
}

/** What the table-commits schedule reports and catches up besides the commits. */
export const scheduleDeps = { icebergCatchUp: icebergCatchUpDeps, emitGauge };
