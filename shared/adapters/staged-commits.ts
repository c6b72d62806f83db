/**
 * Staging's ports (shared/domain/ingest/staging.ts, commit-staged.ts and commit-table.ts) as the
 * batch writer, the table committer and the table-commits schedule wire them: the records in
 * DynamoDB, the batches in the platform bucket, triggers on the commits queue, each table's commit
 * through its own store (shared/adapters/delta-tables.ts). Only those functions load this module (it
 * brings apache-arrow and parquet-wasm).
 */
import { randomUUID } from 'node:crypto';
import { config } from '../config.ts';
import { ByteBudget } from '../domain/at-most.ts';
import type { CommitStagedDeps, SliceReader } from '../domain/ingest/commit-staged.ts';
import { commitMemoryBytes, committerReadLimits, FreshnessTargets } from '../domain/ingest/committer-instance.ts';
import { countFailedAttempt, deadLetterStaged, type StagedFailureDeps } from '../domain/ingest/staged-dead-letters.ts';
import { StagedReads } from '../domain/ingest/staged-reads.ts';
import { stagedSizeTargetBytes } from '../domain/ingest/staging.ts';
import { describeFailure } from '../domain/tenants/store-failures.ts';
import { logger } from '../observability/logger.ts';
import { appendEnvelopes } from './delta-tables.ts';
import { dependencyFailed } from './dependency-failures.ts';
import { freshnessTargets, getDataSet } from './dynamo/data-sets.ts';
import { recordDeliveryFailures } from './dynamo/deliveries.ts';
import { writtenAfterIngest } from './dynamo/delta-log.ts';
import { stagedRecords } from './dynamo/staging-heads.ts';
import { markMaintenanceDue } from './dynamo/table-maintenance.ts';
import { icebergSyncDeps } from './iceberg-tables.ts';
import { count, countOnce, countReceipts, settleSourceCounts } from './metrics.ts';
import { checkOut, claimExists } from './s3/claim-checks.ts';
import { stagingObjects } from './s3/staging.ts';
import { commitTriggers } from './sqs/commit-triggers.ts';
import { sendToDeadLetterQueue } from './sqs/dead-letter-queue.ts';
import { parseStagedSlice } from './staged-rows.ts';
import { fixStorage } from './table-storage.ts';

const freshness = new FreshnessTargets({
  read: freshnessTargets,
  defaultMs: () => config.tableFreshnessMs(),
  now: () => Date.now(),
});

const reads = new StagedReads(stagingObjects, committerReadLimits);
export const readStagedSlice: SliceReader = (record) => reads.read(record);

export const commitMemory = new ByteBudget(commitMemoryBytes(Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? 0)));

/** Who this function instance is, as the holder of a table's lease. */
export const committerId = randomUUID();

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
