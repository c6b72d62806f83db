import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../../config.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { callLimits, smallCallLimits } from '../aws-http.ts';
import { openCursor, sealCursor } from './cursors.ts';
import type { StoredItem } from './stored-items.ts';
import { globalIndexes, type IndexName, keyAttributes } from './table-schema.ts';

/**
 * One document client per process; the endpoint comes from AWS_ENDPOINT_URL_DYNAMODB when set. A call
 * unanswered for 5 s is tried again (shared/adapters/aws-http.ts).
 */
export const db = DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: callLimits(smallCallLimits) }), {
  marshallOptions: { removeUndefinedValues: true },
});

export const table = () => config.tableName();

type Key = Record<string, string>;
/** A key of the table (or an index), as DynamoDB answers it or a cursor holds it: every attribute a string. */
function tableKey(value: unknown): Key {
  if (typeof value !== 'object' || value === null) throw new Error('A table key is not an object');
  const key: Key = {};
  for (const [name, attribute] of Object.entries(value)) {
    if (typeof attribute !== 'string') throw new Error(`A table key's ${name} is not a string`);
    key[name] = attribute;
  }
  return key;
}

function keyNames(index?: IndexName): string[] {
  if (!index) return [keyAttributes.partition, keyAttributes.sort];
  const definition = globalIndexes.find((candidate) => candidate.name === index);
  if (!definition) throw new Error(`Unknown index ${index}`);
  return [keyAttributes.partition, keyAttributes.sort, definition.partition, definition.sort];
}

export interface QueryPageInput {
  index?: IndexName;
  partition: string;
  sortBeginsWith?: string;
  /** Sort keys from the first to the second, both included. */
  sortBetween?: [string, string];
  /** Sort keys strictly past this one, in the order read (below it when `newestFirst`). */
  sortPast?: string;
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  newestFirst?: boolean;
  consistent?: boolean;
}

/**
 * The list a cursor belongs to: the index and partition it pages through, and the sort-key prefix (a key past
 * another prefix's is one DynamoDB refuses as a start, so such a cursor is refused as not this list's).
 */
const listOf = (input: QueryPageInput) =>
  `${input.index ?? 'table'}|${input.partition}${input.sortBeginsWith === undefined ? '' : `|${input.sortBeginsWith}`}`;

/**
 * Up to `limit` items of a partition from `startKey` on, in sort-key order, and the key to continue
 * from. With a filter, DynamoDB applies `Limit` before filtering, so this keeps reading (a bounded
 * number of rounds) until the page is full.
 */
export async function queryKeys(
  input: QueryPageInput,
  limit: number,
  from: Key | undefined,
): Promise<{ items: StoredItem[]; nextKey: Key | undefined }> {
  const index = input.index ? globalIndexes.find((candidate) => candidate.name === input.index) : undefined;
  const partitionAttribute = index ? index.partition : keyAttributes.partition;
  const sortAttribute = index ? index.sort : keyAttributes.sort;
  const items: StoredItem[] = [];
  let startKey = from;
  let lastEvaluated: Key | undefined;
  const maxRounds = input.filter ? 10 : 1;
  for (let round = 0; round < maxRounds; round++) {
    const request: QueryCommandInput = {
      TableName: table(),
      IndexName: input.index,
      KeyConditionExpression: input.sortBeginsWith
        ? '#p = :p AND begins_with(#s, :s)'
        : input.sortBetween
          ? '#p = :p AND #s BETWEEN :s AND :t'
          : input.sortPast !== undefined
            ? `#p = :p AND #s ${input.newestFirst ? '<' : '>'} :s`
            : '#p = :p',
      ExpressionAttributeNames: {
        '#p': partitionAttribute,
        ...(input.sortBeginsWith || input.sortBetween || input.sortPast !== undefined ? { '#s': sortAttribute } : {}),
        ...input.filter?.names,
      },
      ExpressionAttributeValues: {
        ':p': input.partition,
        ...(input.sortBeginsWith ? { ':s': input.sortBeginsWith } : {}),
        ...(input.sortBetween ? { ':s': input.sortBetween[0], ':t': input.sortBetween[1] } : {}),
        ...(input.sortPast !== undefined ? { ':s': input.sortPast } : {}),
        ...input.filter?.values,
      },
      FilterExpression: input.filter?.expression,
      ScanIndexForward: !input.newestFirst,
      ConsistentRead: input.index ? undefined : (input.consistent ?? true),
      ExclusiveStartKey: startKey,
      Limit: limit + 1 - items.length,
    };
    const result = await db.send(new QueryCommand(request));
    items.push(...(result.Items ?? []));
    lastEvaluated = result.LastEvaluatedKey ? tableKey(result.LastEvaluatedKey) : undefined;
    if (items.length > limit || !lastEvaluated) break;
    startKey = lastEvaluated;
  }
  if (items.length > limit) {
    const visible = items.slice(0, limit);
    const last = visible[visible.length - 1];
    return {
      items: visible,
      nextKey: tableKey(Object.fromEntries(keyNames(input.index).map((name) => [name, last?.[name]]))),
    };
  }
  return { items, nextKey: lastEvaluated };
}

/**
 * One page of a list, for a client: the cursor it continues from must be one this list issued
 * (shared/adapters/dynamo/cursors.ts), so no crafted key ever reaches DynamoDB. Each item is read
 * by the entity's reader (shared/adapters/dynamo/stored-items.ts).
 */
export async function queryPage<T>(input: QueryPageInput, page: PageRequest, read: ItemRead<T>): Promise<Page<T>> {
  const list = listOf(input);
  const from = page.cursor ? tableKey(await openCursor(list, page.cursor)) : undefined;
  const { items, nextKey } = await queryKeys(input, page.limit, from);
  return { items: items.map(read), nextCursor: nextKey ? await sealCursor(list, nextKey) : null };
}

/** Every item of a partition, for the service's own use (no cursor leaves the function), each read by `read`. */
export async function queryAll<T>(input: QueryPageInput, read: ItemRead<T>): Promise<T[]> {
  const all: T[] = [];
  let from: Key | undefined;
  do {
    const page = await queryKeys(input, 1000, from);
    for (const item of page.items) all.push(read(item));
    from = page.nextKey;
  } while (from);
  return all;
}

type ItemRead<T> = (item: StoredItem) => T;

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

export function isTransactionConflict(error: unknown): boolean {
  return error instanceof Error && error.name === 'TransactionCanceledException';
}

/**
 * A conditional write (or a transaction of them): true when it was written, false, with nothing
 * written, when a condition did not hold (or, for a transaction, another one held an item).
 */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error) || isTransactionConflict(error)) return false;
    throw error;
  }
}

/**
 * A conditional write whose refusal means something to the caller: a failed condition (or a
 * cancelled transaction) becomes the error `refused` makes, such as NOT_FOUND or CONFLICT.
 */
export async function writeOrRefuse<T>(write: Promise<T>, refused: () => Error | Promise<Error>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error) || isTransactionConflict(error)) throw await refused();
    throw error;
  }
}

/**
 * A transaction of conditional writes: true when written, false, writing nothing, when DynamoDB
 * cancelled it for a condition (`ConditionalCheckFailed`). A cancellation for `TransactionConflict`
 * only says another transaction held one of the items at that moment (nobody may have won yet), so it
 * is tried again (with jitter, `claimAttempts` in all) rather than read as the condition's answer: a
 * claim would be answered as taken, a count made once dropped. Any other cancellation is thrown.
 */
export async function transactionHeld(
  command: TransactWriteCommand,
  send?: (command: TransactWriteCommand) => Promise<unknown>,
  pause?: (ms: number) => Promise<void>,
): Promise<boolean> {
  return (await transactionRefusal(command, send, pause)) === null;
}

/**
 * As transactionHeld, for a caller that needs to know which condition failed: null when written,
 * else the code of each item of the transaction, in order (`ConditionalCheckFailed` for each whose
 * condition did not hold, `None` for the others).
 */
export async function transactionRefusal(
  command: TransactWriteCommand,
  send: (command: TransactWriteCommand) => Promise<unknown> = (sent) => db.send(sent),
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<string[] | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      await send(command);
      return null;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes.includes('ConditionalCheckFailed')) return codes;
      if (!codes.includes('TransactionConflict') || attempt >= claimAttempts) throw error;
      await pause(Math.random() * 25 * 2 ** attempt);
    }
  }
}

/**
 * A write of one item that met a transaction holding that item (DynamoDB's
 * TransactionConflictException, which the SDK does not retry: it is no throttle) is tried again, with
 * jitter, `claimAttempts` in all: an item some transactions write (a store's, which every first commit
 * in it raises) takes plain writes beside them. Any other error is thrown as it came.
 */
export async function besideTransactions<T>(
  write: () => Promise<T>,
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TransactionConflictException') || attempt >= claimAttempts)
        throw error;
      await pause(Math.random() * 25 * 2 ** attempt);
    }
  }
}

/**
 * Puts `item` together with `claim`, an item keyed by a value that must be unique (a slug, an
 * email, a message id), in one transaction: of two writers of one value, exactly one wins.
 * Answers false, writing nothing, when the value is taken (or the item exists); a conflict with
 * another transaction is tried again (transactionHeld).
 */
export async function putWithUniqueClaim(
  claim: Record<string, unknown>,
  item: Record<string, unknown>,
  send?: (command: TransactWriteCommand) => Promise<unknown>,
  pause?: (ms: number) => Promise<void>,
): Promise<boolean> {
  const command = new TransactWriteCommand({
    TransactItems: [claim, item].map((Item) => ({
      Put: { TableName: table(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
    })),
  });
  return transactionHeld(command, send, pause);
}

const claimAttempts = 6;

/** The code DynamoDB gave each item of a cancelled transaction (`None` for an item that was not the cause). */
export function cancellationCodes(error: unknown): string[] {
  if (!(error instanceof TransactionCanceledException)) return [];
  return (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

/** SET the given fields (names are escaped), optionally under a condition; returns the new item. */
export function setFieldsCommand(
  key: Record<string, string>,
  fields: Record<string, unknown>,
  condition: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> } = {
    expression: 'attribute_exists(pk)',
  },
) {
  const entries = Object.entries(fields);
  return {
    TableName: table(),
    Key: key,
    UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: {
      ...Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
      ...condition.names,
    },
    ExpressionAttributeValues: {
      ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
      ...condition.values,
    },
  };
}

/** One request of a BatchWriteItem: an item to put, or the key of one to delete. */
export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/** A request DynamoDB handed back unprocessed, as it was sent: a put or a delete. */
function unprocessed(request: {
  PutRequest?: { Item?: StoredItem };
  DeleteRequest?: { Key?: StoredItem };
}): WriteRequest {
  if (request.PutRequest?.Item) return { PutRequest: { Item: request.PutRequest.Item } };
  if (request.DeleteRequest?.Key) return { DeleteRequest: { Key: tableKey(request.DeleteRequest.Key) } };
  throw new Error('DynamoDB handed back an unprocessed request that is neither a put nor a delete');
}

const keyOfRequest = (request: WriteRequest) => {
  const item = 'PutRequest' in request ? request.PutRequest.Item : request.DeleteRequest.Key;
  return `${item[keyAttributes.partition]}\u0000${item[keyAttributes.sort]}`;
};

/**
 * Reads the items of these keys, 100 per BatchGetItem, the one place the table's batch reads go
 * through; a key with no item is left out. Keys DynamoDB leaves unprocessed are asked again with a
 * growing pause; still some after the last attempt throws.
 */
export async function batchGetAll(
  keys: Record<string, unknown>[],
  options: { consistent?: boolean } = {},
): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 100);
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`DynamoDB left ${pending.length} key(s) unprocessed after ${attempt} attempts`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const result: BatchGetCommandOutput = await db.send(
        new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending, ConsistentRead: options.consistent } } }),
      );
      items.push(...(result.Responses?.[table()] ?? []));
      pending = result.UnprocessedKeys?.[table()]?.Keys;
    }
  }
  return items;
}

/**
 * Writes every request, 25 per BatchWriteItem, the one place the table's batch writes go through.
 * DynamoDB answers a batch with the items it did not process (`UnprocessedItems`) rather than an
 * error: those are sent again, with a growing pause, until none is left; still some after the last
 * attempt throws. Two requests for one key in one batch fail the whole batch: the later one is
 * kept, as it would win were they written one by one.
 */
export async function batchWriteAll(
  requests: WriteRequest[],
  send: (command: BatchWriteCommand) => Promise<BatchWriteCommandOutput> = (command) => db.send(command),
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> {
  const latest = new Map<string, WriteRequest>();
  for (const request of requests) {
    const key = keyOfRequest(request);
    latest.delete(key);
    latest.set(key, request);
  }
  const unique = [...latest.values()];
  for (let i = 0; i < unique.length; i += 25) {
    let pending: WriteRequest[] = unique.slice(i, i + 25);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 8)
        throw new Error(`DynamoDB left ${pending.length} write(s) unprocessed after ${attempt - 1} attempts`);
      if (attempt > 1) await pause(Math.min(2000, 50 * 2 ** attempt));
      const answer = await send(new BatchWriteCommand({ RequestItems: { [table()]: pending } }));
      pending = (answer.UnprocessedItems?.[table()] ?? []).map(unprocessed);
    }
  }
}
