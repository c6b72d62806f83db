/**
 * What the cost bench counts, taken from the calls themselves in this process (local mode runs every
 * function here): a middleware on every AWS SDK client records each request with what AWS bills for
 * it (DynamoDB consumed capacity, SQS 64 KB chunks, the S3 request class), and every function
 * invocation is timed with its CPU, its calls and the log bytes it writes. Invocations are seen
 * through a wrapper around each function's handler (bench/cost-hooks.mjs puts it there at import).
 */
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { Client } from '@smithy/core/client';

export interface MeteredCall {
  service: 'DynamoDB' | 'SQS' | 'S3' | 'STS' | 'Secrets Manager' | string;
  operation: string;
  /** ms since the invocation started (or since the meter started, outside invocations). */
  start: number;
  end: number;
  /** DynamoDB: write and read request units, as AWS would charge them. */
  writeUnits: number;
  readUnits: number;
  /**
   * DynamoDB: the entity the request touched (the key's prefix), for the breakdown; S3: the key's
   * first segment; SQS: the queue's name.
   */
  entity: string;
  /** SQS: requests as billed (64 KB chunks). */
  sqsRequests: number;
  /** S3: the request class, and bytes stored by a PUT. */
  s3Class: 'put' | 'get' | 'free' | null;
  storedBytes: number;
  messages: number;
  failed: boolean;
  /** performance.now() when the call started (`start` is relative to its invocation). */
  at: number;
  /** DynamoDB: the partition keys the call touched (the table's and each index's), with the units each took. */
  partitions: PartitionUse[];
  /** DynamoDB: the largest item the call wrote, in bytes as DynamoDB sizes items (0 when it wrote none it could size). */
  itemBytes: number;
  /** DynamoDB: the call was refused because an item passed 400 KB. */
  itemTooLarge: boolean;
  /** S3: the bucket and the key's directory (S3's request rates are per prefix). */
  prefix: string;
  /** S3: the object's key (a PUT's, a GET's). */
  objectKey: string;
}

/** Units one partition key took from one call. */
export interface PartitionUse {
  /** `table <pk>` or `<index> <gsi pk>`. */
  key: string;
  writeUnits: number;
  readUnits: number;
  /** The sort key of the item the units went to (a single item's request; none for a query). */
  sortKey?: string;
}

export interface Invocation {
  entry: string;
  /** performance.now() when it started. */
  startedAt: number;
  wallMs: number;
  /** The process's CPU over the invocation's wall time: its own, and whatever else ran meanwhile. */
  cpuMicros: number;
  /**
   * Its own CPU alone, once `attributeCpu()` is on: the CPU of each callback that ran in its context
   * while it was under way, whatever else ran between them (undefined while off).
   */
  ownCpuMicros?: number;
  calls: MeteredCall[];
  logBytes: number;
  logLines: number;
  /** An HTTP request's body as API Gateway received it (it meters requests in 512 KB steps). */
  requestBytes: number;
}

export interface Reading {
  invocations: Invocation[];
  /** Calls made outside any invocation: the event source mapping's polls and deletes, timers. */
  outside: MeteredCall[];
}

interface Context {
  invocation: Invocation | null;
  startedAt: number;
}

const store = new AsyncLocalStorage<Context>();
let reading: Reading = { invocations: [], outside: [] };
let meterStarted = performance.now();

// --- CPU by invocation: each callback's CPU goes to the invocation whose context it runs in.

let attributing = false;
/** The invocation the thread works for now (null: the runtime, the bench, or no invocation under way). */
let holder: Invocation | null = null;
let holderSince = 0;
const holders: (Invocation | null)[] = [];
const underWay = new WeakSet<Invocation>();

const cpuNow = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

/** The CPU since the last switch to the invocation that had the thread, and the thread to `next`. */
function switchTo(next: Invocation | null): void {
  if (holder === next) return;
  if (holder === null && next === null) return;
  const now = cpuNow();
  if (holder) holder.ownCpuMicros = (holder.ownCpuMicros ?? 0) + now - holderSince;
  holder = next;
  holderSince = now;
}

function contextInvocation(): Invocation | null {
  const invocation = store.getStore()?.invocation ?? null;
  return invocation && underWay.has(invocation) ? invocation : null;
}

/**
 * Local mode runs every function in this one thread, so the process's CPU over an invocation holds
 * that of every invocation, poller and timer that ran beside it, more of it the longer the machine
 * makes the invocation wait. On, each callback (a promise's continuation, a timer, an I/O answer) is
 * charged to the invocation whose context it runs in, from the process's CPU clock read as it starts
 * and ends: an invocation's own CPU, however busy the process or the machine. It costs a clock read a
 * callback, so it is off unless a bench asks for it.
 */
export function attributeCpu(): void {
  if (attributing) return;
  attributing = true;
  createHook({
    before() {
      holders.push(holder);
      switchTo(contextInvocation());
    },
    after() {
      switchTo(holders.pop() ?? null);
    },
  }).enable();
}

/** Runs the bench's own calls past the meter. */
export function unmetered<T>(work: () => Promise<T>): Promise<T> {
  return store.run({ invocation: null, startedAt: 0 }, work);
}

/** What was recorded since the last take, and a fresh start. */
export function take(): Reading {
  const taken = reading;
  reading = { invocations: [], outside: [] };
  meterStarted = performance.now();
  return taken;
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/** Runs `work` as one invocation of `entry`, timed and metered: its answer, and the invocation it made. */
export async function invoke<T>(
  entry: string,
  work: () => Promise<T>,
  requestBytes = 0,
): Promise<{ value: T; invocation: Invocation }> {
  const invocation: Invocation = {
    entry,
    startedAt: 0,
    wallMs: 0,
    cpuMicros: 0,
    calls: [],
    logBytes: 0,
    logLines: 0,
    requestBytes,
  };
  const startedAt = performance.now();
  invocation.startedAt = startedAt;
  const cpu = process.cpuUsage();
  try {
    const context = { invocation, startedAt };
    // Its synchronous start runs inside its caller's callback: charged to it from here.
    let answer: Promise<T>;
    if (attributing) {
      invocation.ownCpuMicros = 0;
      underWay.add(invocation);
      const caller = holder;
      switchTo(invocation);
      try {
        answer = store.run(context, work);
      } finally {
        switchTo(caller);
      }
    } else answer = store.run(context, work);
    return { value: await answer, invocation };
  } finally {
    invocation.wallMs = performance.now() - startedAt;
    const used = process.cpuUsage(cpu);
    invocation.cpuMicros = used.user + used.system;
    underWay.delete(invocation);
    reading.invocations.push(invocation);
  }
}

/** Called by the import hook for every module under functions/: the handler, timed and metered. */
export function wrapHandler(entry: string, handler: Handler | undefined): Handler | undefined {
  if (typeof handler !== 'function') return handler;
  return async (event, context) => {
    const http = event as { body?: string; isBase64Encoded?: boolean } | null;
    const requestBytes =
      typeof http?.body === 'string' ? Buffer.byteLength(http.body, http.isBase64Encoded ? 'base64' : 'utf8') : 0;
    return (await invoke(entry, () => handler(event, context), requestBytes)).value;
  };
}

// --- Log bytes: what each invocation writes to stdout and stderr is what Lambda sends to CloudWatch.

type Write = typeof process.stdout.write;
const originalStdout = process.stdout.write.bind(process.stdout) as Write;
const originalStderr = process.stderr.write.bind(process.stderr) as Write;

function meteredWrite(): Write {
  return ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const context = store.getStore();
    if (!context?.invocation) return (originalStderr as (...args: unknown[]) => boolean)(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    context.invocation.logBytes += Buffer.byteLength(text);
    context.invocation.logLines += text.split('\n').filter((line) => line.trim() !== '').length;
    const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as Write;
}

// Outside invocations (the runtime's own lines), output goes to stderr, keeping stdout for the report.
process.stdout.write = meteredWrite();
process.stderr.write = meteredWrite();

/** The bench's own output, past the meter. */
export const print = (text: string) => originalStdout(text);

// --- AWS SDK calls.

const serviceOf: Record<string, MeteredCall['service']> = {
  DynamoDBClient: 'DynamoDB',
  SQSClient: 'SQS',
  S3Client: 'S3',
  STSClient: 'STS',
  SecretsManagerClient: 'Secrets Manager',
};

const dynamoReads = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const dynamoCapacityOps = new Set([
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'TransactGetItems',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);
const s3PutClass = new Set([
  'PutObject',
  'CopyObject',
  'ListObjectsV2',
  'ListObjects',
  'CreateMultipartUpload',
  'UploadPart',
  'CompleteMultipartUpload',
  'ListBuckets',
  'CreateBucket',
]);
const s3Free = new Set(['DeleteObject', 'DeleteObjects', 'AbortMultipartUpload']);

type Dict = Record<string, unknown>;

function firstKey(input: Dict): unknown {
  if (input.Key) return input.Key;
  if (input.Item) return input.Item;
  const values = input.ExpressionAttributeValues as Dict | undefined;
  if (values) {
    const partition = values[':pk'] ?? values[':p'];
    if (partition !== undefined) return { pk: partition };
  }
  const requests = input.RequestItems as Dict | undefined;
  if (requests) {
    const first = Object.values(requests)[0] as Dict | Dict[] | undefined;
    if (Array.isArray(first)) {
      const request = first[0] as Dict | undefined;
      return (request?.PutRequest as Dict | undefined)?.Item ?? (request?.DeleteRequest as Dict | undefined)?.Key;
    }
    return (first?.Keys as Dict[] | undefined)?.[0];
  }
  const transact = input.TransactItems as Dict[] | undefined;
  if (transact?.[0]) {
    const operation = Object.values(transact[0])[0] as Dict;
    return operation.Key ?? operation.Item;
  }
  return undefined;
}

function entityOf(input: Dict): string {
  const key = firstKey(input) as Dict | undefined;
  let partition = key?.pk as unknown;
  if (partition && typeof partition === 'object' && 'S' in (partition as Dict)) partition = (partition as Dict).S;
  if (typeof partition !== 'string') return input.IndexName ? `index ${String(input.IndexName)}` : 'other';
  return partition.split('#')[0] || 'other';
}

function capacityUnits(consumed: unknown): number {
  const entries = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  let total = 0;
  for (const entry of entries as Dict[]) {
    if (typeof entry.CapacityUnits === 'number') total += entry.CapacityUnits;
    else total += Number(entry.WriteCapacityUnits ?? 0) + Number(entry.ReadCapacityUnits ?? 0);
  }
  return total;
}

function countKeys(input: Dict): { keys: number; consistent: boolean } {
  let keys = 0;
  let consistent = false;
  for (const request of Object.values((input.RequestItems as Dict) ?? {}) as Dict[]) {
    keys += ((request.Keys as unknown[]) ?? []).length;
    consistent ||= Boolean(request.ConsistentRead);
  }
  return { keys, consistent };
}

function countReturned(output: Dict): number {
  return Object.values((output.Responses as Dict) ?? {}).reduce<number>(
    (sum, items) => sum + ((items as unknown[]) ?? []).length,
    0,
  );
}

/**
 * DynamoDB Local reports consumed capacity as AWS does for single requests; where it does not,
 * AWS's rules fill in: a transaction costs twice for each item it holds, a batch get charges every
 * key (found or not), and a conditional write that fails still costs its write.
 */
function dynamoUnits(operation: string, input: Dict, output: Dict | null, failed: boolean) {
  const read = dynamoReads.has(operation);
  let units = output ? capacityUnits(output.ConsumedCapacity) : 0;
  if (operation === 'BatchGetItem' && output) {
    const { keys, consistent } = countKeys(input);
    const unprocessed = countKeys({ RequestItems: (output.UnprocessedKeys as Dict) ?? {} }).keys;
    units += Math.max(0, keys - unprocessed - countReturned(output)) * (consistent ? 1 : 0.5);
  }
  // DynamoDB Local reports two units for a whole transaction, whatever it holds; AWS charges two per
  // item (each 1 KB written, each 4 KB read), an update or a check counted at its smallest.
  if (operation.startsWith('Transact'))
    units = Math.max(
      units * 2,
      requestItems(operation, input).reduce(
        (sum, { item }) => sum + 2 * Math.max(1, Math.ceil(itemBytes(item ?? {}) / (read ? 4096 : 1024))),
        0,
      ),
    );
  if (failed && !read)
    units = operation.startsWith('Transact') ? 2 * ((input.TransactItems as unknown[]) ?? []).length : 1;
  return read ? { writeUnits: 0, readUnits: units } : { writeUnits: units, readUnits: 0 };
}

function byteLength(body: unknown): number {
  if (body === undefined || body === null) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return 0;
}

function sqsRequests(
  operation: string,
  input: Dict,
  output: Dict | null,
  chunk: number,
): { requests: number; messages: number } {
  const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / chunk));
  if (operation === 'SendMessage') return { requests: chunks(byteLength(input.MessageBody)), messages: 1 };
  if (operation === 'SendMessageBatch') {
    const entries = (input.Entries as Dict[]) ?? [];
    return {
      requests: chunks(entries.reduce((sum, entry) => sum + byteLength(entry.MessageBody), 0)),
      messages: entries.length,
    };
  }
  if (operation === 'ReceiveMessage') {
    const messages = (output?.Messages as Dict[]) ?? [];
    return {
      requests: chunks(messages.reduce((sum, message) => sum + byteLength(message.Body), 0)),
      messages: messages.length,
    };
  }
  return { requests: 1, messages: 0 };
}

// --- DynamoDB partitions and item sizes, for the scale bench.

/** A value as the document client gives it, or as DynamoDB's own attribute value ({S}, {N}, {M}, …). */
function plain(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
    const entries = Object.entries(value as Dict);
    if (entries.length === 1) {
      const [type, inner] = entries[0] as [string, unknown];
      if (type === 'S' || type === 'N' || type === 'BOOL' || type === 'B' || type === 'NULL') return inner;
      if (type === 'M') return Object.fromEntries(Object.entries(inner as Dict).map(([k, v]) => [k, plain(v)]));
      if (type === 'L') return (inner as unknown[]).map(plain);
      if (type === 'SS' || type === 'NS') return inner;
    }
  }
  return value;
}

/** An attribute value's size as DynamoDB counts it (strings by UTF-8 bytes, numbers ~1 byte per two digits). */
function valueBytes(value: unknown): number {
  const v = plain(value);
  if (v === null || v === undefined || typeof v === 'boolean') return 1;
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (typeof v === 'number' || typeof v === 'bigint') return Math.ceil(String(v).replace(/[-.]/g, '').length / 2) + 1;
  if (v instanceof Uint8Array) return v.byteLength;
  if (v instanceof Set) return [...v].reduce<number>((sum, item) => sum + valueBytes(item), 0);
  if (Array.isArray(v)) return 3 + v.reduce<number>((sum, item) => sum + 1 + valueBytes(item), 0);
  if (typeof v === 'object')
    return (
      3 +
      Object.entries(v as Dict).reduce((sum, [name, item]) => sum + Buffer.byteLength(name) + 1 + valueBytes(item), 0)
    );
  return 1;
}

/** An item's size as DynamoDB counts it: each attribute's name and value. */
export function itemBytes(item: Dict): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

const indexNames = ['gsi1', 'gsi2'];

/** The partition keys an item (or a key, or an update's new values) sits under: the table's, and each index's it sets. */
function keysOfItem(item: Dict | undefined, update?: Dict): string[] {
  const keys: string[] = [];
  const pk = plain(item?.pk);
  if (typeof pk === 'string') keys.push(`table ${pk}`);
  for (const index of indexNames) {
    const direct = plain(item?.[`${index}pk`]);
    if (typeof direct === 'string') keys.push(`${index} ${direct}`);
  }
  if (update) {
    const expression = String(update.UpdateExpression ?? '');
    const names = (update.ExpressionAttributeNames ?? {}) as Dict;
    const values = (update.ExpressionAttributeValues ?? {}) as Dict;
    for (const match of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
      const name = String(match[1]?.startsWith('#') ? names[match[1]] : match[1]);
      const index = indexNames.find((candidate) => name === `${candidate}pk`);
      const value = plain(values[match[2] as string]);
      if (index && typeof value === 'string') keys.push(`${index} ${value}`);
    }
  }
  return keys;
}

/** The partition a query reads: its index's, or the table's, from the key condition. */
function queryKey(input: Dict): string | null {
  const expression = String(input.KeyConditionExpression ?? '');
  const names = (input.ExpressionAttributeNames ?? {}) as Dict;
  const values = (input.ExpressionAttributeValues ?? {}) as Dict;
  const index = typeof input.IndexName === 'string' ? input.IndexName : null;
  for (const match of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const name = String(match[1]?.startsWith('#') ? names[match[1]] : match[1]);
    if (name === (index ? `${index}pk` : 'pk'))
      return `${index ?? 'table'} ${String(plain(values[match[2] as string]))}`;
  }
  return null;
}

type ItemKind = 'put' | 'update' | 'delete' | 'check' | 'get';

/** The items (or keys) of a request, each with what the request does to it (and the update, for one). */
function requestItems(operation: string, input: Dict): { item: Dict | undefined; kind: ItemKind; update?: Dict }[] {
  if (operation === 'PutItem') return [{ item: input.Item as Dict, kind: 'put' }];
  if (operation === 'UpdateItem') return [{ item: input.Key as Dict, kind: 'update', update: input }];
  if (operation === 'DeleteItem') return [{ item: input.Key as Dict, kind: 'delete' }];
  if (operation === 'GetItem') return [{ item: input.Key as Dict, kind: 'get' }];
  if (operation === 'BatchWriteItem')
    return Object.values((input.RequestItems ?? {}) as Dict).flatMap((requests) =>
      (requests as Dict[]).map((request) =>
        request.PutRequest
          ? { item: (request.PutRequest as Dict).Item as Dict, kind: 'put' as const }
          : { item: (request.DeleteRequest as Dict | undefined)?.Key as Dict, kind: 'delete' as const },
      ),
    );
  if (operation === 'BatchGetItem')
    return Object.values((input.RequestItems ?? {}) as Dict).flatMap((request) =>
      (((request as Dict).Keys ?? []) as Dict[]).map((key) => ({ item: key, kind: 'get' as const })),
    );
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems')
    return ((input.TransactItems ?? []) as Dict[]).map((entry) => {
      const [name, body] = Object.entries(entry)[0] as [string, Dict];
      const kind: ItemKind =
        name === 'Put'
          ? 'put'
          : name === 'Update'
            ? 'update'
            : name === 'Delete'
              ? 'delete'
              : name === 'Get'
                ? 'get'
                : 'check';
      return { item: (body.Item ?? body.Key) as Dict, kind, ...(kind === 'update' ? { update: body } : {}) };
    });
  return [];
}

/**
 * The units each partition key took: a query's all on its partition; a request of several items
 * shares its units among them by their sizes (each index's own units go to the index's keys).
 */
function partitionUses(operation: string, input: Dict, output: Dict | null, call: MeteredCall): PartitionUse[] {
  const units = call.writeUnits + call.readUnits;
  const read = call.readUnits > 0;
  const use = (key: string, share: number, sortKey?: unknown): PartitionUse => ({
    key,
    writeUnits: read ? 0 : share,
    readUnits: read ? share : 0,
    ...(typeof sortKey === 'string' ? { sortKey } : {}),
  });
  if (operation === 'Query' || operation === 'Scan') {
    // Its partition even when it found nothing (DynamoDB Local reports no units for that): which
    // partition a call read is what tells a schedule's run readings from its work.
    const key = queryKey(input);
    return key ? [use(key, units)] : [];
  }
  if (units === 0) return [];
  const items = requestItems(operation, input);
  if (items.length === 0) return [];
  // What the indexes took, from the consumed capacity's breakdown, goes to the index keys.
  const consumed = (Array.isArray(output?.ConsumedCapacity) ? output?.ConsumedCapacity : [output?.ConsumedCapacity]) as
    | (Dict | undefined)[]
    | undefined;
  let indexUnits = 0;
  for (const entry of consumed ?? [])
    for (const index of Object.values((entry?.GlobalSecondaryIndexes ?? {}) as Dict))
      indexUnits += Number((index as Dict).CapacityUnits ?? 0);
  const scale = call.failed ? 1 : operation.startsWith('Transact') ? 2 : 1;
  indexUnits = Math.min(units, indexUnits * scale);
  const uses: PartitionUse[] = [];
  const sizes = items.map(({ item }) => Math.max(1, itemBytes(item ?? {})));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  items.forEach(({ item, update }, i) => {
    const keys = keysOfItem(item, update);
    const share = (sizes[i] as number) / total;
    const tableKey = keys.find((key) => key.startsWith('table '));
    const sortKey = plain(item?.sk);
    if (tableKey) uses.push(use(tableKey, (units - indexUnits) * share, sortKey));
    const indexKeys = keys.filter((key) => !key.startsWith('table '));
    for (const key of indexKeys) uses.push(use(key, (indexUnits * share) / indexKeys.length, sortKey));
  });
  return uses;
}

/** The largest item a write made: a put's item as sent; an update's from its units (a unit per KB of the larger of before and after). */
function largestItemWritten(operation: string, input: Dict, output: Dict | null, call: MeteredCall): number {
  let largest = 0;
  for (const { item, kind } of requestItems(operation, input))
    if (kind === 'put') largest = Math.max(largest, itemBytes(item ?? {}));
  // An update is billed a unit per KB of the larger of the item before and after: the table's own units.
  if (operation === 'UpdateItem' && !call.failed) largest = Math.max(largest, tableUnits(output) * 1024);
  return largest;
}

/** The units a request took on the table itself (not its indexes), as the consumed capacity details them. */
function tableUnits(output: Dict | null): number {
  const consumed = output?.ConsumedCapacity as Dict | undefined;
  const table = consumed?.Table as Dict | undefined;
  return Number(table?.CapacityUnits ?? consumed?.CapacityUnits ?? 0);
}

const chunkBytes = 64 * 1024;
const instrumented = new WeakSet<object>();

function record(call: MeteredCall, context: Context | undefined): void {
  if (context && !context.invocation) return;
  if (context?.invocation) {
    call.start -= context.startedAt;
    call.end -= context.startedAt;
    context.invocation.calls.push(call);
  } else {
    call.start -= meterStarted;
    call.end -= meterStarted;
    reading.outside.push(call);
  }
}

type Next = (args: { input: Dict }) => Promise<{ output: Dict }>;

function meterMiddleware(next: Next, handlerContext: { clientName?: string; commandName?: string }) {
  return async (args: { input: Dict }) => {
    const service = serviceOf[handlerContext.clientName ?? ''] ?? handlerContext.clientName ?? 'unknown';
    const operation = (handlerContext.commandName ?? 'unknown').replace(/Command$/, '');
    if (service === 'DynamoDB' && dynamoCapacityOps.has(operation) && !args.input.ReturnConsumedCapacity) {
      args = { ...args, input: { ...args.input, ReturnConsumedCapacity: 'INDEXES' } };
    }
    const context = store.getStore();
    const start = performance.now();
    let output: Dict | null = null;
    let failed = false;
    let tooLarge = false;
    try {
      const result = await next(args);
      output = result.output;
      return result;
    } catch (error) {
      failed = true;
      tooLarge = /Item size has exceeded|Item size to update has exceeded/i.test(String((error as Error).message));
      throw error;
    } finally {
      const call: MeteredCall = {
        service,
        operation,
        start,
        end: performance.now(),
        writeUnits: 0,
        readUnits: 0,
        entity: '',
        sqsRequests: 0,
        s3Class: null,
        storedBytes: 0,
        messages: 0,
        failed,
        at: start,
        partitions: [],
        itemBytes: 0,
        itemTooLarge: false,
        prefix: '',
        objectKey: '',
      };
      if (service === 'DynamoDB') {
        Object.assign(call, dynamoUnits(operation, args.input, output, failed), { entity: entityOf(args.input) });
        call.partitions = partitionUses(operation, args.input, output, call);
        call.itemBytes = largestItemWritten(operation, args.input, output, call);
        call.itemTooLarge = failed && tooLarge;
      } else if (service === 'SQS') {
        const { requests, messages } = sqsRequests(operation, args.input, output, chunkBytes);
        call.sqsRequests = requests;
        call.messages = messages;
        // The queue's name: the last segment of its URL.
        call.entity = typeof args.input.QueueUrl === 'string' ? (args.input.QueueUrl.split('/').pop() ?? '') : '';
      } else if (service === 'S3') {
        call.s3Class = s3Free.has(operation) ? 'free' : s3PutClass.has(operation) ? 'put' : 'get';
        call.entity = typeof args.input.Key === 'string' ? (args.input.Key.split('/')[0] ?? '') : '';
        const key =
          typeof args.input.Key === 'string'
            ? args.input.Key
            : typeof args.input.Prefix === 'string'
              ? args.input.Prefix
              : '';
        call.prefix = `${String(args.input.Bucket ?? '')}/${key.slice(0, key.lastIndexOf('/') + 1)}`;
        call.objectKey = typeof args.input.Key === 'string' ? args.input.Key : '';
        if (operation === 'PutObject' && !failed) call.storedBytes = byteLength(args.input.Body);
      }
      record(call, context);
    }
  };
}

const originalSend = Client.prototype.send;
Client.prototype.send = function send(this: Client<never, never, never, never>, ...args: unknown[]) {
  const stack = this.middlewareStack as unknown as { add(middleware: unknown, options: unknown): void };
  if (!instrumented.has(stack)) {
    instrumented.add(stack);
    stack.add(meterMiddleware, { step: 'initialize', name: 'costMeter', priority: 'high' });
  }
  return (originalSend as (...sendArgs: unknown[]) => unknown).apply(this, args);
} as typeof Client.prototype.send;
