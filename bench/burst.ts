/**
 * `npm run bench burst`: the acceptance check for a burst of new connections, through the real local
 * service as `npm start` runs it (fresh DATA_DIR, the deployed writer window, TABLE_FRESHNESS_SECONDS
 * set to the target): BENCH_BURST_SOURCES (10,000) webhook connections over BENCH_BURST_TENANTS (10)
 * tenants each send their first webhook, BENCH_BURST_SENDERS (32) senders at a time, with a freshness
 * target of BENCH_BURST_FRESHNESS_SECONDS (120). It passes when every request is answered 202, every
 * table is committed once within 15 minutes past its freshness window (its 202 + the target), holds
 * its one row exactly once, nothing is dead-lettered and the service logs no error.
 *
 * The connections are made through the API before the burst (BENCH_BURST_SETUP_CONCURRENCY, 8, at a
 * time) and that time is reported apart. The verdict reads what an outside reader would: each
 * table's `_delta_log/` from the local S3 (when each commit was made, by its commitInfo timestamp,
 * and which files it added), then the live Parquet files through DuckDB, never through Tributary's
 * own reader; the dead-letter queues' depths from the local SQS; error lines from the service's log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DuckDBInstance } from '@duckdb/node-api';
import { consumers, queues } from '#shared/topology.ts';
import { localCredentials, localRegion } from '../local/stand-ins.ts';
import { type BenchService, startService } from './service.ts';
import { bodyWithId, percentile } from './zipf-traffic.ts';

const sources = Number(process.env.BENCH_BURST_SOURCES ?? 10_000);
const tenants = Number(process.env.BENCH_BURST_TENANTS ?? 10);
const senders = Number(process.env.BENCH_BURST_SENDERS ?? 32);
const freshnessSeconds = Number(process.env.BENCH_BURST_FRESHNESS_SECONDS ?? 120);
const setupConcurrency = Number(process.env.BENCH_BURST_SETUP_CONCURRENCY ?? 8);
/** How long past its freshness window a table may wait for its commit. */
const graceSeconds = 15 * 60;

const progress = (text: string) => process.stderr.write(`[burst ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Connection {
  tenantId: string;
  sourceId: string;
  token: string;
  dataSetId: string;
}

interface Sent {
  connection: Connection;
  requestId: string;
  status: number;
  code: string | null;
  messageId: string | null;
  /** Date.now when the answer arrived: the clock the service stamps its commits with. */
  answeredAt: number;
  latencyMs: number;
}

/** What one table's log and files hold. */
interface TableState {
  /** commitInfo timestamps of the versions that added files. */
  dataCommits: number[];
  versions: number;
  /** Keys of the live Parquet files in the bucket. */
  liveFiles: string[];
  bucket: string;
  location: string;
}

async function api<T>(service: BenchService, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { 'x-api-key': service.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/** Runs `work` over every index, `concurrency` at a time. */
async function pool(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** The tenants, each with a store of its own, and the connections spread over them in turn. */
async function createConnections(service: BenchService): Promise<Connection[]> {
  const tenantIds: string[] = [];
  for (let t = 0; t < tenants; t++) {
    const tenant = await api<{ tenant_id: string }>(service, 'POST', '/api/tenants', { name: `burst ${t}` });
    await api(service, 'POST', `/api/tenants/${tenant.tenant_id}/register-object-store`, {
      name: 'burst',
      base_url: `s3://demo-bucket/burst-${tenant.tenant_id}`,
      options: { endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}` },
    });
    tenantIds.push(tenant.tenant_id);
  }
  const made: Connection[] = new Array(sources);
  await pool(sources, setupConcurrency, async (index) => {
    const tenantId = tenantIds[index % tenants] as string;
    const created = await api<{ source_id: string; ingest_token: string; data_set_id: string }>(
      service,
      'POST',
      `/api/tenants/${tenantId}/connections`,
      { type: 'Webhook', name: `burst ${index}` },
    );
    made[index] = {
      tenantId,
      sourceId: created.source_id,
      token: created.ingest_token,
      dataSetId: created.data_set_id,
    };
    if ((index + 1) % 1000 === 0) progress(`${index + 1} connections made`);
  });
  return made;
}

/** Each connection's first webhook, `senders` requests in flight at a time (each sender sends its next on an answer). */
async function burst(service: BenchService, connections: Connection[]): Promise<Sent[]> {
  const sent: Sent[] = new Array(connections.length);
  await pool(connections.length, senders, async (index) => {
    const connection = connections[index] as Connection;
    const requestId = crypto.randomUUID();
    const started = performance.now();
    let status = 0;
    let answer: { message_id?: string; code?: string } = {};
    try {
      const response = await fetch(`${service.url}/api/ingest/${connection.sourceId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${connection.token}`, 'content-type': 'application/json' },
        body: bodyWithId(requestId, index, 1024),
      });
      status = response.status;
      answer = (await response.json().catch(() => ({}))) as typeof answer;
    } catch (error) {
      answer = { code: (error as { cause?: { code?: string } }).cause?.code ?? String(error) };
    }
    sent[index] = {
      connection,
      requestId,
      status,
      code: status === 202 ? null : (answer.code ?? 'UNKNOWN'),
      messageId: answer.message_id ?? null,
      answeredAt: Date.now(),
      latencyMs: performance.now() - started,
    };
  });
  return sent;
}

/**
 * A platform series' value from /metrics (summed over its labels): the platform's partitions, a few
 * items however many of the burst's sources moved.
 */
async function metric(service: BenchService, name: string): Promise<number> {
  const response = await fetch(`${service.url}/metrics`, {
    headers: { 'x-api-key': service.adminKey },
  });
  if (!response.ok) throw new Error(`GET /metrics: ${response.status}`);
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** A table's log replayed (adds minus removes) from the local S3; null while it has no version. */
async function readLog(s3: S3Client, location: string): Promise<TableState | null> {
  const [, bucket, root] = /^s3:\/\/([^/]+)\/(.+)$/.exec(location) ?? [];
  if (!bucket || !root) throw new Error(`Not an s3 location: ${location}`);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${root}/_delta_log/`, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? [])
      if (object.Key && /\/\d{20}\.json$/.test(object.Key)) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  if (keys.length === 0) return null;
  const live = new Set<string>();
  const dataCommits: number[] = [];
  for (const key of keys.sort()) {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const actions = Buffer.from((await object.Body?.transformToByteArray()) ?? new Uint8Array())
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
    const info = actions.find((action) => action.commitInfo)?.commitInfo ?? {};
    const adds = actions.filter((action) => action.add).map((action) => String(action.add?.path));
    if (adds.length > 0) dataCommits.push(Number(info.inCommitTimestamp ?? info.timestamp));
    for (const added of adds) live.add(added);
    for (const action of actions) if (action.remove) live.delete(String(action.remove.path));
  }
  return {
    dataCommits,
    versions: keys.length,
    liveFiles: [...live].map((file) => `${root}/${decodeURIComponent(file)}`),
    bucket,
    location,
  };
}

/**
 * Reads the logs of the tables not yet seen committed, until every one is or `deadline` (Date.now)
 * passes; `into` keeps each table's state by data set id.
 */
async function waitForCommits(
  service: BenchService,
  s3: S3Client,
  dataSetIds: string[],
  accepted: number,
  deadline: number,
  into: Map<string, TableState>,
): Promise<void> {
  // The service's own count first, cheaply: the logs are read once it says every table is committed
  // (each table holds one row, so one commit each; commits are a platform series, in shard 0).
  for (;;) {
    const commits = await metric(service, 'tributary_batches_committed_total').catch(() => null);
    progress(`${commits ?? 'unknown (GET /metrics failed)'} of ${accepted} tables committed`);
    if (Date.now() >= deadline || (commits !== null && commits >= accepted)) break;
    await sleep(Math.min(15_000, Math.max(0, deadline - Date.now())));
  }
  const locations = new Map<string, string>();
  for (;;) {
    const waiting = dataSetIds.filter((id) => (into.get(id)?.dataCommits.length ?? 0) === 0);
    await pool(waiting.length, 8, async (index) => {
      const id = waiting[index] as string;
      if (!locations.has(id)) {
        const dataSet = await api<{ storage_location: string | null }>(service, 'GET', `/api/data-sets/${id}`);
        if (!dataSet.storage_location) return;
        locations.set(id, dataSet.storage_location);
      }
      const state = await readLog(s3, locations.get(id) as string);
      if (state) into.set(id, state);
    });
    const left = dataSetIds.filter((id) => (into.get(id)?.dataCommits.length ?? 0) === 0).length;
    progress(`tables read from their logs: ${dataSetIds.length - left} of ${dataSetIds.length} committed`);
    if (left === 0 || Date.now() >= deadline) return;
    await sleep(Math.min(15_000, Math.max(0, deadline - Date.now())));
  }
}

/** Every live file of the tables read by DuckDB: per data set id, the rows' message ids and request ids. */
async function readRows(
  s3: S3Client,
  tables: Map<string, TableState>,
): Promise<Map<string, { messageId: string; requestId: string | null }[]>> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'burst-read-'));
  const files: { file: string; dataSetId: string }[] = [];
  const entries = [...tables].flatMap(([dataSetId, state]) =>
    state.liveFiles.map((key) => ({ dataSetId, key, bucket: state.bucket })),
  );
  await pool(entries.length, 8, async (index) => {
    const { dataSetId, key, bucket } = entries[index] as (typeof entries)[number];
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const file = path.join(directory, `${index}.parquet`);
    writeFileSync(file, (await object.Body?.transformToByteArray()) ?? new Uint8Array());
    files[index] = { file, dataSetId };
  });
  const byFile = new Map(files.map((entry) => [entry.file, entry.dataSetId]));
  const rows = new Map<string, { messageId: string; requestId: string | null }[]>();
  const duck = await DuckDBInstance.create(':memory:');
  const connection = await duck.connect();
  try {
    for (let start = 0; start < files.length; start += 500) {
      const list = files
        .slice(start, start + 500)
        .map((entry) => `'${entry.file}'`)
        .join(', ');
      const read = await connection.runAndReadAll(
        `SELECT filename, message_id, json_extract_string(decode(from_base64(payload)), '$.request_id') AS request_id
         FROM read_parquet([${list}], filename = true)`,
      );
      for (const row of read.getRowObjectsJson()) {
        const dataSetId = byFile.get(String(row.filename)) as string;
        const held = rows.get(dataSetId) ?? [];
        held.push({
          messageId: String(row.message_id),
          requestId: row.request_id === null ? null : String(row.request_id),
        });
        rows.set(dataSetId, held);
      }
    }
  } finally {
    connection.closeSync();
    duck.closeSync();
    rmSync(directory, { recursive: true, force: true });
  }
  return rows;
}

/** Messages waiting (visible or in flight) in every dead-letter queue, by queue name. */
async function deadLetterDepths(sqs: SQSClient): Promise<Record<string, number>> {
  const depths: Record<string, number> = {};
  for (const spec of Object.values(queues).filter((queue) => !queue.deadLetter)) {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: spec.name }));
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    depths[spec.name] =
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  }
  return depths;
}

/** Warning-level lines of the service's log, grouped by message (JSON lines at WARN). */
export function warningLines(output: string): Record<string, number> {
  const grouped: Record<string, number> = {};
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: string; message?: string };
      if (String(entry.level).toUpperCase() === 'WARN') {
        const message = String(entry.message ?? line);
        grouped[message] = (grouped[message] ?? 0) + 1;
      }
    } catch {
      // Not a log entry.
    }
  }
  return grouped;
}

/** Error-level lines of the service's log, grouped by message: JSON lines at ERROR or above, and any other line naming an error. */
export function errorLines(output: string): Record<string, number> {
  const grouped: Record<string, number> = {};
  for (const line of output.split('\n')) {
    let message: string | null = null;
    try {
      const entry = JSON.parse(line) as {
        level?: string;
        message?: string;
        function_name?: string;
        error?: { name?: string; message?: string };
      };
      if (['ERROR', 'CRITICAL', 'FATAL'].includes(String(entry.level).toUpperCase())) {
        // Which function, and what it met: an error line alone says too little to follow.
        const where = [entry.function_name, entry.error && `${entry.error.name}: ${entry.error.message}`]
          .filter(Boolean)
          .join(', ');
        message = `${String(entry.message ?? line)}${where ? ` (${where.slice(0, 300)})` : ''}`;
      }
    } catch {
      if (/\berror\b/i.test(line)) message = line.trim().slice(0, 200);
    }
    if (message !== null) grouped[message] = (grouped[message] ?? 0) + 1;
  }
  return grouped;
}

export type BurstResult = Awaited<ReturnType<typeof benchBurst>>;

export async function benchBurst() {
  const batchWindowSeconds = consumers['ingest-writer'].maxBatchingWindowSeconds;
  const service = await startService({
    LOCAL_BATCH_WINDOW_SECONDS: String(batchWindowSeconds),
    TABLE_FRESHNESS_SECONDS: String(freshnessSeconds),
  });
  const stand = { region: localRegion, credentials: localCredentials };
  const s3 = new S3Client({
    ...stand,
    endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}`,
    forcePathStyle: true,
  });
  const sqs = new SQSClient({ ...stand, endpoint: `http://127.0.0.1:${service.env.LOCAL_SQS_PORT}` });
  try {
    const setupStarted = performance.now();
    const connections = await createConnections(service);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    progress(`setup: ${sources} connections over ${tenants} tenants in ${setupSeconds.toFixed(0)} s`);
    const logBeforeBurst = service.output().length;
    const loadBefore = os.loadavg();

    const firstSentAt = Date.now();
    const sent = await burst(service, connections);
    const burstSeconds = (Date.now() - firstSentAt) / 1000;
    const lastAnsweredAt = Math.max(...sent.map((request) => request.answeredAt));
    const loadAfterBurst = os.loadavg();
    const accepted = sent.filter((request) => request.status === 202 && request.messageId);
    progress(`burst: ${sent.length} requests in ${burstSeconds.toFixed(1)} s, ${accepted.length} answered 202`);

    // Every table's window: its 202 plus the target; it may take 15 minutes past that.
    const deadline = lastAnsweredAt + (freshnessSeconds + graceSeconds) * 1000;
    const tables = new Map<string, TableState>();
    await waitForCommits(
      service,
      s3,
      connections.map((connection) => connection.dataSetId),
      accepted.length,
      deadline,
      tables,
    );
    const waitedUntil = Date.now();
    // Every log read once more now the wait is over: a table committed a second time meanwhile shows here.
    const ids = [...tables.keys()];
    await pool(ids.length, 8, async (index) => {
      const id = ids[index] as string;
      const state = await readLog(s3, (tables.get(id) as TableState).location);
      if (state) tables.set(id, state);
    });
    const rows = await readRows(s3, tables);

    const latencies = sent.map((request) => request.latencyMs);
    const answers: Record<string, number> = {};
    for (const request of sent) {
      const key = request.status === 202 ? '202' : `${request.status || 'no answer'} ${request.code}`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
    const committedTimes = [...tables.values()].flatMap((state) => state.dataCommits.slice(0, 1));
    // Each table against its own window: from its 202, the target and then the 15 minutes.
    const inTime = sent.filter((request) => {
      const first = tables.get(request.connection.dataSetId)?.dataCommits[0];
      return first !== undefined && first <= request.answeredAt + (freshnessSeconds + graceSeconds) * 1000;
    }).length;
    const commitDelays = sent
      .map((request) => (tables.get(request.connection.dataSetId)?.dataCommits[0] ?? Number.NaN) - request.answeredAt)
      .filter((delay) => !Number.isNaN(delay));
    const exactlyOnce = sent.filter((request) => {
      const held = rows.get(request.connection.dataSetId) ?? [];
      return (
        request.status === 202 &&
        held.length === 1 &&
        held[0]?.messageId === request.messageId &&
        held[0]?.requestId === request.requestId
      );
    }).length;
    const output = service.output();
    return {
      sources,
      tenants,
      senders,
      freshnessSeconds,
      graceSeconds,
      batchWindowSeconds,
      setupSeconds,
      burstSeconds,
      loadBefore,
      loadAfterBurst,
      requests: sent.length,
      answers,
      accepted: accepted.length,
      latency: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
      },
      committed: committedTimes.length,
      /** From the first send to the last table's first commit, when every table was committed. */
      allCommittedSeconds:
        committedTimes.length === sources ? (Math.max(...committedTimes) - firstSentAt) / 1000 : Number.NaN,
      committedInTime: inTime,
      waitedSeconds: (waitedUntil - firstSentAt) / 1000,
      commitDelay: { p50: percentile(commitDelays, 50), max: Math.max(...commitDelays) },
      committedOnce: [...tables.values()].filter((state) => state.dataCommits.length === 1).length,
      committedMoreThanOnce: [...tables.values()].filter((state) => state.dataCommits.length > 1).length,
      exactlyOnce,
      tablesWithOtherRows: [...rows.values()].filter((held) => held.length !== 1).length,
      deadLetterDepths: await deadLetterDepths(sqs),
      deadLettered: await metric(service, 'tributary_dead_lettered_total'),
      errors: errorLines(output),
      errorsSinceBurst: errorLines(output.slice(logBeforeBurst)),
      /** Not a condition: what the service warned of (slow dependencies, deferred writes cut short). */
      warningsSinceBurst: warningLines(output.slice(logBeforeBurst)),
    };
  } finally {
    s3.destroy();
    sqs.destroy();
    await service.stop();
  }
}
