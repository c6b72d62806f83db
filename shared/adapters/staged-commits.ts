/**
 * Staged envelopes committed to their tables (shared/domain/ingest/staging.ts), as the batch writer
 * and the table-commits schedule run it: the ledger in DynamoDB, the batches in the platform bucket,
 * each table's commit through its own store (shared/adapters/delta-tables.ts). Only those two
 * functions load this module (it brings apache-arrow and parquet-wasm).
 */

import { appendToTable } from '#delta/commit.ts';
import { writeDailyFiles } from '#delta/daily-files.ts';
import { retentionKeeps } from '#delta/maintenance.ts';
import { maxRowsPerFile, type ParquetFile, writeParquet } from '#delta/parquet/parquet-files.ts';
import { config } from '../config.ts';
import { type Envelope, type EnvelopeMessage, envelopeColumns, envelopeFieldCells } from '../domain/ingest/envelope.ts';
import { type StagedRow, type StagingDeps, TableGone } from '../domain/ingest/staging.ts';
import type { DeliveryFailure } from '../domain/monitoring/model.ts';
import { describeFailure, failureReason } from '../domain/tenants/store-failures.ts';
import { logger } from '../observability/logger.ts';
import { asServiceErrors } from './delta-errors.ts';
import { tableAt } from './delta-tables.ts';
import { freshnessTargets, getDataSet } from './dynamo/data-sets.ts';
import { recordDeliveryFailures } from './dynamo/deliveries.ts';
import { stagingLedger } from './dynamo/staging-ledger.ts';
import { count, countReceipts } from './metrics.ts';
import { parseStagedSlice, StagedEnvelope } from './staged-rows.ts';

/** Staged bytes of one table that make it due whatever its freshness target. */
export const stagedSizeTargetBytes = 64 * 1024 * 1024;

export { maxRowsPerFile };

import { checkOut, claimExists, claimedPayload } from './s3/claim-checks.ts';
import { stagingObjects } from './s3/staging.ts';
import { sendToDeadLetterQueue } from './sqs/dead-letter-queue.ts';
import { fixStorage, recordCommit } from './table-storage.ts';

/**
 * How envelope files are cut: at most maxRowsPerFile rows and this many raw payload bytes each.
 * A file's columns, their Arrow IPC copy, WebAssembly's copy (its memory never shrinks) and the
 * encoded file are what encoding adds to the rows a commit holds, each about a file's size: at
 * 8 MiB that was 120 MB, at 4 MiB about 80 (`npm run bench writer`). Files are ~2 MB of zstd
 * Parquet; compaction makes large files of small ones later.
 */
export const maxPayloadBytesPerFile = 4 * 1024 * 1024;

export function encodeEnvelopes(envelopes: Envelope[]) {
  return writeParquet(
    [...envelopeColumns],
    [...envelopeFieldCells(envelopes), envelopes.map((envelope) => envelope.payload)],
  );
}

/**
 * One file of staged rows, its columns made straight from the staged envelopes (shared/adapters/
 * staged-rows.ts): the payloads written as base64 into one buffer, a claim-checked body fetched for
 * its row alone.
 */
export async function encodeStaged(rows: readonly StagedRow[]): Promise<ParquetFile> {
  const messages = rows.map((row) => row.message);
  const inline = messages.map((message) =>
    message instanceof StagedEnvelope
      ? message.payloadLength
      : message.payload === undefined
        ? undefined
        : Buffer.byteLength(message.payload),
  );
  const fetched = new Map<number, string>();
  await Promise.all(
    messages.flatMap((message, i) =>
      inline[i] === undefined ? [payloadOf(message).then((payload) => fetched.set(i, payload))] : [],
    ),
  );
  const offsets = new Int32Array(messages.length + 1);
  for (let i = 0; i < messages.length; i++)
    offsets[i + 1] = (offsets[i] as number) + (inline[i] ?? Buffer.byteLength(fetched.get(i) as string));
  const data = Buffer.allocUnsafe(offsets[messages.length] as number);
  messages.forEach((message, i) => {
    const at = offsets[i] as number;
    if (inline[i] === undefined) data.write(fetched.get(i) as string, at);
    else if (message instanceof StagedEnvelope) message.writePayload(data, at);
    else data.write(message.payload as string, at);
  });
  return writeParquet([...envelopeColumns], [...envelopeFieldCells(messages), { offsets, data }]);
}

/** Freshness targets change rarely (a table property): an instance reads each at most once a minute. */
const targets = new Map<string, { ms: number | null; until: number }>();

async function freshness(tableIds: string[]): Promise<Map<string, number>> {
  const now = Date.now();
  const missing = tableIds.filter((id) => (targets.get(id)?.until ?? 0) <= now);
  if (missing.length > 0) {
    const found = await freshnessTargets(missing);
    for (const id of missing) targets.set(id, { ms: found.get(id) ?? null, until: now + 60_000 });
  }
  return new Map(tableIds.map((id) => [id, targets.get(id)?.ms ?? config.tableFreshnessMs()]));
}

async function payloadOf(message: EnvelopeMessage): Promise<string> {
  if (message.payload !== undefined) return message.payload;
  if (!message.payload_ref) throw new Error('The envelope has neither a payload nor a claim check');
  const payload = await claimedPayload(message.payload_ref);
  if (payload === null) throw new Error('The claim-checked payload no longer exists');
  return payload;
}

/** An envelope whose claim-checked body is gone: it can never be written. */
class PayloadMissing extends Error {
  constructor() {
    super('The claim-checked payload no longer exists');
    this.name = 'PayloadMissing';
  }
}

/** Envelopes whose claim-checked body is gone go to the dead-letter queue on their own; the others are answered. */
async function withoutMissingPayloads(tableId: string, rows: StagedRow[]): Promise<StagedRow[]> {
  const missing = new Set<StagedRow>();
  await Promise.all(
    rows.map(async (row) => {
      if (row.message.payload_ref && !(await claimExists(row.message.payload_ref))) missing.add(row);
    }),
  );
  if (missing.size === 0) return rows;
  await stagingDeps.deadLetter(
    tableId,
    [...missing].map((row) => row.message),
    new PayloadMissing(),
    1,
  );
  return rows.filter((row) => !missing.has(row));
}

async function commitTable(tableId: string, staged: StagedRow[], attempt: number) {
  return asServiceErrors(() => commitStagedRows(tableId, staged, attempt));
}

async function commitStagedRows(tableId: string, staged: StagedRow[], attempt: number) {
  const found = await getDataSet(tableId);
  if (!found) throw new TableGone(tableId);
  const rows = await withoutMissingPayloads(tableId, staged);
  if (rows.length === 0) return { written: 0, skipped: 0, expired: 0 };
  const dataSet = await fixStorage(found);
  const table = await tableAt(dataSet);
  const source = dataSet.origin.type === 'Webhook' ? dataSet.origin.source_id : '';
  const result = await appendToTable(
    {
      ...table,
      hooks: {
        async onCompleted(entry, state) {
          await recordCommit(dataSet, entry.version);
          count('envelopesWritten', { source_id: source }, entry.rows);
          count('batchesCommitted', {}, 1);
          await table.afterCommit(entry, state);
        },
      },
    },
    {
      tableId,
      metadata: {
        tableId,
        name: dataSet.name,
        schema: dataSet.schema_json,
        partitionColumns: dataSet.partitioning.columns,
        createdTime: Date.parse(dataSet.created_at),
      },
      rows,
      identify: (row) => ({
        messageId: row.message.message_id,
        ingestedAt: Number(BigInt(row.message.ingested_at_us) / 1000n),
      }),
      attempt,
      // An envelope of a day the data retention no longer keeps is not written: maintenance would remove it.
      keeps: (state) => {
        const keepsDay = retentionKeeps(state, Date.now(), config.dataRetentionMs());
        return (row) => keepsDay(row.message.dt);
      },
      writeFiles: (pending) =>
        writeDailyFiles(table.storage, pending, {
          dayOf: (row) => row.message.dt,
          maxRowsPerFile,
          weight: (row) => row.message.payload_size,
          maxWeightPerFile: maxPayloadBytesPerFile,
          encode: encodeStaged,
        }),
    },
  );
  // Claim checks of envelopes now in the table are no longer needed (a lifecycle rule is the backstop).
  const claims = rows.flatMap((row) => (row.message.payload_ref ? [row.message.payload_ref.key] : []));
  if (claims.length > 0)
    await checkOut(claims).catch((error: Error) =>
      logger.warn('Claim check clean-up failed', { error: error.message }),
    );
  if (result.expired > 0) {
    count('envelopesExpired', { source_id: source }, result.expired);
    logger.info('Staged envelopes past the data retention left out', {
      data_set_id: tableId,
      envelopes: result.expired,
    });
  }
  return { written: result.written, skipped: result.skipped, expired: result.expired };
}

export const stagingDeps: StagingDeps = {
  ledger: stagingLedger,
  objects: stagingObjects,
  parse: parseStagedSlice,
  freshness,
  commitTable,
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
  countReceipts: (messages) =>
    countReceipts(
      messages.map((message) => ({
        ...message,
        ingested_at: new Date(Number(BigInt(message.ingested_at_us) / 1000n)).toISOString(),
      })),
    ),
  now: () => Date.now(),
  retryMs: config.commitRetryMs(),
  sizeTarget: stagedSizeTargetBytes,
  passBudget: 1024 * 1024 * 1024,
  concurrency: 8,
  inFlightBytes: 128 * 1024 * 1024,
  passTimeMs: 3 * 60_000,
  tableTimeMs: 60_000,
};
