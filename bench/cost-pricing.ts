/**
 * Pricing for `npm run bench cost` (bench/cost.ts): what the calls and invocations metered in local mode
 * cost on AWS, line by line, at the prices of bench/aws-prices.ts; the commits and staging lines from the
 * commit rule's simulation (bench/commit-model.ts); the fixed monthly cost of a deployment.
 */
import { type MetricSpec, metricCatalogue } from '#shared/domain/observability/metric-catalogue.ts';
import { consumers, schedules, stagedObjectDays } from '#shared/topology.ts';
import { assumptions, prices } from './aws-prices.ts';
import type { CommitFigures } from './commit-model.ts';
import type { Invocation, MeteredCall, Reading } from './cost-meter.ts';
import { accessLogBytes, type Deployed, ingestEntry, type readDeployment } from './deployment.ts';

export interface Scenario {
  name: string;
  eventsPerRequest: number;
  requests: number;
  /** The steady traffic priced: requests per second, arriving one writer batching window at a time. */
  ratePerSecond: number;
}

/** The pass the bench runs to commit everything staged (the table-commits function at a graceful stop). */
export const commitEntry = schedules['table-commits'].entry;
/** The function that commits a table when its trigger arrives. */
const committerEntry = consumers['table-committer'].entry;
/** The pass's own search of the index of pending tables: a committer, sent its tables by triggers, makes none. */
const ownSearch = (call: MeteredCall) => call.entity === 'PENDING';
/** What the writer sends for each table it stages whose trigger is not already on its way: the trigger, and the table listed as pending. */
export const isTriggerCall = (call: MeteredCall) =>
  (call.service === 'SQS' && call.operation === 'SendMessageBatch' && call.entity === 'commits') ||
  (call.service === 'DynamoDB' && call.operation === 'UpdateItem' && call.entity === 'STAGE');
/** A record of a table's slice of a staged batch. */
export const isRecordCall = (call: MeteredCall) =>
  call.service === 'DynamoDB' && call.operation === 'BatchWriteItem' && call.entity === 'STAGE';
export const scheduleEntries = new Set(Object.values(schedules).map((schedule) => schedule.entry));
/** The functions every event passes through (or may: the dead-letter recorder). */
const pathEntries = new Set([
  ingestEntry,
  ...Object.values(consumers)
    .filter((c) => c.queue.startsWith('ingest'))
    .map((c) => c.entry),
]);

// --- Pricing.

function latencyOf(call: MeteredCall): number {
  const latency = assumptions.callLatencyMs;
  if (call.service === 'DynamoDB')
    return /^(Batch|Transact|Query|Scan)/.test(call.operation)
      ? (latency['DynamoDB batch'] as number)
      : (latency.DynamoDB as number);
  if (call.service === 'S3')
    return latency[call.s3Class === 'put' ? 'S3 put' : call.s3Class === 'get' ? 'S3 get' : 'S3 other'] as number;
  return latency[call.service] ?? 20;
}

/**
 * How long an invocation waits on AWS: its calls at AWS's latency, in the order they were made here. A
 * call waits for those that had answered here before it was made (it may depend on them) and overlaps
 * those still in flight; the wait is the longest such chain. Only the order counts, not how long the
 * local stand-ins took: a call made after another answered follows it at AWS's latency however fast
 * or slow the machine answered it.
 */
export function waitMs(calls: MeteredCall[]): number {
  const byStart = [...calls].sort((a, b) => a.start - b.start);
  const byEnd = [...byStart].sort((a, b) => a.end - b.end);
  const awsEnd = new Map<MeteredCall, number>();
  let answered = 0;
  let ready = 0;
  let longest = 0;
  for (const call of byStart) {
    while (answered < byEnd.length && (byEnd[answered] as MeteredCall).end <= call.start)
      ready = Math.max(ready, awsEnd.get(byEnd[answered++] as MeteredCall) ?? 0);
    const end = ready + latencyOf(call);
    awsEnd.set(call, end);
    longest = Math.max(longest, end);
  }
  return longest;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

interface FunctionCost {
  entry: string;
  invocations: number;
  cpuMs: number;
  waitMs: number;
  billedMs: number;
  memoryMb: number;
  dollars: number;
  logBytes: number;
}

/**
 * The CPU an invocation used itself. Where the meter attributed each callback's CPU to its invocation
 * (`attributeCpu()`, the scale bench's), that is it. Else the process CPU over an invocation: this
 * process runs the runtime and every function at once, so that also holds the pollers' and timers'
 * share (measured at rest, per ms), which is taken out, and that of any invocation of another function
 * that started meanwhile (at its typical CPU); the ingest handler's CPU is what it used invoked alone
 * (replayIngest).
 */
export function ownCpuMs(
  everything: Invocation[],
  backgroundCpuPerMs: number,
  ingestCpuMs: number,
): Map<Invocation, number> {
  if (everything.every((inv) => inv.ownCpuMicros !== undefined))
    return new Map(everything.map((inv) => [inv, (inv.ownCpuMicros ?? 0) / 1000]));
  const raw = (inv: Invocation) =>
    inv.entry === ingestEntry ? ingestCpuMs : Math.max(0, inv.cpuMicros / 1000 - backgroundCpuPerMs * inv.wallMs);
  const byEntry = new Map<string, Invocation[]>();
  for (const inv of everything) byEntry.set(inv.entry, [...(byEntry.get(inv.entry) ?? []), inv]);
  const typical = new Map([...byEntry].map(([entry, list]) => [entry, median(list.map(raw))]));
  const own = new Map<Invocation, number>();
  for (const inv of everything) {
    const end = inv.startedAt + inv.wallMs;
    const theirs = everything
      .filter((other) => other.entry !== inv.entry && other.startedAt >= inv.startedAt && other.startedAt < end)
      .reduce((sum, other) => sum + (typical.get(other.entry) ?? 0), 0);
    own.set(inv, inv.entry === ingestEntry ? ingestCpuMs : Math.max(0, raw(inv) - theirs));
  }
  return own;
}

/**
 * Billed duration of each invocation: its own CPU time scaled to the share of a vCPU its memory buys,
 * plus what it waits on AWS.
 */
function lambdaCost(
  entry: string,
  invocations: Invocation[],
  deployed: Deployed,
  own: Map<Invocation, number>,
): FunctionCost {
  const scale = Math.max(1, assumptions.fullVcpuMemoryMb / deployed.memoryMb);
  let billedMs = 0;
  let cpuMs = 0;
  let wait = 0;
  for (const invocation of invocations) {
    const cpu = own.get(invocation) ?? 0;
    const waited = waitMs(invocation.calls);
    cpuMs += cpu;
    wait += waited;
    billedMs += Math.max(1, Math.ceil(cpu * scale + waited));
  }
  const gbSeconds = (billedMs / 1000) * (deployed.memoryMb / 1024);
  return {
    entry,
    invocations: invocations.length,
    cpuMs,
    waitMs: wait,
    billedMs,
    memoryMb: deployed.memoryMb,
    dollars: (invocations.length / 1e6) * prices.lambda.requestsPerMillion + gbSeconds * prices.lambda.perGbSecond,
    logBytes: invocations.reduce((sum, inv) => sum + inv.logBytes, 0),
  };
}

/** What a reading's invocations of one function cost in Lambda (requests and duration). */
export function functionDollars(
  deployment: ReturnType<typeof readDeployment>,
  reading: Reading,
  entry: string,
  own: Map<Invocation, number>,
): number {
  const invocations = reading.invocations.filter((inv) => inv.entry === entry);
  return lambdaCost(entry, invocations, deployment.functions.get(entry) as Deployed, own).dollars;
}

/**
 * What refused ingest requests cost each, from a reading of nothing but them: API Gateway's request,
 * the function's invocation and duration, its calls, and its log lines with the access log's.
 */
export function refusalDollars(deployment: ReturnType<typeof readDeployment>, reading: Reading) {
  const invocations = reading.invocations.filter((inv) => inv.entry === ingestEntry);
  const count = invocations.length;
  if (count === 0) throw new Error('No refused request was metered');
  const deployed = deployment.functions.get(ingestEntry) as Deployed;
  const own = new Map(invocations.map((inv) => [inv, inv.cpuMicros / 1000]));
  const lambda = lambdaCost(ingestEntry, invocations, deployed, own);
  const calls = invocations.flatMap((inv) => inv.calls);
  const platformBytes =
    deployed.systemLogLevel === 'WARN'
      ? 0
      : assumptions.platformRecords.reduce((bytes, record) => bytes + Buffer.byteLength(record) + 1, 0);
  const logBytes = lambda.logBytes / count + platformBytes + accessLogBytes(deployment.accessLogFormat);
  const perRequest =
    prices.apiGateway.httpApiPerMillion / 1e6 +
    lambda.dollars / count +
    callDollars(calls) / count +
    (logBytes / 1024 ** 3) * prices.cloudWatch.logsPerGb;
  return {
    perMillion: perRequest * 1e6,
    dynamoRequests: calls.filter((call) => call.service === 'DynamoDB').length / count,
    billedMs: lambda.billedMs / count,
    logBytes,
  };
}

function sampledFraction(perSecond: number): number {
  if (perSecond <= 0) return 1;
  const reservoir = Math.min(1, prices.xRay.defaultReservoirPerSecond / perSecond);
  return reservoir + (1 - reservoir) * prices.xRay.defaultRate;
}

/** What a set of calls costs, in dollars (not per million). */
export function callDollars(calls: MeteredCall[]): number {
  let dollars = 0;
  for (const call of calls) {
    dollars += (call.sqsRequests / 1e6) * prices.sqs.requestsPerMillion;
    dollars += (call.writeUnits / 1e6) * prices.dynamoDb.writeUnitsPerMillion;
    dollars += (call.readUnits / 1e6) * prices.dynamoDb.readUnitsPerMillion;
    if (call.s3Class === 'put') dollars += prices.s3.putPerThousand / 1000;
    if (call.s3Class === 'get') dollars += prices.s3.getPerThousand / 1000;
  }
  return dollars;
}

interface LineItem {
  item: string;
  detail: string;
  dollars: number;
}

export function price(
  deployment: ReturnType<typeof readDeployment>,
  scenario: Scenario,
  run: { reading: Reading; own: Map<Invocation, number> },
  commits: LineItem,
  /** The writer's records and triggers, counted by the commit rule's simulation and priced per unit. */
  staging: LineItem[],
  /**
   * Staged objects the scenario's commits removed (those that held one table's slices), and how long
   * one waits for its commit: kept that long, where the others are kept until the lifecycle rule.
   */
  removed: { keys: Set<string>; afterSeconds: number } = { keys: new Set(), afterSeconds: 0 },
) {
  const events = scenario.requests * scenario.eventsPerRequest;
  const perMillion = 1e6 / events;
  const { reading } = run;
  const onPath = reading.invocations.filter((inv) => pathEntries.has(inv.entry));
  const { own } = run;
  const calls = [
    ...onPath.flatMap((inv) => inv.calls).filter((call) => !isTriggerCall(call) && !isRecordCall(call)),
    // Outside invocations: the event source mapping's receives that carried records and its deletes,
    // and anything a function's timers did.
    ...reading.outside.filter(
      (call) => call.service !== 'SQS' || call.operation !== 'ReceiveMessage' || call.messages > 0,
    ),
  ];
  const lines: LineItem[] = [];
  const per = (count: number) => (count * perMillion) / 1e6;
  const fmtPer = (count: number, unit: string) =>
    `${(count / events).toFixed(count / events < 0.1 ? 4 : 2)} ${unit}/event`;

  const ingestInvocations = onPath.filter((inv) => inv.entry === ingestEntry);
  const metered = ingestInvocations.reduce(
    (sum, inv) => sum + Math.max(1, Math.ceil(inv.requestBytes / prices.apiGateway.meteredBytes)),
    0,
  );
  lines.push({
    item: 'API Gateway HTTP API',
    detail: fmtPer(metered, 'requests'),
    dollars: per(metered) * prices.apiGateway.httpApiPerMillion,
  });

  const functionCosts: FunctionCost[] = [];
  for (const entry of pathEntries) {
    const invocations = onPath.filter((inv) => inv.entry === entry);
    if (invocations.length === 0) continue;
    const cost = lambdaCost(entry, invocations, deployment.functions.get(entry) as Deployed, own);
    functionCosts.push(cost);
    lines.push({
      item: `Lambda ${entry.replace(/^functions\//, '').replace(/\.ts$/, '')} (${cost.memoryMb} MB)`,
      detail: `${cost.invocations} invocations, ${(cost.cpuMs / cost.invocations).toFixed(2)} ms CPU + ${(cost.waitMs / cost.invocations).toFixed(1)} ms on AWS calls → ${(cost.billedMs / cost.invocations).toFixed(1)} ms billed each`,
      dollars: cost.dollars * perMillion,
    });
  }

  const sqs = calls.filter((call) => call.service === 'SQS');
  const sqsRequests = sqs.reduce((sum, call) => sum + call.sqsRequests, 0);
  const sqsByOp = new Map<string, number>();
  for (const call of sqs) sqsByOp.set(call.operation, (sqsByOp.get(call.operation) ?? 0) + call.sqsRequests);
  lines.push({
    item: 'SQS',
    detail: `${fmtPer(sqsRequests, 'requests')} (${[...sqsByOp].map(([op, n]) => `${op} ${(n / events).toFixed(3)}`).join(', ')})`,
    dollars: per(sqsRequests) * prices.sqs.requestsPerMillion,
  });

  const dynamo = calls.filter((call) => call.service === 'DynamoDB');
  const wru = dynamo.reduce((sum, call) => sum + call.writeUnits, 0);
  const rru = dynamo.reduce((sum, call) => sum + call.readUnits, 0);
  lines.push({
    item: 'DynamoDB',
    detail: `${(wru / events).toFixed(4)} WRU + ${(rru / events).toFixed(4)} RRU per event, ${(dynamo.length / events).toFixed(3)} requests/event`,
    dollars: per(wru) * prices.dynamoDb.writeUnitsPerMillion + per(rru) * prices.dynamoDb.readUnitsPerMillion,
  });
  const byEntity = new Map<string, { wru: number; rru: number; requests: number }>();
  for (const call of dynamo) {
    const entity = byEntity.get(call.entity) ?? { wru: 0, rru: 0, requests: 0 };
    entity.wru += call.writeUnits;
    entity.rru += call.readUnits;
    entity.requests++;
    byEntity.set(call.entity, entity);
  }

  const s3 = calls.filter((call) => call.service === 'S3');
  const puts = s3.filter((call) => call.s3Class === 'put').length;
  const gets = s3.filter((call) => call.s3Class === 'get').length;
  lines.push({
    item: 'S3 requests',
    detail: `${fmtPer(puts, 'PUT/LIST')}, ${fmtPer(gets, 'GET')}`,
    dollars: per(puts) * (prices.s3.putPerThousand * 1000) + per(gets) * (prices.s3.getPerThousand * 1000),
  });

  for (const call of calls.filter((c) => !['SQS', 'DynamoDB', 'S3'].includes(c.service))) {
    lines.push({ item: call.service, detail: call.operation, dollars: 0 });
  }

  const appLogBytes = onPath.reduce((sum, inv) => sum + inv.logBytes, 0);
  const platformBytes = onPath.reduce((sum, inv) => {
    const level = (deployment.functions.get(inv.entry) as Deployed).systemLogLevel;
    return (
      sum +
      (level === 'WARN'
        ? 0
        : assumptions.platformRecords.reduce((bytes, record) => bytes + Buffer.byteLength(record) + 1, 0))
    );
  }, 0);
  const accessBytes = ingestInvocations.length * accessLogBytes(deployment.accessLogFormat);
  const logBytes = appLogBytes + platformBytes + accessBytes;
  lines.push({
    item: 'CloudWatch Logs',
    detail: `${Math.round(logBytes / events)} bytes/event: application ${Math.round(appLogBytes / events)}, platform ${Math.round(platformBytes / events)}, API access log ${Math.round(accessBytes / events)}`,
    dollars: (per(logBytes) * 1e6 * prices.cloudWatch.logsPerGb) / 1024 ** 3,
  });

  // X-Ray samples by rate: priced at the scenario's steady traffic, each function at its own rate.
  const seconds = scenario.requests / scenario.ratePerSecond;
  let traces = 0;
  for (const cost of functionCosts) {
    if (!(deployment.functions.get(cost.entry) as Deployed).tracing) continue;
    traces += cost.invocations * sampledFraction(cost.invocations / seconds);
  }
  lines.push({
    item: 'X-Ray',
    detail: traces === 0 ? 'active tracing off' : `${fmtPer(traces, 'traces')} at the default sampling rule`,
    dollars: per(traces) * prices.xRay.tracesRecordedPerMillion,
  });

  // Staged batches stay in the platform bucket until their commit removes them (one table's slices)
  // or its lifecycle rule does (several tables').
  const staged = s3.filter((call) => call.entity === 'staging' && call.storedBytes > 0);
  const stagedBytes = staged.reduce((sum, call) => sum + call.storedBytes, 0);
  const removedBytes = staged
    .filter((call) => removed.keys.has(call.objectKey))
    .reduce((sum, call) => sum + call.storedBytes, 0);
  const byteDays = (stagedBytes - removedBytes) * stagedObjectDays + (removedBytes * removed.afterSeconds) / 86_400;
  const stagedGbMonths = (byteDays * perMillion) / 1024 ** 3 / 30.4;
  lines.push({
    item: 'S3 storage of staged batches',
    detail:
      `${Math.round(stagedBytes / events)} bytes/event: ${Math.round((100 * removedBytes) / Math.max(1, stagedBytes))} % ` +
      `removed by their commit (one table's slices, kept ${Math.round(removed.afterSeconds)} s at most), ` +
      `the rest kept ${stagedObjectDays} days`,
    dollars: stagedGbMonths * prices.s3.storagePerGbMonth,
  });

  lines.push(...staging, commits);

  const stored = s3.filter((call) => call.entity !== 'staging').reduce((sum, call) => sum + call.storedBytes, 0);
  const writerRuns = onPath.filter((inv) => inv.entry === consumers['ingest-writer']?.entry);
  const writerInvocations = writerRuns.length;
  return {
    events,
    lines,
    total: lines.reduce((sum, line) => sum + line.dollars, 0),
    byEntity,
    storedBytesPerMillion: stored * perMillion,
    batchSize: writerInvocations ? scenario.requests / writerInvocations : 0,
    functionCosts,
  };
}

/**
 * The bench's own commit passes in a reading (the schedule's runs in the meantime find nothing due
 * and put nothing), without the pass's search of the index: a committer is sent its table.
 */
/**
 * What a pass is priced as: the table committer, which commits a table on AWS when its trigger arrives
 * (the bench's pass runs the same commit in the table-commits function, which on AWS only sends
 * triggers and is sized for that).
 */
function committerDeployment(deployment: ReturnType<typeof readDeployment>): Deployed {
  return deployment.functions.get(committerEntry) as Deployed;
}

function passRuns(reading: Reading): Invocation[] {
  return reading.invocations
    .filter((inv) => inv.entry === commitEntry && inv.calls.some((call) => call.s3Class === 'put'))
    .map((inv) => ({ ...inv, calls: inv.calls.filter((call) => !ownSearch(call)) }));
}

/**
 * What a trigger's delivery costs, in dollars each: the committer's invocations in the reading (the
 * bench's own triggers, to tables with nothing left to commit), their calls, and the queue's receives
 * and deletes that carried them.
 */
export function deliveryDollars(
  deployment: ReturnType<typeof readDeployment>,
  reading: Reading,
  own: Map<Invocation, number>,
  triggers: number,
): number {
  const runs = reading.invocations.filter((inv) => inv.entry === committerEntry);
  const queue = reading.outside.filter(
    (call) =>
      call.service === 'SQS' && call.entity === 'commits' && (call.operation !== 'ReceiveMessage' || call.messages > 0),
  );
  const deployed = deployment.functions.get(committerEntry) as Deployed;
  const logBytes = runs.reduce((sum, inv) => sum + inv.logBytes, 0);
  return (
    (lambdaCost(committerEntry, runs, deployed, own).dollars +
      callDollars([...runs.flatMap((inv) => inv.calls), ...queue]) +
      (logBytes / 1024 ** 3) * prices.cloudWatch.logsPerGb) /
    triggers
  );
}

/** What the bench's own commit passes in a reading cost: their invocations, calls and logs, in dollars. */
export function passDollars(
  deployment: ReturnType<typeof readDeployment>,
  reading: Reading,
  own: Map<Invocation, number>,
) {
  // The schedule's own passes in the meantime find nothing due and put nothing.
  const runs = passRuns(reading);
  const deployed = committerDeployment(deployment);
  const logBytes = runs.reduce((sum, inv) => sum + inv.logBytes, 0);
  return (
    lambdaCost(commitEntry, runs, deployed, own).dollars +
    callDollars(runs.flatMap((inv) => inv.calls)) +
    (logBytes / 1024 ** 3) * prices.cloudWatch.logsPerGb
  );
}

/** Which part of a table an S3 call touched: its Iceberg metadata, its Delta log, or its data files (or a staged object). */
function s3Part(key: string): string {
  if (key.includes('/metadata/')) return 'Iceberg metadata';
  if (key.includes('/_delta_log/')) return 'Delta log';
  return key.startsWith('staging/') ? 'staging' : 'data files';
}

/** A pass's cost per table committed, by item: the function's time and each kind of call. */
export function commitItems(
  deployment: ReturnType<typeof readDeployment>,
  reading: Reading,
  own: Map<Invocation, number>,
  tables: number,
): { item: string; count: number; dollars: number }[] {
  const runs = passRuns(reading);
  const deployed = committerDeployment(deployment);
  const lambda = lambdaCost(commitEntry, runs, deployed, own);
  const items = new Map<string, { item: string; count: number; dollars: number }>();
  for (const call of runs.flatMap((inv) => inv.calls)) {
    const item = `${call.service} ${call.operation}${call.service === 'S3' ? ` ${s3Part(call.objectKey)}` : call.entity ? ` ${call.entity}` : ''}`;
    const line = items.get(item) ?? { item, count: 0, dollars: 0 };
    line.count += 1 / tables;
    line.dollars += callDollars([call]) / tables;
    items.set(item, line);
  }
  const logBytes = runs.reduce((sum, inv) => sum + inv.logBytes, 0);
  return [
    {
      item: `Lambda table-committer (${deployed.memoryMb} MB), ${Math.round(lambda.billedMs / Math.max(1, runs.length))} ms billed per pass`,
      count: runs.length / tables,
      dollars: lambda.dollars / tables,
    },
    ...[...items.values()].sort((a, b) => b.dollars - a.dollars),
    {
      item: `CloudWatch Logs, ${Math.round(logBytes / tables)} bytes`,
      count: 1,
      dollars: (logBytes / 1024 ** 3 / tables) * prices.cloudWatch.logsPerGb,
    },
  ];
}

/**
 * What a commit costs, from the measured passes: `single` is a commit of one envelope (a quiet
 * table's; with the one counter write raising its receipt), its staged object's read left out;
 * `perRow` what each further envelope adds (from the busy tables' commits); `perRead` a read of a
 * staged object (one GET; a pass reads each object it needs once).
 */
export interface CommitUnits {
  single: number;
  perRow: number;
  perRead: number;
  /** A trigger's arrival at a committer: the queue's receive and delete, the invocation, its reads of the table. */
  perArrival: number;
}

/** What the writer pays per record of a table's slice, and per trigger sent (the table listed as pending). */
export interface StagingUnits {
  /** A record's write. */
  perRecord: number;
  /** A trigger's send and its table's listing, and the writer's time listing it. */
  perTrigger: number;
}

/** The writer's staging lines of a scenario: records and triggers as the simulated day counts them. */
export function stagingLines(units: StagingUnits, figures: CommitFigures, eventsPerRequest: number): LineItem[] {
  return [
    {
      item: 'Staged records (writer)',
      detail: `${figures.slicesPerEvent.toFixed(3)} per request (one per table and writer batch, a simulated day), $${(units.perRecord * 1e6).toFixed(2)} per million`,
      dollars: (figures.slicesPerEvent * units.perRecord * 1e6) / eventsPerRequest,
    },
    {
      item: 'Commit triggers (writer)',
      detail: `${figures.triggersPerEvent.toFixed(4)} per request (a simulated day), each with its table listed as pending (the requests and the writer's time), $${(units.perTrigger * 1e6).toFixed(2)} per million`,
      dollars: (figures.triggersPerEvent * units.perTrigger * 1e6) / eventsPerRequest,
    },
  ];
}

/** A counter write: the item and its by-source index (shared/adapters/dynamo/counters.ts). */
const counterWriteUnits = 2;

/** The commits line of a scenario: the commit rule simulated over a day of its traffic, priced per unit. */
export function commitLine(units: CommitUnits, figures: CommitFigures, eventsPerRequest: number): LineItem {
  // The measured commit raised one receipt; a commit spanning more epochs raises more, and the door writes its own.
  const counterWrites = Math.max(0, figures.counterWritesPerEvent - figures.commitsPerEvent);
  const perEnvelope =
    figures.commitsPerEvent * units.single +
    (1 - figures.commitsPerEvent) * units.perRow +
    figures.batchReadsPerEvent * units.perRead +
    figures.arrivalsPerEvent * units.perArrival +
    (counterWrites * counterWriteUnits * prices.dynamoDb.writeUnitsPerMillion) / 1e6;
  return {
    item: 'Commits (table committer)',
    detail:
      `${figures.commitsPerEvent.toFixed(4)} commits, ${figures.arrivalsPerEvent.toFixed(3)} trigger arrivals ($${(units.perArrival * 1e6).toFixed(2)} per million), ${figures.batchReadsPerEvent.toFixed(3)} staged objects read and ` +
      `${figures.counterWritesPerEvent.toFixed(3)} counter writes (receipts raised, the door's own) per request, ` +
      `${Math.round(figures.rowsPerFile).toLocaleString('en')} rows per file (a simulated day); ` +
      `$${(units.single * 1e6).toFixed(1)} per million commits + $${(units.perRow * 1e6).toFixed(2)} per million rows`,
    dollars: (perEnvelope * 1e6) / eventsPerRequest,
  };
}

/** CloudWatch metrics the functions publish, one per metric and dimension value. */
function customMetricCount(): number {
  const dimensionValues: Record<string, number> = { status: 8 };
  return (Object.values(metricCatalogue) as MetricSpec[]).reduce(
    (sum, spec) =>
      sum +
      (spec.cloudWatch?.dimensions ?? []).reduce(
        (product, dimension) => product * (dimensionValues[dimension] ?? 1),
        1,
      ) *
        (spec.cloudWatch ? 1 : 0),
    0,
  );
}

export function fixedMonthly(
  deployment: ReturnType<typeof readDeployment>,
  scheduleRuns: Invocation[],
  own: Map<Invocation, number>,
) {
  const lines: LineItem[] = [];
  lines.push({
    item: 'Secrets Manager',
    detail: `${deployment.secrets} secrets`,
    dollars: deployment.secrets * prices.secretsManager.secretPerMonth,
  });
  lines.push({
    item: 'KMS customer keys',
    detail: `${deployment.keys} keys`,
    dollars: deployment.keys * prices.kms.customerKeyPerMonth,
  });
  lines.push({
    item: 'CloudWatch alarms',
    detail: `${deployment.alarmMetrics} alarm metrics`,
    dollars: deployment.alarmMetrics * prices.cloudWatch.alarmMetricPerMonth,
  });
  lines.push({
    item: 'CloudWatch dashboard',
    detail: `${deployment.dashboards}`,
    dollars: deployment.dashboards * prices.cloudWatch.dashboardPerMonth,
  });
  const metrics = customMetricCount();
  lines.push({
    item: 'CloudWatch custom metrics (EMF)',
    detail: `~${metrics} metrics`,
    dollars: metrics * prices.cloudWatch.customMetricPerMonth,
  });
  const queues = Object.keys(consumers).length;
  const polls = queues * assumptions.idlePollsPerQueueMonth;
  lines.push({
    item: 'SQS polling by the event source mappings at rest',
    detail: `${queues} queues, ~${Math.round(polls / 1000)}k requests`,
    dollars: (polls / 1e6) * prices.sqs.requestsPerMillion,
  });
  for (const [name, schedule] of Object.entries(schedules)) {
    const runs = scheduleRuns.filter((inv) => inv.entry === schedule.entry);
    const deployed = deployment.functions.get(schedule.entry) as Deployed;
    const perMonth = (30.4 * 24 * 60) / schedule.everyMinutes;
    if (runs.length === 0) {
      lines.push({ item: `Schedule ${name}`, detail: 'not measured (no run during the bench)', dollars: 0 });
      continue;
    }
    const cost = lambdaCost(schedule.entry, runs, deployed, own);
    const calls = runs.flatMap((inv) => inv.calls);
    const dynamo =
      calls.reduce((sum, call) => sum + call.writeUnits, 0) * (prices.dynamoDb.writeUnitsPerMillion / 1e6) +
      calls.reduce((sum, call) => sum + call.readUnits, 0) * (prices.dynamoDb.readUnitsPerMillion / 1e6);
    const logs =
      ((runs.reduce((sum, inv) => sum + inv.logBytes, 0) +
        (deployed.systemLogLevel === 'WARN' ? 0 : runs.length * 360)) /
        1024 ** 3) *
      prices.cloudWatch.logsPerGb;
    lines.push({
      item: `Schedule ${name} (every ${schedule.everyMinutes} min)`,
      detail: `${(cost.billedMs / runs.length).toFixed(0)} ms billed, ${(calls.length / runs.length).toFixed(1)} calls per run`,
      dollars: ((cost.dollars + dynamo + logs) / runs.length) * perMonth,
    });
  }
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
}
