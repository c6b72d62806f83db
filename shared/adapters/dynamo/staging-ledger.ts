/**
 * The staging ledger: what is staged and not yet committed (shared/domain/ingest/staging.ts), in one
 * partition, so that a pass reads all of it in one query and quiet connections cost nothing.
 *   pk STAGED  sk B#<batch id>    a staged batch: its object's key, and per data set the slice of it
 *                                 ([offset, length, rows, oldest ms, payload bytes])
 *   pk STAGED  sk C#<record id>   (batch id → data set ids) committed by one pass, for batches that stay
 *   pk STAGED  sk F#<data_set_id> a table whose commits fail: attempts, last error, next attempt
 *   pk STAGED  sk LEASE           the pass running now (holder, until)
 *   pk STAGED  sk TOTALS          what each table had staged after the last pass ([rows, bytes, oldest
 *                                 ms]) and the newest batch it had read: the stats add what came since
 * Batch ids and record ids begin with the time (13-digit milliseconds), so they sort by age.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type {
  Coverage,
  LedgerView,
  StagedBatch,
  StagedSlice,
  StagedTotals,
  StagingLedger,
  TableFailure,
} from '../../domain/ingest/staging.ts';
import { batchWriteAll, conditionHeld, db, table } from './table.ts';

export const stagingKeys = {
  partition: 'STAGED',
  batch: (id: string) => ({ pk: 'STAGED', sk: `B#${id}` }),
  coverage: (id: string) => ({ pk: 'STAGED', sk: `C#${id}` }),
  failure: (tableId: string) => ({ pk: 'STAGED', sk: `F#${tableId}` }),
  lease: { pk: 'STAGED', sk: 'LEASE' },
  totals: { pk: 'STAGED', sk: 'TOTALS' },
};

type SliceCells = [number, number, number, number, number];

async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db.send(new QueryCommand({ TableName: table(), ...input, ExclusiveStartKey: start }));
    items.push(...((result.Items ?? []) as Record<string, unknown>[]));
    start = result.LastEvaluatedKey;
  } while (start);
  return items;
}

function toBatch(item: Record<string, unknown>): StagedBatch {
  const tables: Record<string, StagedSlice> = {};
  for (const [tableId, cells] of Object.entries(item.tables as Record<string, SliceCells>)) {
    const [offset, length, rows, oldest, bytes] = cells.map(Number) as SliceCells;
    tables[tableId] = { offset, length, rows, oldest, bytes };
  }
  return { id: String(item.sk).slice(2), key: String(item.key), stagedAt: Number(item.staged_at), tables };
}

function toCoverage(item: Record<string, unknown>): Coverage {
  return { id: String(item.sk).slice(2), pairs: item.pairs as Record<string, string[]> };
}

/** Batches and coverage records from `from` (a sort key) on. */
async function readRange(
  from: string,
  consistent: boolean,
): Promise<Pick<LedgerView, 'batches' | 'coverage'> & { failures: Map<string, TableFailure> }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': stagingKeys.partition, ':from': from, ':to': 'F#~' },
    ConsistentRead: consistent,
  });
  const view = { batches: [] as StagedBatch[], coverage: [] as Coverage[], failures: new Map<string, TableFailure>() };
  for (const item of items) {
    const sk = String(item.sk);
    if (sk.startsWith('B#')) view.batches.push(toBatch(item));
    else if (sk.startsWith('C#')) view.coverage.push(toCoverage(item));
    else if (sk.startsWith('F#'))
      view.failures.set(sk.slice(2), {
        attempts: Number(item.attempts),
        lastError: String(item.last_error),
        nextAttemptAt: Number(item.next_attempt_at),
      });
  }
  return view;
}

export const stagingLedger: StagingLedger = {
  async addBatch(batch) {
    const tables = Object.fromEntries(
      Object.entries(batch.tables).map(([tableId, slice]) => [
        tableId,
        [slice.offset, slice.length, slice.rows, slice.oldest, slice.bytes],
      ]),
    );
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...stagingKeys.batch(batch.id),
          entity: 'StagedBatch',
          key: batch.key,
          staged_at: batch.stagedAt,
          tables,
        },
      }),
    );
  },

  read: () => readRange('B#', true),

  async addCoverage(coverage) {
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: { ...stagingKeys.coverage(coverage.id), entity: 'StagedCoverage', pairs: coverage.pairs },
      }),
    );
  },

  async retire(batchIds, coverageIds) {
    await batchWriteAll(
      [...batchIds.map(stagingKeys.batch), ...coverageIds.map(stagingKeys.coverage)].map((Key) => ({
        DeleteRequest: { Key },
      })),
    );
  },

  async setFailure(tableId, failure) {
    if (!failure) {
      await db.send(new DeleteCommand({ TableName: table(), Key: stagingKeys.failure(tableId) }));
      return;
    }
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...stagingKeys.failure(tableId),
          entity: 'StagedFailure',
          attempts: failure.attempts,
          last_error: failure.lastError,
          next_attempt_at: failure.nextAttemptAt,
        },
      }),
    );
  },

  async writeTotals(totals, asOfBatch) {
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...stagingKeys.totals,
          entity: 'StagedTotals',
          as_of: asOfBatch,
          tables: Object.fromEntries([...totals].map(([tableId, t]) => [tableId, [t.rows, t.bytes, t.oldest]])),
        },
      }),
    );
  },

  acquire(holder, until) {
    return conditionHeld(
      db.send(
        new PutCommand({
          TableName: table(),
          Item: { ...stagingKeys.lease, entity: 'StagingLease', holder, until },
          ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':now': Date.now() },
        }),
      ),
    );
  },

  async release(holder) {
    await conditionHeld(
      db.send(
        new DeleteCommand({
          TableName: table(),
          Key: stagingKeys.lease,
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: { ':holder': holder },
        }),
      ),
    );
  },
};

/**
 * What each table has staged now: the last pass's totals plus the batches staged since, less what
 * was committed since, and why commits fail where they do (eventually consistent: figures for
 * people and alarms, not for deciding anything).
 */
async function stagedNow(): Promise<{ tables: Map<string, StagedTotals>; failures: Map<string, TableFailure> }> {
  const totals = await db.send(new GetCommand({ TableName: table(), Key: stagingKeys.totals }));
  const asOf = (totals.Item?.as_of as string | null | undefined) ?? null;
  const tables = new Map<string, StagedTotals>();
  for (const [tableId, cells] of Object.entries((totals.Item?.tables as Record<string, number[]> | undefined) ?? {})) {
    const [rows, bytes, oldest] = cells.map(Number) as [number, number, number];
    tables.set(tableId, { rows, bytes, oldest });
  }
  const since = await readRange(asOf ? `B#${asOf}~` : 'B#', false);
  const covered = new Set<string>();
  for (const record of since.coverage)
    for (const [batch, ids] of Object.entries(record.pairs)) for (const id of ids) covered.add(`${batch} ${id}`);
  for (const batch of since.batches)
    for (const [tableId, slice] of Object.entries(batch.tables)) {
      if (covered.has(`${batch.id} ${tableId}`)) continue;
      const held = tables.get(tableId) ?? { rows: 0, bytes: 0, oldest: Number.POSITIVE_INFINITY };
      tables.set(tableId, {
        rows: held.rows + slice.rows,
        bytes: held.bytes + slice.bytes,
        oldest: Math.min(held.oldest, slice.oldest),
      });
    }
  return { tables, failures: since.failures };
}

/** What one table has staged now, and why its commits fail if they do. */
export async function stagedFor(tableId: string): Promise<StagedTotals & { failure: TableFailure | null }> {
  const { tables, failures } = await stagedNow();
  return {
    ...(tables.get(tableId) ?? { rows: 0, bytes: 0, oldest: Number.POSITIVE_INFINITY }),
    failure: failures.get(tableId) ?? null,
  };
}

/** Rows staged across every table, and the oldest's ingest time (Infinity when none). */
export async function stagedOverall(): Promise<{ rows: number; oldest: number }> {
  let rows = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (const totals of (await stagedNow()).tables.values()) {
    rows += totals.rows;
    oldest = Math.min(oldest, totals.oldest);
  }
  return { rows, oldest };
}

/**
 * The ledger as the events view reads it: one read shared by the lookups of a second in a process
 * (the ledger holds every table's batches of a freshness target, so each lookup reading it anew
 * would load the table in proportion to how often people look). A second's staleness is within
 * what the view promises: an event is listed within seconds of its 202.
 */
const sharedViewMs = 1000;
let sharedView: { at: number; view: Promise<Awaited<ReturnType<typeof readRange>>> } | null = null;

function recentView() {
  const now = Date.now();
  if (!sharedView || now - sharedView.at >= sharedViewMs) {
    const view = readRange('B#', false);
    sharedView = { at: now, view };
    view.catch(() => {
      if (sharedView?.view === view) sharedView = null;
    });
  }
  return sharedView.view;
}

/**
 * Every batch holding rows of the table not yet committed, with its slice: as of now, or as of the
 * last second (`recent`, for the events view).
 */
export async function stagedSlicesOf(
  tableId: string,
  { recent = false } = {},
): Promise<{ batch: StagedBatch; slice: StagedSlice }[]> {
  const view = await (recent ? recentView() : readRange('B#', false));
  const covered = new Set<string>();
  for (const record of view.coverage)
    for (const [batch, tables] of Object.entries(record.pairs)) if (tables.includes(tableId)) covered.add(batch);
  return view.batches
    .filter((batch) => batch.tables[tableId] && !covered.has(batch.id))
    .map((batch) => ({ batch, slice: batch.tables[tableId] as StagedSlice }));
}
