/**
 * What Tributary keeps in DynamoDB about the Delta versions it commits (its run history, and the
 * message ids of shared/domain/datasets/exactly-once.ts).
 *   pk DELTA#<data_set_id>  sk R#<run id>#<n, 4 digits> the message ids a run's commit holds, in chunks of at
 *                                                      most 48 KB (UUIDs packed as 16 bytes each in `ids`,
 *                                                      any other id in `other_ids`; `chunks`: how many the
 *                                                      run's last hold wrote), written before each attempt;
 *                                                      the commit names its run (commitInfo txnId). Items
 *                                                      written before chunks, `R#<run id>`, are read too
 *   pk DELTA#<data_set_id>  sk C#<version, 20 digits>   a version Tributary committed: the run (who, when, rows,
 *                                                      files), for the run history
 *   pk DELTA#<data_set_id>  sk V#<version, 20 digits>   a claimed version, only for stores without conditional
 *                                                      writes (the S3DynamoDBLogStore coordination)
 * Every item expires (expires_at) 30 days after it was written: the run history and the exactly-once
 * check reach back that far, beyond the ingest queue's retention (4 days) and its dead-letter
 * queue's (14 days). The table's own `_delta_log/` is the truth about its versions; the commit path
 * reads which runs wrote them there, and the ids here.
 */
import { GetCommand, PutCommand, QueryCommand, type QueryCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { operations, type Txn } from '#delta/kernel/log.ts';
import type { Claim, VersionClaims } from '#delta/log-store/coordinated.ts';
import type { CommitRecords, LogEntry } from '#delta/operations/transaction.ts';
import { forEachAtMost } from '../../domain/at-most.ts';
import { clockMarginMs, type MessageIdRecords } from '../../domain/datasets/exactly-once.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { logger } from '../../observability/logger.ts';
import { objectOf, orNull, shapeReader } from './stored-items.ts';
import { batchWriteAll, db, isConditionFailure, queryPage, table } from './table.ts';

/** How long a version's items are kept: the reach of the exactly-once check and of the run history. */
export const logEntryLifetimeMs = 30 * 86_400_000;

const pad = (version: number) => String(version).padStart(20, '0');

export const deltaLogKeys = {
  partition: (tableId: string) => `DELTA#${tableId}`,
  committed: (tableId: string, version: number) => ({ pk: `DELTA#${tableId}`, sk: `C#${pad(version)}` }),
  claim: (tableId: string, version: number) => ({ pk: `DELTA#${tableId}`, sk: `V#${pad(version)}` }),
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** UUIDs (every id the ingest path issues) as 16 bytes each; anything else as text. */
export function packMessageIds(ids: string[]): { packed: Uint8Array; other: string[] } {
  const uuids = ids.filter((id) => uuidPattern.test(id));
  const packed = Buffer.alloc(uuids.length * 16);
  uuids.forEach((id, i) => {
    packed.write(id.replaceAll('-', ''), i * 16, 'hex');
  });
  return { packed, other: ids.filter((id) => !uuidPattern.test(id)) };
}

export function unpackMessageIds(packed: Uint8Array | undefined, other: string[] | undefined): string[] {
  const ids: string[] = [...(other ?? [])];
  const bytes = Buffer.from(packed ?? new Uint8Array());
  for (let offset = 0; offset + 16 <= bytes.length; offset += 16) {
    const hex = bytes.toString('hex', offset, offset + 16);
    ids.push(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
  }
  return ids;
}

/**
 * The bytes of message ids one R# item holds at most: a commit of any size is split into items
 * far below DynamoDB's 400 KB (3,000 UUIDs each), each written in one request of a batch.
 */
export const idChunkBytes = 48 * 1024;

/** The ids in chunks of at most `idChunkBytes` (a UUID counts 16 bytes, any other id its length and a little). */
export function chunkMessageIds(ids: string[]): string[][] {
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let bytes = 0;
  for (const id of ids) {
    const size = uuidPattern.test(id) ? 16 : Buffer.byteLength(id) + 3;
    if (chunk.length > 0 && bytes + size > idChunkBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(id);
    bytes += size;
  }
  if (chunk.length > 0 || chunks.length === 0) chunks.push(chunk);
  return chunks;
}

const chunkSort = (runId: string, chunk: number) => `R#${runId}#${String(chunk).padStart(4, '0')}`;

/** A run's R# items, as stored: chunk items and, from before chunks, one item of the whole run. */
const readRunIds = /* @__PURE__ */ shapeReader('DeltaRunIds', () => ({
  sk: z.string(),
  ids: z.instanceof(Uint8Array).optional(),
  other_ids: z.array(z.string()).optional(),
  chunks: z.number().int().positive().optional(),
}));

/**
 * A run's ids from its items: chunk 0 says how many chunks its last hold wrote, and chunks from an
 * earlier hold of more rows (a race lost, and its rows taken out) are left out.
 */
export function idsOfRunItems(runId: string, items: Record<string, unknown>[]): string[] {
  const stored = items.map(readRunIds);
  const whole = stored.find((item) => item.sk === `R#${runId}`);
  const first = stored.find((item) => item.sk === chunkSort(runId, 0));
  if (!first) return whole ? unpackMessageIds(whole.ids, whole.other_ids) : [];
  const count = first.chunks ?? 1;
  const ids: string[] = [];
  for (const item of stored) {
    const chunk = item.sk.startsWith(`R#${runId}#`) ? Number(item.sk.slice(`R#${runId}#`.length)) : Number.NaN;
    if (Number.isInteger(chunk) && chunk < count) ids.push(...unpackMessageIds(item.ids, item.other_ids));
  }
  return ids;
}

const expiresAt = (at: number) => Math.floor((at + logEntryLifetimeMs) / 1000);

/**
 * A C# item, as stored: what items written before a field existed lack reads as it did then (a
 * WRITE, no rows, no transaction, a first attempt).
 */
const readCommit = /* @__PURE__ */ shapeReader('DeltaCommit', () => ({
  version: z.number(),
  run_id: z.string(),
  committed_at: z.number().default(0),
  operation: z.enum(operations).default('WRITE'),
  rows: z.number().default(0),
  bytes: z.number().default(0),
  files: z.number().default(0),
  removes: z.number().default(0),
  txn: orNull(objectOf<Txn>({ appId: z.string(), version: z.number(), lastUpdated: orNull(z.number()) })),
  started_at: z.string(),
  completed_at: orNull(z.string()),
  attempt: z.number().default(1),
}));

function toEntry(item: Record<string, unknown>): LogEntry {
  const commit = readCommit(item);
  return {
    version: commit.version,
    runId: commit.run_id,
    claimedAt: commit.committed_at,
    operation: commit.operation,
    rows: commit.rows,
    bytes: commit.bytes,
    files: commit.files,
    removes: commit.removes,
    txn: commit.txn,
    startedAt: commit.started_at,
    completedAt: commit.completed_at,
    attempt: commit.attempt,
  };
}

async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Runs' ids a warm instance has seen (its own, and those it read): a commit checks the commits since
 * its rows arrived, which are mostly the same few runs each time. Bounded by the ids it holds.
 */
const runIds = new Map<string, string[]>();
let cachedIds = 0;
const maxCachedIds = 1_000_000;

function remember(tableId: string, runId: string, ids: string[]): void {
  const key = `${tableId} ${runId}`;
  cachedIds -= runIds.get(key)?.length ?? 0;
  runIds.delete(key);
  runIds.set(key, ids);
  cachedIds += ids.length;
  while (cachedIds > maxCachedIds && runIds.size > 1) {
    const oldest = runIds.keys().next();
    if (oldest.done) break;
    cachedIds -= runIds.get(oldest.value)?.length ?? 0;
    runIds.delete(oldest.value);
  }
}

export const commitRecords: CommitRecords & MessageIdRecords = {
  async holdIds(tableId, runId, messageIds) {
    const chunks = chunkMessageIds(messageIds);
    const expires = expiresAt(Date.now());
    await batchWriteAll(
      chunks.map((ids, chunk) => {
        const { packed, other } = packMessageIds(ids);
        return {
          PutRequest: {
            Item: {
              pk: deltaLogKeys.partition(tableId),
              sk: chunkSort(runId, chunk),
              entity: 'DeltaRunIds',
              chunks: chunks.length,
              ...(packed.length > 0 ? { ids: packed } : {}),
              ...(other.length > 0 ? { other_ids: other } : {}),
              expires_at: expires,
            },
          },
        };
      }),
    );
    remember(tableId, runId, messageIds);
  },

  async idsOf(tableId, runs) {
    const found = new Map<string, string[]>();
    const missing: string[] = [];
    for (const runId of new Set(runs)) {
      const known = runIds.get(`${tableId} ${runId}`);
      if (known) found.set(runId, known);
      else missing.push(runId);
    }
    await forEachAtMost(missing, 16, async (runId) => {
      const items = await queryAll({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': deltaLogKeys.partition(tableId),
          ':from': `R#${runId}`,
          ':to': `R#${runId}#~`,
        },
        ConsistentRead: true,
      });
      if (items.length === 0) return;
      const ids = idsOfRunItems(runId, items);
      found.set(runId, ids);
      remember(tableId, runId, ids);
    });
    return found;
  },

  async record(tableId, entry) {
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...deltaLogKeys.committed(tableId, entry.version),
          entity: 'DeltaCommit',
          version: entry.version,
          run_id: entry.runId,
          committed_at: entry.claimedAt,
          operation: entry.operation,
          rows: entry.rows,
          bytes: entry.bytes,
          files: entry.files,
          removes: entry.removes,
          txn: entry.txn ?? undefined,
          started_at: entry.startedAt,
          completed_at: entry.completedAt ?? undefined,
          attempt: entry.attempt,
          expires_at: expiresAt(entry.claimedAt),
        },
      }),
    );
  },
};

/**
 * Which of these message ids Tributary's recorded commits since `since` (milliseconds) hold: the
 * dead-letter recorder's check, from the run history rather than the table's own log (a commit
 * whose writer stopped before recording it is not seen here; the commit path's own check, which
 * reads the log, still keeps a redrive of it from writing it twice).
 */
/**
 * writtenSince for envelopes accepted at `ingestedAt`: the commits since then, and as far again back
 * as the clocks of functions may differ.
 */
export const writtenAfterIngest = (tableId: string, messageIds: string[], ingestedAt: number) =>
  writtenSince(tableId, messageIds, ingestedAt - clockMarginMs);

export async function writtenSince(tableId: string, messageIds: string[], since: number): Promise<Set<string>> {
  if (since < Date.now() - logEntryLifetimeMs)
    logger.warn('Envelopes older than the exactly-once horizon: checked only as far back as records are kept', {
      data_set_id: tableId,
      envelopes: messageIds.length,
      since: new Date(since).toISOString(),
    });
  const runs: string[] = [];
  let start: Record<string, unknown> | undefined;
  let reached = false;
  do {
    const result = await db.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
        ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId), ':c': 'C#' },
        ProjectionExpression: 'run_id, committed_at',
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of result.Items ?? []) {
      if (Number(item.committed_at ?? 0) < since) reached = true;
      else runs.push(String(item.run_id));
    }
    start = result.LastEvaluatedKey;
  } while (start && !reached);
  const wanted = new Set(messageIds);
  const found = new Set<string>();
  for (const ids of (await commitRecords.idsOf(tableId, runs)).values())
    for (const id of ids) if (wanted.has(id)) found.add(id);
  return found;
}

function toClaim(item: Record<string, unknown>): Claim {
  return {
    version: Number(item.version),
    runId: String(item.run_id),
    tempKey: String(item.temp_key),
    complete: Boolean(item.complete),
  };
}

export const versionClaims: VersionClaims = {
  async latest(tableId) {
    const result = await db.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :v)',
        ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId), ':v': 'V#' },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = result.Items?.[0];
    return item ? toClaim(item) : null;
  },

  async claimAt(tableId, version) {
    const result = await db.send(
      new GetCommand({ TableName: table(), Key: deltaLogKeys.claim(tableId, version), ConsistentRead: true }),
    );
    return result.Item ? toClaim(result.Item) : null;
  },

  async claim(tableId, claim) {
    try {
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: {
            ...deltaLogKeys.claim(tableId, claim.version),
            entity: 'DeltaClaim',
            version: claim.version,
            run_id: claim.runId,
            temp_key: claim.tempKey,
            complete: false,
            expires_at: expiresAt(Date.now()),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The version is taken. By this very claim when the SDK retried a put whose answer was lost
      // (the first attempt wrote it): that is a win, not a race lost to ourselves.
      const held = await this.claimAt(tableId, claim.version);
      return held?.runId === claim.runId && held.tempKey === claim.tempKey;
    }
  },

  async markComplete(tableId, version) {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: deltaLogKeys.claim(tableId, version),
        UpdateExpression: 'SET complete = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
  },
};

/** Removes a table's items (commit records, claims). */
export async function deleteTableLog(tableId: string): Promise<void> {
  const items = await queryAll({
    TableName: table(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': deltaLogKeys.partition(tableId) },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
  });
  await batchWriteAll(items.map((item) => ({ DeleteRequest: { Key: { pk: String(item.pk), sk: String(item.sk) } } })));
  for (const key of [...runIds.keys()]) if (key.startsWith(`${tableId} `)) runIds.delete(key);
}

/** The commits Tributary made to a table, newest first: its run history (as far back as items are kept). */
export async function completedEntries(tableId: string, page: PageRequest): Promise<Page<LogEntry>> {
  return queryPage(
    { partition: deltaLogKeys.partition(tableId), sortBeginsWith: 'C#', newestFirst: true },
    page,
    toEntry,
  );
}
