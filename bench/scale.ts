/**
 * `npm run bench scale`: how far each shape of traffic goes before it meets one of AWS's published
 * limits, measured on whatever Tributary does today and extrapolated.
 *
 * It runs local mode in this process, every function's handler metered (bench/cost-meter.ts: each
 * AWS SDK call with the partition keys it touched and the units each took, the size of each item it
 * wrote, the S3 prefix of each request; each invocation with its own CPU), and sends each shape
 * twice, at two local rates:
 *   - 10,000 connections at Zipf(1.0) rates (the k-th sends 1/k of the first's);
 *   - one hot table (one connection);
 *   - 100,000 quiet sources at one event an hour: 28 events a second, each from a source that has
 *     sent nothing for an hour (its table made by a commit before the phase), at half that rate and
 *     at that rate.
 * Time is compressed where real time cannot serve: tables commit after a freshness target of
 * `localFreshnessSeconds` and the schedules run every `scheduleSeconds`, so that commits, upkeep and
 * every pass happen within a phase; what the schedules cost at rest is scaled back to their deployed
 * intervals, and item sizes are extrapolated to the deployed freshness target (the envelopes a
 * table, or the tables, hold then).
 *
 * Each measurement is a line through the two local rates; a limit is reached where its line crosses
 * it. The table committer is read as deployed instead, since here every table commits every few
 * seconds: one commit of a size target's worth of rows (the most a commit holds) through the commit
 * path, metered, gives a row's time and the items a commit writes at their largest; the second
 * phase gives a commit's time beyond its rows; each shape's commits a second as deployed (a table
 * commits when its oldest row is ten minutes old or at its size target) make its concurrency, and
 * the busiest table's commits, at most `maxTableCommitters` at a time (each leases its own run of a
 * large table's records), its own limit. What
 * a commit cycle writes whatever its rows (a table's staging head, its entry in the index of pending
 * tables, the committer's counts) is read per commit made here, at the commits a second the shape
 * makes as deployed; what a function waits on for a cycle (commit triggers sent, staging heads read
 * and written) per trigger sent here, at the most triggers a second the shape makes as deployed (one
 * per writer instance, table and freshness target, and one per share of a size target). Here a
 * writer sends a trigger for most of its tables at every batch; deployed, a few in a hundred. The
 * time of the schedules whose work follows the commits (table maintenance, the jobs' lease sweep) is
 * read per commit too. Limits (bench/aws-prices.ts states nothing of these; they are AWS's published quotas):
 *   - DynamoDB: 1,000 write and 3,000 read units a second per partition key (the table's and each
 *     index's), 400 KB per item; keys are grouped by their shape (ids replaced), the busiest of a
 *     group counting;
 *   - S3: 3,500 PUT/COPY/POST/DELETE/LIST and 5,500 GET a second per prefix;
 *   - each queue consumer's maximum concurrency (shared/topology.ts) and one run at a time of a
 *     schedule: settings of the deployment, not AWS's, but limits all the same. Where the table
 *     committers' bind, the report adds the ceiling with as many as the shape needs at its next
 *     limit (the deployment's `committerConcurrency`, at most Lambda's 1,000).
 * Account quotas AWS raises on request (API Gateway's requests a second, Lambda's concurrency) are
 * listed apart, with what each shape needs at its ceiling. A function's time is priced, not timed:
 * its own CPU and its calls at AWS's stated latency (`awsSeconds`), so that the ceilings do not swing
 * with the machine's load.
 */
import { Agent, request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { icebergSyncIntervalMs } from '#shared/domain/datasets/iceberg.ts';
import { largeTableShare, maxTableCommitters } from '#shared/domain/ingest/staging.ts';
import { defaultMaxPending } from '#shared/domain/observability/tally.ts';
import { metricsShardCounts } from '#shared/http/schemas/status.ts';
import { routes } from '#shared/routes.ts';
import { consumers, schedules } from '#shared/topology.ts';
import { functionNameOf, lambdaContext } from '../local/lambda-context.ts';
import { assumptions } from './aws-prices.ts';
import { ageIcebergSyncs, type Local, startLocal } from './cost.ts';
import { ownCpuMs, waitMs } from './cost-pricing.ts';
import { type Deployed, ingestEntry, readDeployment } from './deployment.ts';
import { envelopeStream, queuedEnvelope, seededRandom } from './envelopes.ts';
import { bodyWithId, zipfChooser } from './zipf-traffic.ts';

const meter = await import('./cost-meter.ts');
type Reading = import('./cost-meter.ts').Reading;
type Invocation = import('./cost-meter.ts').Invocation;
type MeteredCall = import('./cost-meter.ts').MeteredCall;
type PartitionUse = import('./cost-meter.ts').PartitionUse;

const connectionsOfZipf = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 10_000);
const quietSources = 100_000;
const quietRate = quietSources / 3600;
/** A phase: traffic for warm-up seconds, then measured seconds. */
const warmUpSeconds = Number(process.env.BENCH_SCALE_WARM_UP_SECONDS ?? 12);
const measuredSeconds = Number(process.env.BENCH_SCALE_SECONDS ?? 15);
const localFreshnessSeconds = 6;
const scheduleSeconds = 3;
const deployedFreshnessSeconds = 600;
const bodyBytes = 1024;
/** The rows of a commit at most: a size target's worth (shared/domain/ingest/staging.ts), read once local mode is set up. */
let rowsPerCommit = 0;
/** Shards of the counters' index (shared/adapters/dynamo/counters.ts), read once local mode is set up. */
let counterIndexShards = 1;

const limits = {
  partitionWrites: 1000,
  partitionReads: 3000,
  itemBytes: 400 * 1024,
  prefixPuts: 3500,
  prefixGets: 5500,
};

interface Sender {
  sourceId: string;
  token: string;
  dataSetId: string;
  tenantId: string;
}

interface Shape {
  name: string;
  /** Local rates, requests a second. */
  rates: [number, number];
  /** The senders a phase needs, and which one sends the i-th request. */
  senders(rate: number, phase: number): Promise<{ senders: Sender[]; choose: (i: number) => number }>;
  /** Sources that send within an hour at `rate` (what GET /metrics reads each scrape). */
  activeWithinHour(rate: number): number;
  /** The busiest table's share of the requests. */
  busiestShare(rate: number): number;
  /** The sources at `rate`, in groups of those with the same share of the requests. */
  sources(rate: number): { share: number; count: number }[];
  /**
   * Commits a second at `rate` as deployed: each table with rows committed when its oldest is
   * `deployedFreshnessSeconds` old, or sooner at its size target (`rowsPerCommit` rows).
   */
  commitsAt(rate: number): number;
  /**
   * Commit triggers a second at `rate` as deployed, at most: each writer instance sends a table one
   * per freshness target (when its batches hold the table), and one per share of the size target it
   * staged of a large table.
   */
  triggersAt(rate: number): number;
}

/** The writer's instances at most (its maximum concurrency). */
const writers = consumers['ingest-writer'].maxConcurrency;

/** Triggers a second of a table sent `rate` requests a second, as deployed, at most. */
function tableTriggers(rate: number): number {
  return (
    Math.min(writers, rate * deployedFreshnessSeconds) / deployedFreshnessSeconds +
    (rate * largeTableShare) / rowsPerCommit
  );
}

/** Commits a second of a table sent `rate` requests a second, as deployed. */
function tableCommits(rate: number): number {
  const active = 1 - Math.exp(-rate * deployedFreshnessSeconds);
  return Math.max(active / deployedFreshnessSeconds, rate / rowsPerCommit);
}

// --- Local mode and its connections.

async function api<T>(local: Local, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${local.url}${route}`, {
    method,
    headers: { 'x-api-key': local.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * `count` webhook connections in tenants of 1,000, past the meter: the tenants through the API, the
 * connections made by the use case the API calls and their items written 25 at a time (DynamoDB
 * Local takes a transaction a connection at a few dozen a second: 10,000 would take minutes).
 */
async function createSenders(local: Local, count: number): Promise<Sender[]> {
  const { connectivity } = await import('#shared/adapters/repositories/connectivity.ts');
  const { newConnectionItems } = await import('#shared/adapters/dynamo/connections.ts');
  const { batchWriteAll } = await import('#shared/adapters/dynamo/table.ts');
  const { createConnection } = await import('#shared/domain/connections/use-cases.ts');
  const admin = { kind: 'platform', role: 'PlatformAdmin', userId: null, apiKeyId: 'scale-bench' } as const;
  const started = performance.now();
  return meter.unmetered(async () => {
    const made: Sender[] = [];
    for (let t = 0; t < Math.ceil(count / 1000); t++) {
      const tenant = await api<{ tenant_id: string }>(local, 'POST', '/api/tenants', {
        name: `scale ${Date.now()} ${t}`,
      });
      await api(local, 'POST', `/api/tenants/${tenant.tenant_id}/register-object-store`, {
        name: 'scale',
        base_url: `s3://demo-bucket/scale-${tenant.tenant_id}`,
        options: { endpoint: local.s3Endpoint },
      });
      const items: Record<string, unknown>[] = [];
      const deps = {
        ...connectivity,
        createConnection: async (...made: Parameters<typeof newConnectionItems>) => {
          items.push(...newConnectionItems(...made));
        },
      };
      const inTenant = Math.min(1000, count - t * 1000);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < inTenant) {
            const i = next++;
            const created = await createConnection(deps, admin, tenant.tenant_id, {
              type: 'Webhook',
              name: `sender ${i}`,
            });
            made.push({
              sourceId: created.connection.source_id,
              token: created.ingestToken,
              dataSetId: created.connection.data_set_id,
              tenantId: tenant.tenant_id,
            });
          }
        }),
      );
      await batchWriteAll(items.map((Item) => ({ PutRequest: { Item } })));
    }
    process.stderr.write(
      `scale: ${count} connections made in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
    return made;
  });
}

// --- Traffic: an open loop at a steady rate, each request from the sender `choose` names.

interface Sent {
  at: number;
  sender: number;
  status: number;
}

async function sendTraffic(
  local: Local,
  senders: Sender[],
  choose: (i: number) => number,
  rate: number,
  seconds: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL(local.url);
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const sent: Promise<Sent>[] = [];
  for (let i = 0; i < total; i++) {
    const due = (i * 1000) / rate;
    const wait = due - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const index = choose(i);
    const sender = senders[index] as Sender;
    const body = bodyWithId(`r${i}`, i, bodyBytes);
    const at = performance.now();
    sent.push(
      new Promise((resolve) => {
        const outgoing = request(
          {
            agent,
            hostname: url.hostname,
            port: url.port,
            path: `/api/ingest/${sender.sourceId}`,
            method: 'POST',
            headers: {
              authorization: `Bearer ${sender.token}`,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve({ at, sender: index, status: response.statusCode ?? 0 }));
          },
        );
        outgoing.on('error', () => resolve({ at, sender: index, status: 0 }));
        outgoing.end(body);
      }),
    );
  }
  const answers = await Promise.all(sent);
  agent.destroy();
  return answers;
}

/**
 * Until the ingest queue is empty and everything staged is committed (one pass as a graceful stop
 * runs it), between phases: one phase's commits are not the next one's load.
 */
async function settle(local: Local) {
  const started = performance.now();
  const deadline = Date.now() + 600_000;
  while ((await meter.unmetered(() => local.ingestQueueDepth())) > 0) {
    if (Date.now() > deadline) throw new Error('The ingest queue did not drain in 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await local.commitPass(600_000);
  // A table committed more often than the Iceberg sync interval is marked due for its end (five
  // minutes on), and the table-commits schedule syncs it then: here that falls in a later shape's
  // phases, whose schedule runs then read as growing with that shape's traffic (one hot table read
  // 174 requests/s, its runs syncing the Zipf shape's tables). Settled means none is left due.
  const { catchUpIceberg, icebergSyncIntervalMs } = await import('#shared/domain/datasets/iceberg.ts');
  const { icebergCatchUpDeps } = await import('#shared/adapters/iceberg-tables.ts');
  await catchUpIceberg(
    {
      ...icebergCatchUpDeps,
      dueIcebergSyncs: (now) => icebergCatchUpDeps.dueIcebergSyncs(new Date(now.getTime() + icebergSyncIntervalMs)),
    },
    { deadline: Date.now() + 600_000, concurrency: 8 },
  );
  meter.take();
  process.stderr.write(`scale: settled in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

// --- One phase, measured.

interface Phase {
  rate: number;
  /** Requests answered in the measured window, per second. */
  served: number;
  refused: number;
  seconds: number;
  calls: { call: MeteredCall; entry: string | null }[];
  /** Seconds each function would spend on AWS in the invocations it began within the window, by entry. */
  busy: Map<string, number>;
  /** Of that, the seconds spent waiting on a table's commit cycle (its triggers, its staging head), by entry. */
  cycleBusy: Map<string, number>;
  /** Of that, a per-commit schedule's seconds waiting on what each run reads whatever the traffic (isRunReading). */
  restBusy: Map<string, number>;
  largestItem: { bytes: number; key: string };
  /** The largest item written per group of keys. */
  items: Map<string, number>;
  /** AWS calls each function made within the window, by entry: whether its work grows with the traffic. */
  callCounts: Map<string, number>;
  /** Commits the table committer made a second (its PUTs of a table's `_delta_log/`). */
  commits: number;
  /** Invocations that began in the window, by entry. */
  runs: Map<string, number>;
  /** Commit triggers sent to the commits queue a second (a standard queue: no published limit). */
  triggers: number;
  /** Writes of Iceberg sync marks a second (see perSyncMark). */
  syncMarks: number;
  tooLarge: number;
}

const committerEntry = consumers['table-committer'].entry;
const upkeepWorkerEntry = consumers['counter-upkeep-worker'].entry;
/** The counters' index window as deployed (COUNTER_WINDOW_SECONDS' default): a moved source is read once a window. */
const counterWindowSeconds = 300;
const metricsEntry = routes['GET /metrics'].entry;
/** The most a function answers synchronously (Lambda's invocation payload quota: 6 MB). */
const lambdaAnswerBytes = 6 * 1024 * 1024;
/** Quarters of counter epochs the counters' reading finds unfolded at most: folded once over an hour old. */
const quartersUnfolded = 5;
/** The platform's series GET /metrics reads at most, as priced: every status and code, failure reason and job status. */
const platformSeriesAtMost = 100;

/**
 * How long an invocation would take on AWS, priced from what it does rather than timed here: its own
 * CPU (each callback's charged to the invocation it ran for: bench/cost-meter.ts's `attributeCpu`) at
 * the vCPU share its memory buys, plus its AWS calls at the latency bench/aws-prices.ts states for each,
 * in the order it made them (`waitMs`; bench/cost.ts prices invocations the same way). Local mode runs
 * every function in this one process on a shared machine, so wall times here are each other's and the
 * machine's: they count for nothing.
 */
function awsSeconds(invocations: Invocation[], deployment: ReturnType<typeof readDeployment>) {
  const parts = awsParts(invocations, deployment);
  return (invocation: Invocation) => {
    const { cpuSeconds, waitSeconds } = parts(invocation);
    return cpuSeconds + waitSeconds;
  };
}

/** The two parts of awsSeconds: an invocation's CPU at its memory's vCPU share, and its wait on AWS's calls. */
function awsParts(invocations: Invocation[], deployment: ReturnType<typeof readDeployment>) {
  const own = ownCpuMs(invocations, 0, 0);
  return (invocation: Invocation) => {
    const memoryMb = (deployment.functions.get(invocation.entry) as Deployed | undefined)?.memoryMb ?? 1024;
    const scale = Math.max(1, assumptions.fullVcpuMemoryMb / memoryMb);
    return { cpuSeconds: ((own.get(invocation) ?? 0) * scale) / 1000, waitSeconds: waitMs(invocation.calls) / 1000 };
  };
}

/** A Delta commit: a PUT to a table's `_delta_log/`. */
const isCommitPut = (call: MeteredCall) => call.s3Class === 'put' && call.prefix.endsWith('/_delta_log/');

async function runPhase(
  local: Local,
  shape: Shape,
  rate: number,
  phase: number,
  timing: { deployment: ReturnType<typeof readDeployment> },
): Promise<Phase> {
  const { senders, choose } = await shape.senders(rate, phase);
  meter.take();
  const started = performance.now();
  const from = started + warmUpSeconds * 1000;
  const to = from + measuredSeconds * 1000;
  const answers = await sendTraffic(local, senders, choose, rate, warmUpSeconds + measuredSeconds);
  const reading: Reading = meter.take();
  const inWindow = (at: number) => at >= from && at < to;
  const calls: Phase['calls'] = [];
  const busy = new Map<string, number>();
  const cycleBusy = new Map<string, number>();
  const restBusy = new Map<string, number>();
  const seconds = awsSeconds(reading.invocations, timing.deployment);
  for (const invocation of reading.invocations) {
    // Its share of the window: a pass that began before it and ran into it counts for the part inside.
    const overlap = Math.min(to, invocation.startedAt + invocation.wallMs) - Math.max(from, invocation.startedAt);
    const inside = seconds(invocation) * Math.min(1, Math.max(0, overlap) / Math.max(1, invocation.wallMs));
    if (overlap > 0) {
      busy.set(invocation.entry, (busy.get(invocation.entry) ?? 0) + inside);
      const cycle = (waitMs(invocation.calls) - waitMs(invocation.calls.filter((call) => !isCycleCall(call)))) / 1000;
      const cycleInside = Math.min(inside, cycle * Math.min(1, Math.max(0, overlap) / Math.max(1, invocation.wallMs)));
      cycleBusy.set(invocation.entry, (cycleBusy.get(invocation.entry) ?? 0) + cycleInside);
      if (perCommitSchedules.has(invocation.entry)) {
        // A run that only read (nothing was due) is at rest whole, its CPU too; else its readings' wait.
        const readings = invocation.calls.filter(isRunReading);
        const onlyRead = invocation.calls.every((call) => isRunReading(call) || isCounterWrite(call));
        const rest = waitMs(readings) / 1000;
        const restInside = onlyRead
          ? inside
          : Math.min(inside, rest * Math.min(1, Math.max(0, overlap) / Math.max(1, invocation.wallMs)));
        restBusy.set(invocation.entry, (restBusy.get(invocation.entry) ?? 0) + restInside);
      }
    }
    for (const call of invocation.calls) if (inWindow(call.at)) calls.push({ call, entry: invocation.entry });
  }
  // A schedule's calls are those of its runs begun in the window, as its runs are counted: calls of a
  // run that straddles an edge, counted by when each was made, made one run look like more work.
  // Counter writes are not a function's own work here: every function shares one tally, and an
  // invocation about to answer writes whatever any of them counted (a run of a schedule that makes one
  // query a run read as eight, and as growing with the traffic). Nor are a per-commit schedule's
  // readings at rest: the maintenance schedule reads one ten-minute window a run, or two in the two
  // minutes of a window's grace, by the clock (a phase that fell in a grace read 7 → 11 calls a run,
  // as growing with the traffic, and put the quiet shape at 963).
  const callCounts = new Map<string, number>();
  for (const invocation of reading.invocations) {
    const own = invocation.calls.filter(
      (call) => !isCounterWrite(call) && !(perCommitSchedules.has(invocation.entry) && isRunReading(call)),
    );
    const counted = scheduleEntries.has(invocation.entry)
      ? inWindow(invocation.startedAt)
        ? own.length
        : 0
      : own.filter((call) => inWindow(call.at)).length;
    if (counted > 0) callCounts.set(invocation.entry, (callCounts.get(invocation.entry) ?? 0) + counted);
  }
  for (const call of reading.outside) if (inWindow(call.at)) calls.push({ call, entry: null });
  let largestItem = { bytes: 0, key: '' };
  const items = new Map<string, number>();
  let tooLarge = 0;
  for (const { call } of [
    ...reading.invocations.flatMap((i) => i.calls.map((call) => ({ call }))),
    ...reading.outside.map((call) => ({ call })),
  ]) {
    if (call.itemTooLarge) tooLarge++;
    const group = shapeOfKey(call.partitions[0]?.key ?? call.entity);
    if (call.itemBytes > (items.get(group) ?? 0)) items.set(group, call.itemBytes);
    if (call.itemBytes > largestItem.bytes) largestItem = { bytes: call.itemBytes, key: group };
  }
  const measured = answers.filter((answer) => inWindow(answer.at));
  const runs = new Map<string, number>();
  for (const invocation of reading.invocations)
    if (inWindow(invocation.startedAt)) runs.set(invocation.entry, (runs.get(invocation.entry) ?? 0) + 1);
  const commits = calls.filter(({ call, entry }) => entry === committerEntry && isCommitPut(call)).length;
  const triggers = calls
    .filter(({ call }) => call.service === 'SQS' && call.entity === 'commits' && call.operation.startsWith('Send'))
    .reduce((sum, { call }) => sum + call.messages, 0);
  // The sources that sent in this run (every shape's): what the counters' probe reads.
  for (const answer of answers) sentSoFar.add((senders[answer.sender] as Sender).sourceId);
  return {
    rate,
    served: measured.filter((answer) => answer.status === 202).length / measuredSeconds,
    refused: measured.filter((answer) => answer.status !== 202).length,
    seconds: measuredSeconds,
    calls,
    busy,
    cycleBusy,
    restBusy,
    largestItem,
    items,
    callCounts,
    commits: commits / measuredSeconds,
    runs,
    triggers: triggers / measuredSeconds,
    syncMarks:
      calls.filter(({ call }) => call.service === 'DynamoDB' && call.partitions.some(isSyncMark)).length /
      measuredSeconds,
    tooLarge,
  };
}

/** Sources that have sent in this run, every shape's. */
const sentSoFar = new Set<string>();

// --- What each phase put on each limit.

/** A key with its ids, hashes, times and numbers replaced: keys of one kind (a source's, a table's) group together. */
export function shapeOfKey(key: string): string {
  return key
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<time>')
    .replace(/[0-9a-f]{32,}/gi, '<hash>')
    .replace(/\d+/g, '<n>');
}

/** What one phase put on one limit: the busiest key's figure a second, by what made it (a schedule's entry, or '' for the rest). */
interface Load {
  /** The limit's name, as the report says it. */
  limit: string;
  capacity: number;
  parts: Map<string, number>;
}

/**
 * What a table's commit cycle writes whatever its rows: its staging head and its entry in the index
 * of pending tables (listed, leased, committed, taken off), and the committer's counts of a commit
 * (rows written, versions committed, the door's receipts raised: a counter write per commit and
 * connection). Here every table cycles every few seconds, deployed every ten minutes or at its size
 * target: these units are read per commit, at the commits a second the shape makes as deployed (as
 * the committer's time is).
 */
const perCommit = 'per commit';
const perTrigger = 'per trigger';
/**
 * A write of a table's Iceberg sync mark (pk ICEBERG, shared/adapters/dynamo/iceberg-syncs.ts): one
 * partition for every table marked due. Deployed, a table committed more often than the sync interval
 * is marked once an interval and cleared once by the schedule's sync; one committed less often syncs
 * at its commit and writes no mark. Here every table commits every few seconds, and how many of a
 * phase's tables were marked already (a mark is written only by the commit that puts the metadata
 * behind) depends on what the phases before synced: read per mark, at the marks as deployed. The
 * schedule's reads of the partition (every table marked, each run) grow with the marks standing, so
 * they are read per mark written too.
 */
const perSyncMark = 'per Iceberg sync mark';
const syncMarks = 'table ICEBERG';
const isSyncMark = (use: PartitionUse) => use.key === syncMarks && use.writeUnits > 0;
/**
 * Schedules whose work follows the commits: table maintenance is asked for by commits (a day's small
 * files, a thousand versions), and the jobs' lease sweep reads the jobs it queues. What each run reads
 * whatever the traffic (the maintenance windows since its last run and its record, the leases, the
 * jobs still Queued) is its work at rest, scaled to its deployed interval like any schedule's: counted
 * per commit, a run every few seconds here read as a commit's cost.
 */
const perCommitSchedules = new Set([schedules['table-maintenance'].entry, schedules['job-lease-sweeper'].entry]);
const runReadings = /^table (JOB_LEASES|QUEUED_JOBS|MAINTENANCE|MAINTENANCE#SCHEDULE|MAINTENANCE#AT#.*)$/;
/**
 * The items of the tables a maintenance run's windows list, queued or not, which every run reads while
 * it reads their window: deployed, a run every five minutes reads each two or three times (a
 * ten-minute window and its grace); here a run every 3 s read each some 240 times, the Zipf and hot
 * shapes' marks in the quiet shape's phases whenever a window's boundary did not fall between them,
 * so that the quiet shape's maintenance line read 343 to 1,319 requests/s by the clock. Read per run,
 * they are priced at the schedule's interval as its other readings are.
 */
const listedItems = /^table MAINTENANCE#[0-9a-f-]{36}$/;
const isRunReading = (call: MeteredCall) =>
  call.partitions.some((use) => runReadings.test(use.key)) ||
  (call.operation === 'BatchGetItem' &&
    call.partitions.length > 0 &&
    call.partitions.every((use) => listedItems.test(use.key)));
/** A call of a table's commit cycle: a commit trigger sent, or a staging head read or written. */
const isCycleCall = (call: MeteredCall) =>
  (call.service === 'SQS' && call.entity === 'commits') ||
  (call.service === 'DynamoDB' && call.partitions.length > 0 && call.partitions.every((use) => use.sortKey === 'HEAD'));
const perCommitCycle = (use: PartitionUse, entry: string | null) =>
  (use.sortKey === 'HEAD' && (use.key.startsWith('table STAGE#') || use.key.startsWith('gsi1 PENDING#'))) ||
  (entry === committerEntry && (use.key.startsWith('table COUNTER#') || use.key.startsWith('table COUNTED#')));

/**
 * Items whose size is bounded by design, not by what waits for a commit: read at their largest
 * measured, with no line. `COUNTER#UPKEEP`: the upkeep's marks, a quarter's lists the index shards that
 * folded it (64 at most), 1 KB; one written in the second phase and not the first read as growing with
 * the traffic and put the Zipf shape at 160.
 */
const boundedItems = new Set(['table COUNTER#UPKEEP']);

/** A write of a counter's total, or of its item's index entry (shared/adapters/dynamo/counters.ts). */
const isCounterWrite = (call: MeteredCall) =>
  (call.operation === 'UpdateItem' && call.partitions.some((use) => use.key.startsWith('table COUNTER#'))) ||
  (call.operation === 'PutItem' && call.partitions.some((use) => use.key.startsWith('table COUNTED#')));

/**
 * A write of the ingest door's own series (its 202s and duplicates, counted as deferred: written per
 * thousand requests, shared/adapters/metrics.ts), on its source's item or its index entry. Here every
 * function shares one process and one tally, so these are written whenever anything urgent is (each
 * commit, each writer batch) and by whichever invocation answers next: they are read as deployed
 * instead (`doorWrites`).
 */
const isDoorSeries = (use: PartitionUse) =>
  /^(COUNTER#[^#]*#)?(ingestRequests#\{[^}]*"status":"202"|ingestDuplicates#)/.test(use.sortKey ?? '');

const scheduleEntries = new Map(Object.values(schedules).map((schedule) => [schedule.entry, schedule]));
/**
 * Schedules whose calls a run are bounded by design, whatever the traffic: the counters' upkeep
 * planner looks at each of the index's shards (a key or two of a window's, of a quarter's partitions,
 * its kept figures) and sends a piece per shard with work, under eight calls a shard a run. Between two
 * phases it makes more calls as more shards have work (68 → 95 a run), which a line through them
 * reads as growing for good (it put the Zipf shape at 375 and one hot table at 709); its run is priced
 * at most at its calls' bound instead.
 */
const runCallsAtMost = (entry: string): number | undefined =>
  entry === schedules['counter-upkeep'].entry ? 8 * counterIndexShards : undefined;
const total = (parts: Map<string, number> | undefined) => [...(parts?.values() ?? [])].reduce((sum, v) => sum + v, 0);

/**
 * A group of partitions that spreads its items over shards by a hash of their ids (`…#<n>`: the
 * counters' index, the platform's series, the pending tables' index, the maintenance windows).
 */
const hashSharded = (group: string) => /#<n>`$/.test(group);

/**
 * Units (or requests, or seconds of work) a second on each limit: per group of keys, its busiest key.
 * A hash-sharded group is read as the mean of the shards it wrote, or its busiest single item if that
 * is more (an item never splits over shards): its busiest shard in a 15 s phase is the largest of a
 * few hundred writes drawn over 64 shards, which read twice the mean or more, moved threefold between
 * runs, and was extrapolated as if it were a partition's own traffic (the counters' index bound the
 * quiet shape at 3,699 and 4,116 requests/s with two writes a commit over 64 shards: 156 a shard at
 * 5,000).
 */
function loadsOf(phase: Phase): Map<string, Load> {
  const perKey = new Map<string, Load & { group: string }>();
  /** A hash-sharded group's items (partition and sort key), by group. */
  const perItem = new Map<string, Map<string, Map<string, number>>>();
  const add = (
    key: string,
    limit: string,
    capacity: number,
    entry: string | null,
    value: number,
    perCycle: boolean | typeof perSyncMark = false,
    sortKey?: string,
  ) => {
    const id = `${limit}|${key}`;
    const load = perKey.get(id) ?? { limit, capacity, group: limit, parts: new Map<string, number>() };
    const part =
      perCycle === perSyncMark ? perSyncMark : perCycle ? perCommit : entry && scheduleEntries.has(entry) ? entry : '';
    load.parts.set(part, (load.parts.get(part) ?? 0) + value / phase.seconds);
    perKey.set(id, load);
    if (!hashSharded(limit)) return;
    const items = perItem.get(limit) ?? new Map<string, Map<string, number>>();
    const item = items.get(`${key}|${sortKey ?? ''}`) ?? new Map<string, number>();
    item.set(part, (item.get(part) ?? 0) + value / phase.seconds);
    items.set(`${key}|${sortKey ?? ''}`, item);
    perItem.set(limit, items);
  };
  for (const { call, entry } of phase.calls) {
    for (const use of call.partitions) {
      if (isDoorSeries(use)) continue;
      const group = shapeOfKey(use.key);
      const cycle = perCommitCycle(use, entry);
      if (use.writeUnits > 0)
        add(
          use.key,
          `DynamoDB writes on \`${group}\``,
          limits.partitionWrites,
          entry,
          use.writeUnits,
          isSyncMark(use) ? perSyncMark : cycle,
          use.sortKey,
        );
      if (use.readUnits > 0)
        add(
          use.key,
          `DynamoDB reads on \`${group}\``,
          limits.partitionReads,
          entry,
          use.readUnits,
          use.key === syncMarks ? perSyncMark : cycle,
          use.sortKey,
        );
    }
    if (call.service === 'S3' && call.s3Class) {
      const group = shapeOfKey(call.prefix);
      if (call.s3Class === 'get') add(call.prefix, `S3 GETs on \`${group}\``, limits.prefixGets, entry, 1);
      else add(call.prefix, `S3 PUT/LIST/DELETEs on \`${group}\``, limits.prefixPuts, entry, 1);
    }
  }
  const loads = new Map<string, Load>();
  const shards = new Map<string, (Load & { group: string })[]>();
  for (const load of perKey.values()) {
    if (hashSharded(load.group)) shards.set(load.group, [...(shards.get(load.group) ?? []), load]);
    const known = loads.get(load.group);
    if (!known || total(load.parts) > total(known.parts)) loads.set(load.group, load);
  }
  for (const [group, written] of shards) {
    if (written.length < 2) continue;
    const mean = new Map<string, number>();
    for (const load of written)
      for (const [part, value] of load.parts) mean.set(part, (mean.get(part) ?? 0) + value / written.length);
    const busiestItem = [...(perItem.get(group)?.values() ?? [])].reduce<Map<string, number>>(
      (busiest, item) => (total(item) > total(busiest) ? item : busiest),
      new Map(),
    );
    const { limit, capacity } = written[0] as Load;
    loads.set(group, { limit, capacity, parts: total(busiestItem) > total(mean) ? busiestItem : mean });
  }
  for (const [entry, seconds] of phase.busy) {
    const consumer = Object.values(consumers).find((candidate) => candidate.entry === entry);
    const name = entry.replace(/^functions\//, '');
    const parts = busyParts(phase, entry, seconds);
    if (consumer)
      loads.set(entry, {
        limit: `${name}'s maximum concurrency (${consumer.maxConcurrency})`,
        capacity: consumer.maxConcurrency,
        parts,
      });
    else if (scheduleEntries.has(entry)) loads.set(entry, { limit: `${name}, one run at a time`, capacity: 1, parts });
  }
  return loads;
}

/**
 * A function's time a second, in parts: what a table's commit cycle made it wait on (read per
 * trigger, as deployed), and the rest; a schedule whose work follows the commits, all per commit.
 */
function busyParts(phase: Phase, entry: string, seconds: number): Map<string, number> {
  if (perCommitSchedules.has(entry)) {
    const rest = phase.restBusy.get(entry) ?? 0;
    return new Map([
      [entry, rest / phase.seconds],
      [perCommit, (seconds - rest) / phase.seconds],
    ]);
  }
  const cycle = entry === committerEntry ? 0 : (phase.cycleBusy.get(entry) ?? 0);
  return new Map([
    [scheduleEntries.has(entry) ? entry : '', (seconds - cycle) / phase.seconds],
    [perTrigger, cycle / phase.seconds],
  ]);
}

/** A function's time a second in one phase, in its parts, as a load (its concurrency on a line). */
function busyLoad(phase: Phase, entry: string): Load {
  return { limit: entry, capacity: 0, parts: busyParts(phase, entry, phase.busy.get(entry) ?? 0) };
}

/** How often a part's events happen: here in each phase, and as deployed at a rate. */
type Events = Map<string, { perSecond: [number, number]; deployed: (rate: number) => number }>;

/** Commits and triggers, here and as deployed. */
function eventsOf(shape: Shape, phases: [Phase, Phase]): Events {
  return new Map([
    [perCommit, { perSecond: [phases[0].commits, phases[1].commits], deployed: shape.commitsAt }],
    [perTrigger, { perSecond: [phases[0].triggers, phases[1].triggers], deployed: shape.triggersAt }],
    [
      perSyncMark,
      { perSecond: [phases[0].syncMarks, phases[1].syncMarks], deployed: (rate) => syncMarksAt(shape, rate) },
    ],
  ]);
}

/** Iceberg sync marks written a second as deployed (see perSyncMark): two an interval per table committed more often. */
function syncMarksAt(shape: Shape, rate: number): number {
  const interval = icebergSyncIntervalMs / 1000;
  let often = 0;
  for (const { share, count } of shape.sources(rate)) if (tableCommits(share * rate) > 1 / interval) often += count;
  return (2 * often) / interval;
}

/**
 * A limit's line through the two phases, as deployed: what schedules do at rest (the line's value
 * at no traffic) happens every `scheduleSeconds` here and every minute or five on AWS, so that part
 * is scaled to their deployed interval; what they do per request (the slope) is the same.
 */
function lineOf(
  served: [number, number],
  first: Load | undefined,
  second: Load | undefined,
  events: Events = new Map(),
) {
  let slope = 0;
  let atRest = 0;
  const perEvent: { each: number; deployed: (rate: number) => number }[] = [];
  for (const part of new Set([...(first?.parts.keys() ?? []), ...(second?.parts.keys() ?? [])])) {
    const y1 = first?.parts.get(part) ?? 0;
    const y2 = second?.parts.get(part) ?? 0;
    const event = events.get(part);
    if (event) {
      // Per event as measured here (the second phase's, else the first's), at the deployed events.
      const [c1, c2] = event.perSecond;
      perEvent.push({ each: c2 > 0 ? y2 / c2 : c1 > 0 ? y1 / c1 : 0, deployed: event.deployed });
      continue;
    }
    const partSlope = Math.max(0, (y2 - y1) / (served[1] - served[0]));
    const rest = Math.max(0, y2 - partSlope * served[1]);
    const schedule = scheduleEntries.get(part);
    slope += partSlope;
    atRest += schedule ? (rest * scheduleSeconds) / (schedule.everyMinutes * 60) : rest;
  }
  const byEvents = (rate: number) => perEvent.reduce((sum, event) => sum + event.each * event.deployed(rate), 0);
  return {
    slope,
    atRest,
    perEvent: perEvent.some((event) => event.each > 0),
    at: (rate: number) => atRest + slope * rate + byEvents(rate),
  };
}

/** The rate at which a line reaches `capacity` (Infinity when it never does). */
function reaches(line: ReturnType<typeof lineOf>, capacity: number): number {
  if (line.atRest >= capacity) return 0;
  if (line.perEvent) return solve(line.at, capacity);
  return line.slope > 0 ? (capacity - line.atRest) / line.slope : Number.POSITIVE_INFINITY;
}

interface ShapeResult {
  shape: Shape;
  phases: [Phase, Phase];
  constraints: { limit: string; values: [number, number]; capacity: number; ceiling: number }[];
  itemCeiling: { ceiling: number; key: string; bytes: [number, number] };
  /** The largest item's size at the ceiling, at the deployed freshness target. */
  sizeAtCeiling: number;
  ceiling: number;
  limitedBy: string;
  /** At the ceiling: average concurrency per function (Lambda's account quota), and requests a second. */
  concurrency: Map<string, number>;
  /** At the ceiling: the shards GET /metrics needs, each a scrape within its time and 6 MB. */
  scrapeShards: number;
  /**
   * Where the committers' maximum concurrency (a deployment setting, `committerConcurrency`) binds:
   * the committers the shape needs at its next limit (at most Lambda's 1,000 for an SQS event
   * source), and the ceiling with them.
   */
  withCommitters: { committers: number; ceiling: number; limitedBy: string } | null;
}

/**
 * One commit of a size target's worth of rows (the most a commit holds) to a table, through the
 * commit path the table committer runs, metered as a committer invocation: how long it would take on
 * AWS, and the items it writes at their largest.
 */
interface Probe {
  rows: number;
  seconds: number;
  items: Map<string, number>;
  largest: { bytes: number; key: string };
  tooLarge: number;
}

async function probeCommit(sender: Sender, timing: { deployment: ReturnType<typeof readDeployment> }) {
  const { stagingDeps } = await import('#functions/ingest/wiring.ts');
  const { commitTable } = await import('#shared/domain/ingest/commit-table.ts');
  const now = Date.now();
  const lines: string[] = [];
  let i = 0;
  for (const envelope of envelopeStream(rowsPerCommit, 7)) {
    lines.push(
      queuedEnvelope(
        {
          ...envelope,
          data_set_id: sender.dataSetId,
          tenant_id: sender.tenantId,
          source_id: sender.sourceId,
          dt: new Date(now).toISOString().slice(0, 10),
          ingested_at_us: BigInt(now) * 1000n + BigInt(i),
        },
        ++i,
      ),
    );
  }
  const rows = stagingDeps.parse(Buffer.from(`${lines.join('\n')}\n`)).map((message) => ({ batch: 'probe', message }));
  lines.length = 0;
  meter.take();
  // Its own invocation, not the longest of the committer's in the reading: the runtime's committer
  // runs meanwhile (the last phase's triggers), and which of them takes longest says nothing.
  const { value: result, invocation: probe } = await meter.invoke(committerEntry, () =>
    commitTable(stagingDeps, sender.dataSetId, rows, 1),
  );
  const reading = meter.take();
  if (result.written !== rowsPerCommit)
    throw new Error(`The probe's commit wrote ${result.written} of ${rowsPerCommit} rows`);
  const items = new Map<string, number>();
  let largest = { bytes: 0, key: '' };
  let tooLarge = 0;
  for (const call of probe.calls) {
    if (call.itemTooLarge) tooLarge++;
    const group = shapeOfKey(call.partitions[0]?.key ?? call.entity);
    if (call.itemBytes > (items.get(group) ?? 0)) items.set(group, call.itemBytes);
    if (call.itemBytes > largest.bytes) largest = { bytes: call.itemBytes, key: group };
  }
  const seconds = awsSeconds(reading.invocations, timing.deployment)(probe);
  process.stderr.write(`scale: a commit of ${rowsPerCommit} rows: ${seconds.toFixed(1)} s as on AWS\n`);
  return { rows: rowsPerCommit, seconds, items, largest, tooLarge };
}

/**
 * A full batch of the table committer at quiet traffic: one row staged by the writer for each of
 * `batchSize` quiet sources' tables (each committed before, as a source that sends once an hour finds
 * its table), then those tables committed side by side in one committer invocation, through the
 * committer's edge (its counts written before it answers), as a full batch of triggers is when the
 * commits queue backs up. Each table is taken as due (`everything`: here it is staged a moment
 * before). Answers the invocation's time as on AWS.
 */
async function probeFullBatch(senders: Sender[], timing: { deployment: ReturnType<typeof readDeployment> }) {
  const batch = consumers['table-committer'].batchSize;
  if (senders.length < batch * fullBatchProbes)
    throw new Error(`The committer's probe needs ${batch * fullBatchProbes} quiet sources`);
  const probes: FullBatch[] = [];
  for (let i = 0; i < fullBatchProbes; i++)
    probes.push(await probeOneFullBatch(senders.slice(i * batch, (i + 1) * batch), timing));
  const median = [...probes].sort((a, b) => a.seconds - b.seconds)[Math.floor(fullBatchProbes / 2)] as FullBatch;
  process.stderr.write(
    `scale: the committer's full batches: ${probes.map((probe) => probe.seconds.toFixed(3)).join(', ')} s as on AWS; the median taken\n`,
  );
  return median;
}
/**
 * Batches the committer's probe commits, on tables of their own: one batch's CPU moved by half between
 * runs (0.29 to 0.48 s for ten one-row commits), and with it the quiet shape's ceiling.
 */
const fullBatchProbes = 5;

async function probeOneFullBatch(tables: Sender[], timing: { deployment: ReturnType<typeof readDeployment> }) {
  const batch = tables.length;
  const writer = (await import('#functions/ingest/write-batch.ts')).handler as unknown as LambdaHandler;
  const { committing, stagingDeps } = await import('#functions/ingest/wiring.ts');
  const { commitTriggered } = await import('#shared/domain/ingest/commit-staged.ts');
  const { batchHandler } = await import('#shared/queue-handler.ts');
  // Each invocation with its deployed time limit: a commit starts only with a table's time budget left.
  const timeoutOf = (entry: string) => (timing.deployment.functions.get(entry) as Deployed).timeoutSeconds;
  const now = Date.now();
  const envelopes = [...envelopeStream(batch, 11)];
  await writer(
    {
      Records: tables.map((sender, i) => ({
        messageId: `probe-${now}-${i}`,
        receiptHandle: `probe-${now}-${i}`,
        body: queuedEnvelope(
          {
            ...(envelopes[i] as (typeof envelopes)[number]),
            data_set_id: sender.dataSetId,
            tenant_id: sender.tenantId,
            source_id: sender.sourceId,
            dt: new Date(now).toISOString().slice(0, 10),
            ingested_at_us: BigInt(now) * 1000n,
          },
          i + 1,
        ),
        attributes: { ApproximateReceiveCount: '1' },
      })),
    },
    lambdaContext(functionNameOf(consumers['ingest-writer'].entry), timeoutOf(consumers['ingest-writer'].entry)),
  );
  meter.take();
  let committed = 0;
  const committer = batchHandler(async (_event, context) => {
    const report = await commitTriggered(
      stagingDeps,
      tables.map((sender) => ({ tableId: sender.dataSetId, at: Date.now() })),
      { ...committing(context.getRemainingTimeInMillis(), batch), everything: true },
    );
    committed = report.committed.length;
    return { batchItemFailures: [] };
  });
  const { invocation } = await meter.invoke(committerEntry, () =>
    committer({ Records: [] }, lambdaContext(functionNameOf(committerEntry), timeoutOf(committerEntry))),
  );
  const reading = meter.take();
  const commits = invocation.calls.filter(isCommitPut).length;
  if (committed !== batch || commits !== batch)
    throw new Error(`The committer's probe committed ${committed} tables (${commits} commits) of ${batch}`);
  const { cpuSeconds, waitSeconds } = awsParts(reading.invocations, timing.deployment)(invocation);
  process.stderr.write(
    `scale: a committer batch of ${batch} quiet tables: ${(cpuSeconds + waitSeconds).toFixed(3)} s as on AWS (CPU ${cpuSeconds.toFixed(3)} s)\n`,
  );
  return { triggers: batch, seconds: cpuSeconds + waitSeconds, cpuSeconds, waitSeconds };
}
type LambdaHandler = (event: unknown, context: unknown) => Promise<unknown>;
type FullBatch = Awaited<ReturnType<typeof probeOneFullBatch>>;

/** Items written for the counters' probe: this many of the run's sources, each this many epochs more. */
const probedSources = 500;
const probedEpochs = 100;

interface CounterProbe {
  /** Seconds as on AWS the counters' reading takes a source active within the hour (its partition read whole). */
  perSource: number;
  /**
   * GET /metrics (no shards): seconds as on AWS to read the platform's partitions as the run left them,
   * and the series they hold.
   */
  platform: { seconds: number; series: number };
  /** Seconds as on AWS a further counter item takes it (read in the index and in its source's partition). */
  perItem: number;
  /** Bytes of GET /metrics' answer a source adds (its series). */
  bytesPerSource: number;
  /** Items a series holds a quarter at most, however many processes count in it (the counters' slots). */
  slots: number;
  /**
   * A counter item's bytes but its processes' totals, and what each total adds: an item holds the
   * totals of the processes in its slot, so that it grows with the ingest instances (a write unit per KB).
   */
  itemBaseBytes: number;
  bytesPerTotal: number;
}

/**
 * The counters' reading (`readRecentCounters`: GET /metrics each scrape, the upkeep each run), metered
 * alone with the runtime stopped. It reads every source that moved within the hour, and each source's
 * items. Every ingest instance counts in an epoch of its own, and its totals go to its slot's item of
 * each series and quarter: deployed, a busy source holds an item per slot some instance of the quarter
 * counted in, where local mode (one process) holds one. So it reads the run's sources, then again once
 * some of them hold `probedEpochs` processes' totals more each (an instance's epoch each): a source's
 * time from the first, a further item's from the difference, each the least of three readings.
 */
async function probeCounters(timing: { deployment: ReturnType<typeof readDeployment> }): Promise<CounterProbe> {
  const counters = await import('#shared/adapters/dynamo/counters.ts');
  const { queryAll } = await import('#shared/adapters/dynamo/table.ts');
  const { asStored } = await import('#shared/adapters/dynamo/stored-items.ts');
  const { renderPrometheus } = await import('#shared/domain/observability/metric-catalogue.ts');
  let answerBytes = 0;
  const read = async () => {
    meter.take();
    const { value, invocation } = await meter.invoke(metricsEntry, () => counters.readRecentCounters());
    answerBytes = Buffer.byteLength(renderPrometheus(value.samples, 0));
    return awsSeconds(meter.take().invocations, timing.deployment)(invocation);
  };
  let platformSeries = 0;
  const readPlatform = async () => {
    meter.take();
    const { value, invocation } = await meter.invoke(metricsEntry, () => counters.readPlatformCounters());
    platformSeries = [...value.samples.values()].reduce((sum, samples) => sum + samples.length, 0);
    return awsSeconds(meter.take().invocations, timing.deployment)(invocation);
  };
  // The least of three readings each: another process's moment (DynamoDB Local's own collector) only adds.
  const least = async () => Math.min(await read(), await read(), await read());
  const platformSeconds = Math.min(await readPlatform(), await readPlatform(), await readPlatform());
  const before = await least();
  const bytesPerSource = answerBytes / sentSoFar.size;
  const now = Date.now();
  const probed = [...sentSoFar].slice(0, probedSources);
  const writes = probed.flatMap((source) =>
    Array.from({ length: probedEpochs }, (_, n) => ({
      metric: 'ingestRequests' as const,
      labels: { code: 'ACCEPTED', source_id: source, status: '202' },
      // A process's name as long as a tally's (eight characters), a total of five digits: an item's totals sized as deployed.
      epoch: `${Math.floor(now / 1000).toString(36)}.probe${String(n).padStart(3, '0')}`,
      value: 10_000 + n,
      lastAt: new Date(now).toISOString(),
    })),
  );
  const failed = await counters.writeTotals(writes, now);
  if (failed.length > 0) throw new Error(`The counters' probe could not write ${failed.length} totals`);
  // The items those totals made: a source's processes share the items of their slots.
  const items =
    probed.length * new Set(writes.slice(0, probedEpochs).map((w) => counters.storedEpoch(w.epoch).itemEpoch)).size;
  const after = await least();
  // One probed source's items, sized as DynamoDB sizes them: what is there whatever the processes, and what each total adds.
  const sized = (await queryAll({ partition: counters.counterKeys.source(probed[0] as string) }, asStored))
    .filter((item) => Object.keys(item).some((name) => name.startsWith('t_probe')))
    .map((item) => {
      const totals = Object.entries(item).filter(([name]) => name.startsWith('t_'));
      const totalBytes = meter.itemBytes(Object.fromEntries(totals));
      return { base: meter.itemBytes(item) - totalBytes, perTotal: totalBytes / totals.length };
    });
  const itemBaseBytes = Math.max(...sized.map((item) => item.base));
  const bytesPerTotal = Math.max(...sized.map((item) => item.perTotal));
  process.stderr.write(
    `scale: the counters of ${sentSoFar.size} sources read in ${before.toFixed(2)} s as on AWS, with ${writes.length} totals more (${items} items) in ${after.toFixed(2)} s; an item ${itemBaseBytes} bytes but its totals, ${bytesPerTotal.toFixed(1)} bytes a total\n`,
  );
  process.stderr.write(
    `scale: GET /metrics read the platform's partitions (${platformSeries} series) in ${platformSeconds.toFixed(3)} s as on AWS\n`,
  );
  return {
    perSource: before / sentSoFar.size,
    platform: { seconds: platformSeconds, series: platformSeries },
    perItem: Math.max(0, (after - before) / items),
    bytesPerSource,
    slots: counters.epochSlots,
    itemBaseBytes,
    bytesPerTotal,
  };
}

/** The rate at which an increasing `load` reaches `capacity` (Infinity when it does not below 10 million). */
function solve(load: (rate: number) => number, capacity: number): number {
  let [low, high] = [0, 1e7];
  if (load(high) < capacity) return Number.POSITIVE_INFINITY;
  for (let step = 0; step < 60; step++) {
    const middle = (low + high) / 2;
    if (load(middle) < capacity) low = middle;
    else high = middle;
  }
  return low;
}

/** Sources among `requests` of a shape's requests at `rate`, on average. */
function distinctIn(shape: Shape, rate: number, requests: number): number {
  return shape.sources(rate).reduce((sum, { share, count }) => sum + count * (1 - (1 - share) ** requests), 0);
}

/**
 * Counter items of one series a quarter, as deployed: each source's epochs fall in `slots` items (the
 * processes' slots), and a source's are those of the ingest instances that took its requests in the
 * quarter, each instance a share of the requests.
 */
function counterItemsPerQuarter(shape: Shape, rate: number, instances: number, slots: number): number {
  const perInstance = (rate * 900) / instances;
  return shape.sources(rate).reduce((sum, { share, count }) => {
    const counted = instances * (1 - (1 - share) ** perInstance);
    return sum + count * slots * (1 - (1 - 1 / slots) ** counted);
  }, 0);
}

/**
 * The door's own counter writes a second at a rate, as deployed, per limit: an ingest instance
 * writes each source's door series once per thousand requests it took (`defaultMaxPending`; at these
 * rates an instance takes a thousand well within the five minutes that would also make them due), and
 * a commit raises its connection's once (the receipts its envelopes carry). The busiest source's item
 * takes a write per flush that holds it and per commit of its table. The index takes an entry per
 * item and process in a quarter: each ingest instance's per source it saw in the quarter, and at
 * most one per commit; a source's all on its own shard: the busiest shard an even share and the
 * busiest source's. Units per write as measured here; the busiest source's items hold a total per
 * ingest instance in their slot, so that past some instances a write of one takes a unit per KB.
 */
function doorWrites(
  shape: Shape,
  phases: [Phase, Phase],
  instancesAt: (rate: number) => number,
  counters: CounterProbe,
): Map<string, (rate: number) => number> {
  const units = { table: { units: 0, writes: 0 }, index: { units: 0, writes: 0 } };
  const series = new Map<string, Set<string>>();
  for (const phase of phases)
    for (const { call } of phase.calls)
      for (const use of call.partitions) {
        if (!isDoorSeries(use) || use.writeUnits === 0) continue;
        const onIndex = use.key.startsWith('table COUNTED#');
        const tally = onIndex ? units.index : units.table;
        tally.units += use.writeUnits;
        tally.writes++;
        if (onIndex) continue;
        // A series' items differ by epoch only (the sort key's last part).
        const known = series.get(use.key) ?? new Set<string>();
        known.add((use.sortKey as string).slice(0, (use.sortKey as string).lastIndexOf('#')));
        series.set(use.key, known);
      }
  const perWrite = (tally: { units: number; writes: number }) => (tally.writes > 0 ? tally.units / tally.writes : 1);
  const perSource = Math.max(1, ...[...series.values()].map((known) => known.size));
  const flushes = (rate: number) => rate / defaultMaxPending;
  // The busiest source's writes: a flush that holds it, and a commit of its table.
  const busiestSource = (rate: number) =>
    flushes(rate) * (1 - (1 - shape.busiestShare(rate)) ** defaultMaxPending) +
    tableCommits(rate * shape.busiestShare(rate));
  const itemUnits = (rate: number) =>
    Math.ceil(
      (counters.itemBaseBytes + Math.ceil(Math.max(1, instancesAt(rate)) / counters.slots) * counters.bytesPerTotal) /
        1024,
    );
  const busiest = (rate: number) => Math.max(perWrite(units.table), itemUnits(rate)) * perSource * busiestSource(rate);
  const quarter = 900;
  const shard = (rate: number) => {
    const instances = Math.max(1, instancesAt(rate));
    const perInstance = (rate * quarter) / instances;
    const entries = (instances * distinctIn(shape, rate, perInstance)) / quarter + shape.commitsAt(rate);
    const busiestEntries =
      (instances * (1 - (1 - shape.busiestShare(rate)) ** perInstance)) / quarter +
      tableCommits(rate * shape.busiestShare(rate));
    return perWrite(units.index) * perSource * (entries / counterIndexShards + busiestEntries);
  };
  return new Map([
    [`DynamoDB writes on \`table COUNTER#<id>\``, busiest],
    [`DynamoDB writes on \`table COUNTED#<time>#<n>\``, shard],
  ]);
}

function analyse(
  shape: Shape,
  phases: [Phase, Phase],
  probe: Probe,
  fullBatch: FullBatch,
  counters: CounterProbe,
  deployment: ReturnType<typeof readDeployment>,
): ShapeResult {
  const served: [number, number] = [phases[0].served, phases[1].served];
  const [first, second] = phases.map(loadsOf) as [Map<string, Load>, Map<string, Load>];
  const constraints: ShapeResult['constraints'] = [];
  const events = eventsOf(shape, phases);
  // A function's time is measured in a process every function shares: what it takes grows with the
  // traffic only where its calls do (a schedule's own work at rest does not), else the difference is noise.
  // A schedule's calls are counted per run (how many of its runs fall in a window varies), and its
  // work grows when a run makes a call more at least (one run's page or retry more is not the traffic).
  const callsPerSecond = (phase: Phase, entry: string) =>
    (phase.callCounts.get(entry) ?? 0) /
    (scheduleEntries.has(entry) ? Math.max(1, phase.runs.get(entry) ?? 0) : phase.seconds);
  const grows = (entry: string) =>
    callsPerSecond(phases[1], entry) > 1.2 * callsPerSecond(phases[0], entry) + (scheduleEntries.has(entry) ? 1 : 0.05);
  // The ingest instances at a rate: the ingest function's concurrency on its line.
  const ingestLine = lineOf(served, busyLoad(phases[0], ingestEntry), busyLoad(phases[1], ingestEntry), events);
  const door = doorWrites(shape, phases, (rate) => ingestLine.at(rate), counters);
  for (const key of new Set([...first.keys(), ...second.keys(), ...door.keys()])) {
    // The committer's and the counters' upkeep workers' time, read below as deployed.
    if (key === committerEntry || key === upkeepWorkerEntry) continue;
    const load = first.get(key) ??
      second.get(key) ?? { limit: key, capacity: limits.partitionWrites, parts: new Map<string, number>() };
    const timeOf = scheduleEntries.has(key) || Object.values(consumers).some((consumer) => consumer.entry === key);
    const measuredLine =
      timeOf && !grows(key)
        ? lineOf(served, second.get(key), second.get(key), events)
        : lineOf(served, first.get(key), second.get(key), events);
    const doorAt = door.get(key);
    const line = doorAt
      ? { ...measuredLine, perEvent: true, at: (rate: number) => measuredLine.at(rate) + doorAt(rate) }
      : measuredLine;
    // A schedule judged to grow with the traffic says why: its calls a run in each phase.
    const why =
      scheduleEntries.has(key) && grows(key)
        ? ` (calls a run: ${phases.map((phase) => callsPerSecond(phase, key).toFixed(1)).join(' → ')})`
        : '';
    // A run bounded by design: at most its measured time a call, at its calls' bound, each interval.
    const bound = runCallsAtMost(key);
    const schedule = scheduleEntries.get(key);
    if (bound !== undefined && schedule && grows(key)) {
      const runs = Math.max(1, phases[1].runs.get(key) ?? 0);
      const perCall = (phases[1].busy.get(key) ?? 0) / runs / Math.max(1, callsPerSecond(phases[1], key));
      const atMost = (perCall * bound) / (schedule.everyMinutes * 60);
      constraints.push({
        limit: `${load.limit}${why}, at most ${bound} calls a run (${(perCall * bound).toFixed(1)} s) every ${schedule.everyMinutes} minutes`,
        values: [Math.min(line.at(served[0]), atMost), Math.min(line.at(served[1]), atMost)],
        capacity: load.capacity,
        ceiling: atMost < load.capacity ? Number.POSITIVE_INFINITY : reaches(line, load.capacity),
      });
      continue;
    }
    constraints.push({
      limit: `${load.limit}${why}`,
      values: [line.at(served[0]), line.at(served[1])],
      capacity: load.capacity,
      ceiling: reaches(line, load.capacity),
    });
  }
  // The committer, as deployed: here tables commit every few seconds, there every ten minutes or at
  // their size target, so its time is read as a time per commit and a time per row, and the commits
  // a second the shape makes as deployed. A row's time is the probe's (a size target's commit over
  // its rows, its commit's own time included); a commit's is what the second phase's committer took
  // beyond its rows' time, per commit it made.
  const perRow = probe.seconds / probe.rows;
  const measured = phases[1];
  const committerBusy = (measured.busy.get(committerEntry) ?? 0) / measured.seconds;
  const perCommit = measured.commits > 0 ? Math.max(0, committerBusy - measured.served * perRow) / measured.commits : 0;
  const committerAt = (rate: number) => shape.commitsAt(rate) * perCommit + rate * perRow;
  const committers = consumers['table-committer'].maxConcurrency;
  // That is its time in the batches it got here, of a trigger or a few. At its ceiling its queue backs
  // up and each invocation takes a full batch, whose tables it commits side by side
  // (functions/ingest/commit-tables.ts): priced from the probe's full batch of one-row commits, each
  // trigger a commit (most are: a quiet table's trigger finds its row due), the rows' time beside.
  // A shape whose commits hold more than a row each keeps the time per commit read here. A full batch
  // takes no more of an instance's time than its commits in the batches here: its calls' wait is
  // chained by the order they answered locally, ten commits interleaved on a loaded machine.
  const quietCommits = shape.commitsAt(served[1]) >= 0.5 * served[1];
  const inFullBatches = (rate: number) =>
    (shape.triggersAt(rate) / fullBatch.triggers) * fullBatch.seconds + rate * perRow;
  const committerLimit = (rate: number) =>
    quietCommits ? Math.min(committerAt(rate), inFullBatches(rate)) : committerAt(rate);
  constraints.push({
    limit:
      `ingest/commit-tables.ts's maximum concurrency (${committers}): ${perCommit.toFixed(3)} s a commit in the batches here, ${(perRow * 1000).toFixed(3)} ms a row` +
      (quietCommits
        ? `; at its ceiling a full batch an invocation, ${fullBatch.triggers} one-row commits in ${fullBatch.seconds.toFixed(3)} s`
        : ''),
    values: [committerAt(served[0]), committerAt(served[1])],
    capacity: committers,
    ceiling: solve(committerLimit, committers),
  });
  // The counters' upkeep as deployed: its planner (every five minutes) reads no source, only the
  // kept figures, and is measured like any schedule; its workers (the upkeep queue's consumer) read
  // each source that moved in a settled window once, and fold each settled quarter's items once. Here
  // counts are flushed every five minutes and windows last five, so little of that work falls within
  // a phase: it is priced from the counters' probe instead, a moved source at a source's reading (as
  // GET /metrics reads it) and an item at an item's, against the workers' maximum concurrency.
  const upkeepWorkers = consumers['counter-upkeep-worker'].maxConcurrency;
  const movedAt = (rate: number) => distinctIn(shape, rate, rate * counterWindowSeconds) / counterWindowSeconds;
  const itemsFoldedAt = (rate: number) =>
    counterItemsPerQuarter(shape, rate, Math.max(1, ingestLine.at(rate)), counters.slots) / 900;
  // Deployed, a source's items multiply with the ingest instances that took its requests (each counts
  // in an epoch of its own): an item per instance, source and quarter not yet folded, each at the
  // probe's time. The instances at a rate are the ingest function's concurrency on its line, each
  // taking its share of the requests.
  const counterItemsAt = (rate: number) => {
    const instances = Math.max(1, ingestLine.at(rate));
    return quartersUnfolded * counterItemsPerQuarter(shape, rate, instances, counters.slots);
  };
  const upkeepAt = (rate: number) => counters.perSource * movedAt(rate) + counters.perItem * itemsFoldedAt(rate);
  constraints.push({
    limit: `monitoring/counter-upkeep-worker.ts's maximum concurrency (${upkeepWorkers}): ${(counters.perSource * 1000).toFixed(2)} ms a source that moved in a ${counterWindowSeconds / 60}-minute window, ${(counters.perItem * 1e6).toFixed(1)} µs an item folded`,
    values: [upkeepAt(served[0]), upkeepAt(served[1])],
    capacity: upkeepWorkers,
    ceiling: solve(upkeepAt, upkeepWorkers),
  });
  // GET /metrics reads the platform's partitions: the platform's series and those of all sources,
  // each as many items as the processes' slots of each quarter not folded yet (at most), whatever the
  // traffic. Its time as read, and each series at its most items: no line that grows with the rate.
  const metricsTimeout = (deployment.functions.get(metricsEntry) as Deployed).timeoutSeconds;
  // A run holds a few series; a deployment, one per status and code, failure reason and job status.
  const platformSeries = Math.max(platformSeriesAtMost, counters.platform.series);
  const platformScrape =
    (counters.platform.seconds + counters.perItem * platformSeries * counters.slots * quartersUnfolded) /
    metricsTimeout;
  constraints.push({
    limit: `GET /metrics within ${metricsTimeout} s (the platform's partitions: ${platformSeries} series, each at most ${counters.slots} items a quarter, ${quartersUnfolded} quarters)`,
    values: [platformScrape, platformScrape],
    capacity: 1,
    ceiling: platformScrape < 1 ? Number.POSITIVE_INFINITY : 0,
  });
  // GET /metrics?shards= makes the same reading as the upkeep each scrape (the probe's), within its
  // timeout, and answers every series of those sources within a function's 6 MB; each shard a scrape
  // target. Not a limit (the series of all sources hold every figure): the shards it needs at a
  // shape's ceiling are listed with the quotas, more than 64 when a deployment that busy reads each
  // source's figures from its connection's stats instead.
  const scrapeAt = (rate: number, shards: number) =>
    Math.max(
      (counters.perSource * shape.activeWithinHour(rate) + counters.perItem * counterItemsAt(rate)) /
        shards /
        metricsTimeout,
      (counters.bytesPerSource * shape.activeWithinHour(rate)) / shards / lambdaAnswerBytes,
    );
  const scrapeShards = (rate: number) =>
    metricsShardCounts.find((shards) => scrapeAt(rate, shards) <= 1) ?? Number.POSITIVE_INFINITY;
  // A large table is committed by at most `maxTableCommitters` at once (each on a run it leases).
  const tableAt = (rate: number) => {
    const tableRate = rate * shape.busiestShare(rate);
    return tableCommits(tableRate) * perCommit + tableRate * perRow;
  };
  constraints.push({
    limit: `the busiest table's commits, ${maxTableCommitters} committers at a time (a size target's commit of ${probe.rows.toLocaleString('en')} rows: ${probe.seconds.toFixed(1)} s)`,
    values: [tableAt(served[0]), tableAt(served[1])],
    capacity: maxTableCommitters,
    ceiling: solve(tableAt, maxTableCommitters),
  });
  // Item sizes grow with what waits for a commit: the envelopes of a freshness target (here a few
  // seconds', deployed ten minutes'). A group of items that grew between the phases (by a fifth and a
  // KB at least: not noise) is read along its line at the deployed target.
  const waiting: [number, number] = [served[0] * localFreshnessSeconds, served[1] * localFreshnessSeconds];
  let itemCeiling = {
    ceiling: Number.POSITIVE_INFINITY,
    key: phases[1].largestItem.key,
    bytes: [0, 0] as [number, number],
  };
  const lines: { key: string; sizeAt: (rate: number) => number }[] = [];
  for (const key of new Set([...phases[0].items.keys(), ...phases[1].items.keys()])) {
    const bytes: [number, number] = [phases[0].items.get(key) ?? 0, phases[1].items.get(key) ?? 0];
    if (boundedItems.has(key)) {
      lines.push({ key, sizeAt: () => Math.max(...bytes) });
      continue;
    }
    // Items a commit writes are measured at their largest, on the probe's commit of a size target's
    // worth of rows (the most a commit holds, however long the target): no line for them.
    const probed = probe.items.get(key);
    if (probed !== undefined) {
      const largest = Math.max(probed, bytes[1]);
      lines.push({ key, sizeAt: () => largest });
      const ceiling = largest >= limits.itemBytes ? 0 : Number.POSITIVE_INFINITY;
      if (ceiling < itemCeiling.ceiling || (itemCeiling.bytes[1] < largest && !Number.isFinite(itemCeiling.ceiling)))
        itemCeiling = { ceiling, key, bytes: [bytes[0], largest] };
      continue;
    }
    const grew = bytes[1] > 1.2 * bytes[0] && bytes[1] - bytes[0] >= 1024;
    const slope = grew ? (bytes[1] - bytes[0]) / (waiting[1] - waiting[0]) : 0;
    lines.push({
      key,
      sizeAt: (rate) => Math.max(bytes[1], bytes[1] + slope * (rate * deployedFreshnessSeconds - waiting[1])),
    });
    const ceiling =
      slope > 0
        ? (waiting[1] + (limits.itemBytes - bytes[1]) / slope) / deployedFreshnessSeconds
        : Number.POSITIVE_INFINITY;
    if (ceiling < itemCeiling.ceiling || (itemCeiling.bytes[1] < bytes[1] && !Number.isFinite(itemCeiling.ceiling)))
      itemCeiling = { ceiling, key, bytes };
  }
  const sizeAt = (rate: number) => Math.max(0, ...lines.map((line) => line.sizeAt(rate)));
  // The first limit the traffic reaches among `limits`, or the largest item's.
  const firstOf = (limits: typeof constraints) => {
    const first = [...limits].sort((a, b) => a.ceiling - b.ceiling)[0];
    return itemCeiling.ceiling < (first?.ceiling ?? Number.POSITIVE_INFINITY)
      ? {
          ceiling: itemCeiling.ceiling,
          limitedBy: `an item of \`${itemCeiling.key}\` reaching 400 KB at the deployed freshness target`,
          binding: undefined,
        }
      : {
          ceiling: first?.ceiling ?? Number.POSITIVE_INFINITY,
          limitedBy: first ? first.limit : 'nothing measured',
          binding: first,
        };
  };
  const { ceiling, limitedBy, binding } = firstOf(constraints);
  let withCommitters: ShapeResult['withCommitters'] = null;
  if (binding?.limit.startsWith('ingest/commit-tables.ts')) {
    const { ceiling: at, limitedBy: nextBy } = firstOf(constraints.filter((one) => one !== binding));
    const most = 1000;
    if (Number.isFinite(at) && committerLimit(at) <= most)
      withCommitters = { committers: Math.ceil(committerLimit(at) / 10) * 10, ceiling: at, limitedBy: nextBy };
    else
      withCommitters = {
        committers: most,
        ceiling: solve(committerLimit, most),
        limitedBy: `the committers' ${most} (Lambda's most for an SQS event source)`,
      };
  }
  // What each function keeps busy at the ceiling (Lambda's concurrency), on the same lines as its limit.
  const concurrency = new Map<string, number>();
  for (const entry of new Set([...phases[0].busy.keys(), ...phases[1].busy.keys()])) {
    if (entry === committerEntry || entry === upkeepWorkerEntry) {
      const at = Number.isFinite(ceiling) ? ceiling : served[1];
      // The committer's queue backs up only as far as its instances need: at most all of them.
      concurrency.set(
        entry,
        entry === committerEntry ? Math.min(committerAt(at), Math.max(committers, committerLimit(at))) : upkeepAt(at),
      );
      continue;
    }
    const [low, high] = [busyLoad(phases[0], entry), busyLoad(phases[1], entry)];
    const line =
      grows(entry) || entry === ingestEntry ? lineOf(served, low, high, events) : lineOf(served, high, high, events);
    concurrency.set(entry, line.at(Number.isFinite(ceiling) ? ceiling : served[1]));
  }
  return {
    shape,
    phases,
    constraints,
    itemCeiling,
    sizeAtCeiling: sizeAt(Number.isFinite(ceiling) ? ceiling : served[1]),
    ceiling,
    limitedBy,
    concurrency,
    scrapeShards: scrapeShards(Number.isFinite(ceiling) ? ceiling : served[1]),
    withCommitters,
  };
}

// --- The shapes.

function zipfShape(
  local: Local,
  name: string,
  connections: number,
  rates: [number, number],
): Shape & { readonly first: Sender | null } {
  let senders: Sender[] | null = null;
  let harmonic = 0;
  for (let k = 1; k <= connections; k++) harmonic += 1 / k;
  return {
    name,
    rates,
    async senders(_rate, phase) {
      senders ??= await createSenders(local, connections);
      const choose = zipfChooser(connections, 1, seededRandom(phase + 1));
      return { senders, choose: () => choose() };
    },
    busiestShare: () => 1 / harmonic,
    sources: () => Array.from({ length: connections }, (_, k) => ({ share: 1 / ((k + 1) * harmonic), count: 1 })),
    activeWithinHour(rate) {
      let active = 0;
      for (let k = 1; k <= connections; k++) active += 1 - Math.exp((-rate / (k * harmonic)) * 3600);
      return active;
    },
    commitsAt(rate) {
      let commits = 0;
      for (let k = 1; k <= connections; k++) commits += tableCommits(rate / (k * harmonic));
      return commits;
    },
    triggersAt(rate) {
      let triggers = 0;
      for (let k = 1; k <= connections; k++) triggers += tableTriggers(rate / (k * harmonic));
      return triggers;
    },
    get first() {
      return senders?.[0] ?? null;
    },
  };
}

/**
 * Each sender's table as a source that sent an hour ago finds it: made by a first commit of one row,
 * with its Iceberg metadata last synced longer ago than the sync interval. A table's first commit
 * happens once in its life (it fixes the table's store: a transaction on the store's item, a
 * TENANT#<id> write that put the quiet shape at 4,095 requests/s while every request made a table).
 */
async function tablesCommittedOnce(local: Local, senders: Sender[]): Promise<void> {
  const rate = 100;
  const answers = await meter.unmetered(() => sendTraffic(local, senders, (i) => i, rate, senders.length / rate));
  const refused = answers.filter((answer) => answer.status !== 202).length;
  if (refused > 0) throw new Error(`${refused} of the quiet senders' first requests were not answered 202`);
  await settle(local);
  await meter.unmetered(() => ageIcebergSyncs(senders.map((sender) => sender.dataSetId)));
}

function quietShape(local: Local, rates: [number, number]): Shape & { readonly last: Sender[] } {
  let last: Sender[] = [];
  return {
    name: `${quietSources.toLocaleString('en')} quiet sources at one event an hour`,
    rates,
    // Each request from a source of its own that has sent nothing for an hour.
    async senders(rate) {
      const senders = await createSenders(local, Math.round(rate * (warmUpSeconds + measuredSeconds)) + 1);
      await tablesCommittedOnce(local, senders);
      last = senders;
      return { senders, choose: (i) => i };
    },
    get last() {
      return last;
    },
    // Each source its own table, sending once an hour.
    busiestShare: (rate) => 1 / (rate * 3600),
    sources: (rate) => [{ share: 1 / (rate * 3600), count: rate * 3600 }],
    activeWithinHour: (rate) => rate * 3600,
    commitsAt: (rate) => rate * 3600 * tableCommits(1 / 3600),
    triggersAt: (rate) => rate * 3600 * tableTriggers(1 / 3600),
  };
}

// --- Report.

const whole = (value: number) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en') : 'no limit in sight';
const figure = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en') : value.toPrecision(3));

export async function benchScale(): Promise<string> {
  const deployment = readDeployment();
  meter.attributeCpu();
  const local = await startLocal(deployment, {
    settings: { scheduleSecondsOverride: scheduleSeconds, batchWindowSeconds: 2, pollersPerConsumer: 2 },
    env: { TABLE_FRESHNESS_SECONDS: String(localFreshnessSeconds), COUNTER_FLUSH_SECONDS: '300' },
  });
  const { stagedSizeTargetBytes } = await import('#shared/domain/ingest/staging.ts');
  rowsPerCommit = Math.floor(stagedSizeTargetBytes / bodyBytes);
  counterIndexShards = (await import('#shared/adapters/dynamo/counters.ts')).indexShards;
  const out: string[] = [];
  const row = (...cells: (string | number)[]) => out.push(`| ${cells.join(' | ')} |`);
  const results: ShapeResult[] = [];
  let runtimeStopped = false;
  let probe: Probe = { rows: 0, seconds: 0, items: new Map(), largest: { bytes: 0, key: '' }, tooLarge: 0 };
  try {
    const timing = { deployment };
    const hot = zipfShape(local, 'one hot table', 1, [40, 80]);
    const quiet = quietShape(local, [Math.round(quietRate / 2), Math.round(quietRate)]);
    const shapes = [
      zipfShape(
        local,
        `${connectionsOfZipf.toLocaleString('en')} connections at Zipf(1.0)`,
        connectionsOfZipf,
        [40, 80],
      ),
      hot,
      quiet,
    ];
    const measured: [Shape, [Phase, Phase]][] = [];
    for (const shape of shapes) {
      const phases: Phase[] = [];
      for (const [index, rate] of shape.rates.entries()) {
        process.stderr.write(`scale: ${shape.name} at ${rate} requests/s (${Math.round(process.uptime())} s)\n`);
        phases.push(await runPhase(local, shape, rate, index, timing));
        await settle(local);
      }
      measured.push([shape, phases as [Phase, Phase]]);
    }
    // The probe's commit alone: its CPU is the process's less what other invocations took meanwhile
    // (at their typical CPU), and a counters' upkeep of the quiet shape's thousands of sources,
    // started on its schedule during the probe, read a 2.7 s commit as 0.5 s.
    await local.stopRuntime();
    runtimeStopped = true;
    probe = await probeCommit(hot.first as Sender, timing);
    const fullBatch = await probeFullBatch(quiet.last, timing);
    const counters = await probeCounters(timing);
    for (const [shape, phases] of measured)
      results.push(analyse(shape, phases, probe, fullBatch, counters, deployment));
  } finally {
    if (!runtimeStopped) await local.stopRuntime();
    await local.stop();
  }

  out.push(
    '### Scale: each shape of traffic against AWS’s published limits (extrapolated from local mode)',
    '',
    `Each shape sent at two local rates (${warmUpSeconds} s to warm up, ${measuredSeconds} s measured), tables committed ` +
      `after ${localFreshnessSeconds} s and schedules run every ${scheduleSeconds} s so that commits and upkeep happen within ` +
      `a phase (a schedule's work at rest scaled back to its deployed interval); each measurement a line through the two rates. ` +
      `The table committer as deployed (tables committed after ${deployedFreshnessSeconds} s or at their size target): a time per ` +
      `commit from the second phase, a time per row from one commit of a size target's worth (${probe.rows.toLocaleString('en')} rows, ` +
      `${probe.seconds.toFixed(1)} s as on AWS), and the commits a second each shape makes as deployed; the items a commit writes ` +
      `measured on that commit.`,
    '',
    `A function's time (each limit of a concurrency, a schedule's one run at a time, a commit, a scrape) is priced, not ` +
      `timed by the wall clock: its invocation's own CPU (each callback charged to the invocation it ran for) at the ` +
      `share of a vCPU its memory buys, plus its AWS calls in the order it made them at a stated latency each ` +
      `(${Object.entries(assumptions.callLatencyMs)
        .map(([call, ms]) => `${call} ${ms} ms`)
        .join(', ')}; bench/aws-prices.ts), as the cost bench prices them.`,
    '',
  );
  for (const result of results) {
    out.push(`#### ${result.shape.name}`, '');
    row(
      'limit',
      'capacity',
      `at ${figure(result.phases[0].served)} req/s`,
      `at ${figure(result.phases[1].served)} req/s`,
      'reached at (req/s)',
    );
    row('---', '---:', '---:', '---:', '---:');
    for (const constraint of [...result.constraints].sort((a, b) => a.ceiling - b.ceiling).slice(0, 8))
      row(
        constraint.limit,
        figure(constraint.capacity),
        figure(constraint.values[0]),
        figure(constraint.values[1]),
        whole(constraint.ceiling),
      );
    row(
      `largest item (\`${result.itemCeiling.key}\`), extrapolated to a ${deployedFreshnessSeconds} s freshness target`,
      '400 KB',
      `${(result.itemCeiling.bytes[0] / 1024).toFixed(1)} KB`,
      `${(result.itemCeiling.bytes[1] / 1024).toFixed(1)} KB`,
      whole(result.itemCeiling.ceiling),
    );
    const refused = result.phases[0].refused + result.phases[1].refused;
    const tooLarge = result.phases[0].tooLarge + result.phases[1].tooLarge;
    out.push(
      '',
      `requests not answered 202 in the measured windows: ${refused}; writes refused for an item over 400 KB: ${tooLarge}; ` +
        `commit triggers sent a second: ${figure(result.phases[0].triggers)} and ${figure(result.phases[1].triggers)}`,
      '',
    );
  }
  for (const result of results) {
    out.push(`ceiling, ${result.shape.name}: ${whole(result.ceiling)} requests/s (limited by ${result.limitedBy})`);
    const raised = result.withCommitters;
    if (raised)
      out.push(
        `ceiling, ${result.shape.name}, deployed with \`-c committerConcurrency=${raised.committers}\` (the committers it needs ` +
          `at its next limit): ${whole(raised.ceiling)} requests/s (limited by ${raised.limitedBy})`,
      );
  }
  out.push(
    '',
    'Account quotas AWS raises on request, and the scrape targets each source’s series need, at each shape’s ceiling:',
  );
  for (const result of results) {
    const lambda = [...result.concurrency].filter(([, value]) => value >= 0.05);
    const total = lambda.reduce((sum, [, value]) => sum + value, 0);
    out.push(
      `- ${result.shape.name}: API Gateway ${whole(result.ceiling)} requests/s; Lambda concurrency ${whole(total)} ` +
        `(${lambda.map(([entry, value]) => `${entry.replace(/^functions\//, '').replace(/\.ts$/, '')} ${figure(value)}`).join(', ')}); ` +
        (Number.isFinite(result.scrapeShards)
          ? `each source's series at GET /metrics?shards= in ${whole(result.scrapeShards)} shard${result.scrapeShards === 1 ? '' : 's'} (a scrape target each)`
          : `each source's series beyond GET /metrics?shards= (more than ${metricsShardCounts.at(-1)} shards; from the connections' stats instead)`),
    );
  }
  const largest = [...results.flatMap((result) => result.phases.map((phase) => phase.largestItem)), probe.largest].sort(
    (a, b) => b.bytes - a.bytes,
  )[0] ?? { bytes: 0, key: '' };
  out.push(
    '',
    `largest DynamoDB item written: ${Math.ceil(largest.bytes / 1024)} KB (\`${largest.key}\`, in local mode, the probe's commit of ` +
      `${probe.rows.toLocaleString('en')} rows included; writes refused for an item over 400 KB in it: ${probe.tooLarge})`,
    `largest DynamoDB item at each ceiling and the deployed freshness target: ${results
      .map((result) => `${result.shape.name} ${Math.ceil(result.sizeAtCeiling / 1024)} KB`)
      .join('; ')}`,
  );
  return out.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await benchScale();
  meter.print(`${report}\n`);
  process.exit(0);
}
