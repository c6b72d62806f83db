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
import type { DeliveryFailure } from '../domain/ingest/kept-records.ts';
import { StagedReads } from '../domain/ingest/staged-reads.ts';
import { freshnessKeptMs } from '../domain/ingest/staging.ts';
import { describeFailure, failureReason } from '../domain/tenants/store-failures.ts';
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

/** Staged bytes of one table that make it due whatever its freshness target. */
export const stagedSizeTargetBytes = 64 * 1024 * 1024;

/** Freshness targets change rarely (a table property): an instance reads each at most once a minute. */
const targets = new Map<string, { ms: number | null; until: number }>();

async function freshness(tableIds: string[]): Promise<Map<string, number>> {
  const now = Date.now();
  const missing = tableIds.filter((id) => (targets.get(id)?.until ?? 0) <= now);
  if (missing.length > 0) {
    const found = await freshnessTargets(missing);
    if (targets.size > 100_000) targets.clear();
    for (const id of missing) targets.set(id, { ms: found.get(id) ?? null, until: now + freshnessKeptMs });
  }
  return new Map(tableIds.map((id) => [id, targets.get(id)?.ms ?? config.tableFreshnessMs()]));
}

/**
 * Staged objects a warm committer keeps: those up to 1 MB (a writer batch of sparse traffic holds
 * dozens of tables' slices in a few hundred KB), 64 MB of them at most.
 */
const reads = new StagedReads(stagingObjects, { wholeMaxBytes: 1024 * 1024, keptMaxBytes: 64 * 1024 * 1024 });
export const readStagedSlice: SliceReader = (record) => reads.read(record);

/**
 * Staged payload bytes the commits of an invocation hold at once: the function's memory less the
 * table states (a quarter, table-storage.ts), the staged objects kept (64 MB) and the code (150 MB),
 * at 3 bytes held per payload byte (a commit's rows read back, then its files encoded: the writer
 * bench peaks at 2.6). At 1,769 MB, 370 MB: five commits of a whole size target side by side, where
 * ten would run the function out of memory. Unbounded where Lambda does not say (tests, benches).
 */
const functionMemoryMb = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? 0);
export const commitMemory = new ByteBudget(
  functionMemoryMb > 0
    ? Math.max(stagedSizeTargetBytes, (((functionMemoryMb * 3) / 4 - 64 - 150) * 1024 * 1024) / 3)
    : Number.POSITIVE_INFINITY,
);

/** Who this function instance is, as the holder of a table's lease. */
export const committerId = randomUUID();

export const stagingDeps: CommitStagedDeps = {
  ...icebergSyncDeps,
  records: stagedRecords,
  objects: stagingObjects,
  triggers: commitTriggers,
  parse: parseStagedSlice,
  freshness,
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
  async deadLetter(tableId, messages, error, attempts) {
    const now = new Date().toISOString();
    const store = (await getDataSet(tableId).catch(() => null))?.storage_location ?? null;
    const failures: DeliveryFailure[] = messages.map((message) => ({
      message_id: message.message_id,
      data_set_id: tableId,
      error: describeFailure(error).slice(0, 1000),
      store,
      attempt: attempts,
      at: now,
    }));
    await recordDeliveryFailures(failures);
    await sendToDeadLetterQueue(messages);
    logger.error('Staged envelopes moved to the dead-letter queue', {
      data_set_id: tableId,
      envelopes: messages.length,
      attempts,
      error: describeFailure(error),
    });
  },
  failed(tableId, rows, error, attempt) {
    logger.error('Staged commit failed', { data_set_id: tableId, envelopes: rows, attempt, error });
    count('batchFailures', { reason: failureReason(error) }, rows);
  },
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
