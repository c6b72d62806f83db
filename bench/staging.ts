/**
 * `npm run bench staging`: the shapes of traffic that a deployment-wide commit pass could not take,
 * each on a fresh local service started as `npm start` starts it, with the deployed 2 s writer window.
 *
 *   many tables   BENCH_STAGING_TABLES (10,000) connections of 10 tenants, one webhook each, sent
 *                 within one freshness window (TABLE_FRESHNESS_SECONDS 90): how long until every
 *                 table is committed, and whether every row is there once, none dead-lettered, no
 *                 commit failed.
 *   one table     BENCH_STAGING_ROWS (30,000) webhooks to one connection within one window: the same.
 *   freshness     a table property `tributary.freshness` of 2 s on 20 connections sent 20 requests/s
 *                 between them for BENCH_STAGING_SECONDS (60): from each 202 to the commit that holds
 *                 its row (the commit's own timestamp, read from the table's log), p50, p99 and max.
 *
 * Every shape reads back each table's files (the service's own files listing, then the Parquet) to
 * count rows by message id, and the service's /metrics for envelopes dead-lettered and commits failed.
 */
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { readParquet } from '#delta/parquet/parquet-files.ts';
import { localCredentials, localRegion } from '../local/stand-ins.ts';
import { type BenchService, startService } from './service.ts';
import { bodyWithId, percentile } from './zipf-traffic.ts';

interface Connection {
  sourceId: string;
  token: string;
  dataSetId: string;
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

/** `count` webhook connections spread over `tenants` tenants, each tenant with a store, made 8 at a time. */
async function createConnections(service: BenchService, count: number, tenants: number): Promise<Connection[]> {
  const tenantIds: string[] = [];
  for (let t = 0; t < tenants; t++) {
    const tenant = await api<{ tenant_id: string }>(service, 'POST', '/api/tenants', {
      name: `staging ${t} ${Date.now()}`,
    });
    await api(service, 'POST', `/api/tenants/${tenant.tenant_id}/register-object-store`, {
      name: 'staging',
      base_url: `s3://demo-bucket/staging-${tenant.tenant_id}`,
      options: { endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}` },
    });
    tenantIds.push(tenant.tenant_id);
  }
  const made: Connection[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const index = next++;
        const created = await api<{ source_id: string; ingest_token: string; data_set_id: string }>(
          service,
          'POST',
          `/api/tenants/${tenantIds[index % tenants]}/connections`,
          { type: 'Webhook', name: `sender ${index}` },
        );
        made[index] = { sourceId: created.source_id, token: created.ingest_token, dataSetId: created.data_set_id };
      }
    }),
  );
  return made;
}

interface Sent {
  requestId: string;
  connection: Connection;
  status: number;
  messageId: string | null;
  /** When the 202 arrived (Date.now, the clock the service's commits stamp themselves with). */
  answeredAt: number;
  latencyMs: number;
}

/** Sends one request per entry, `concurrency` at a time, each to its connection. */
async function send(
  service: BenchService,
  requests: { connection: Connection; sequence: number }[],
  concurrency: number,
): Promise<Sent[]> {
  const sent: Sent[] = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const index = next++;
        const { connection, sequence } = requests[index] as (typeof requests)[number];
        const requestId = crypto.randomUUID();
        const started = performance.now();
        const response = await fetch(`${service.url}/api/ingest/${connection.sourceId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${connection.token}`, 'content-type': 'application/json' },
          body: bodyWithId(requestId, sequence, 1024),
        });
        const answer = (await response.json().catch(() => ({}))) as { message_id?: string };
        sent[index] = {
          requestId,
          connection,
          status: response.status,
          messageId: answer.message_id ?? null,
          answeredAt: Date.now(),
          latencyMs: performance.now() - started,
        };
      }
    }),
  );
  return sent;
}

/** Sends at a steady rate, whatever the answers (an open loop), the connections in turn. */
async function sendAtRate(
  service: BenchService,
  connections: Connection[],
  perSecond: number,
  seconds: number,
): Promise<Sent[]> {
  const total = Math.round(perSecond * seconds);
  const started = performance.now();
  const pending: Promise<Sent[]>[] = [];
  for (let index = 0; index < total; index++) {
    const wait = (index * 1000) / perSecond - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      send(service, [{ connection: connections[index % connections.length] as Connection, sequence: index }], 1),
    );
  }
  return (await Promise.all(pending)).flat();
}

/** Reads a Prometheus counter's total from /metrics (summed over its labels). */
async function metric(service: BenchService, name: string): Promise<number> {
  const response = await fetch(`${service.url}/metrics`, { headers: { 'x-api-key': service.adminKey } });
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Rows per message id in a table, from its files as the service lists them. */
async function rowsOf(service: BenchService, dataSetId: string, into: Map<string, number>): Promise<number> {
  let files = 0;
  let cursor: string | null = null;
  do {
    const page: { files: { url: string }[]; next_cursor: string | null } = await api(
      service,
      'GET',
      `/api/data-sets/${dataSetId}/files?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    for (const file of page.files) {
      files++;
      const table = readParquet(new Uint8Array(await (await fetch(file.url)).arrayBuffer()));
      const ids = table.getChild('message_id');
      for (let i = 0; i < (ids?.length ?? 0); i++) {
        const id = String(ids?.get(i));
        into.set(id, (into.get(id) ?? 0) + 1);
      }
    }
    cursor = page.next_cursor;
  } while (cursor);
  return files;
}

/** Rows in a table, by its files listing (what `waitForRows` in the tests reads). */
async function rowCount(service: BenchService, dataSetId: string): Promise<number> {
  const page = await api<{ files: { num_records: number }[] }>(
    service,
    'GET',
    `/api/data-sets/${dataSetId}/files?limit=1000`,
  );
  return page.files.reduce((sum, file) => sum + file.num_records, 0);
}

/** Every table's rows read back, `concurrency` tables at a time. */
async function readBack(
  service: BenchService,
  dataSetIds: string[],
): Promise<{ rows: Map<string, number>; files: number }> {
  const rows = new Map<string, number>();
  let files = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < dataSetIds.length) files += await rowsOf(service, dataSetIds[next++] as string, rows);
    }),
  );
  return { rows, files };
}

/** What every shape reports of what the service kept: rows once, missing, twice, dead-lettered, failed commits. */
export type Verdict = Awaited<ReturnType<typeof verdict>>;

async function verdict(service: BenchService, sent: Sent[], dataSetIds: string[]) {
  const accepted = sent.filter((request) => request.status === 202 && request.messageId);
  const { rows, files } = await readBack(service, dataSetIds);
  return {
    requests: sent.length,
    accepted: accepted.length,
    once: accepted.filter((request) => rows.get(request.messageId as string) === 1).length,
    missing: accepted.filter((request) => !rows.has(request.messageId as string)).length,
    twice: [...rows.values()].filter((count) => count > 1).length,
    files,
    deadLettered: await metric(service, 'tributary_dead_lettered_total'),
    failedCommits: (service.output().match(/Staged commit failed/g) ?? []).length,
    latency: {
      p50: percentile(
        sent.map((s) => s.latencyMs),
        50,
      ),
      p99: percentile(
        sent.map((s) => s.latencyMs),
        99,
      ),
    },
  };
}

/** Waits until `done` says so, checking every `everyMs`; the seconds it took. */
async function until(done: () => Promise<boolean>, limitMs: number, everyMs = 2000): Promise<number> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > limitMs) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return (performance.now() - started) / 1000;
}

const window = { LOCAL_BATCH_WINDOW_SECONDS: '2' };

export async function benchManyTables(count = Number(process.env.BENCH_STAGING_TABLES ?? 10_000)) {
  const freshnessSeconds = 90;
  const service = await startService({ ...window, TABLE_FRESHNESS_SECONDS: String(freshnessSeconds) });
  try {
    const made = await createConnections(service, count, 10);
    const started = performance.now();
    const sent = await send(
      service,
      made.map((connection, sequence) => ({ connection, sequence })),
      32,
    );
    const sendSeconds = (performance.now() - started) / 1000;
    // Committed: as many envelopes written as were accepted (the service's own count, every table's commits
    // added up); every table's rows are read back after.
    const accepted = sent.filter((request) => request.status === 202).length;
    const committedAfter = await until(
      async () => (await metric(service, 'tributary_envelopes_written_total')) >= accepted,
      60 * 60_000,
      5000,
    );
    return {
      tables: count,
      freshnessSeconds,
      sendSeconds,
      sendRate: count / sendSeconds,
      committedSecondsAfterLastAnswer: committedAfter,
      ...(await verdict(
        service,
        sent,
        made.map((connection) => connection.dataSetId),
      )),
    };
  } finally {
    await service.stop();
  }
}

export async function benchOneTable(count = Number(process.env.BENCH_STAGING_ROWS ?? 30_000)) {
  const freshnessSeconds = 90;
  const service = await startService({ ...window, TABLE_FRESHNESS_SECONDS: String(freshnessSeconds) });
  try {
    const [connection] = (await createConnections(service, 1, 1)) as [Connection];
    const started = performance.now();
    const sent = await send(
      service,
      Array.from({ length: count }, (_, sequence) => ({ connection, sequence })),
      64,
    );
    const sendSeconds = (performance.now() - started) / 1000;
    const accepted = sent.filter((request) => request.status === 202).length;
    const committedAfter = await until(
      async () => (await rowCount(service, connection.dataSetId)) >= accepted,
      30 * 60_000,
    );
    const commits = (
      await api<{ runs: { rows: number }[] }>(service, 'GET', `/api/data-sets/${connection.dataSetId}/runs?limit=100`)
    ).runs.filter((run) => run.rows > 0);
    return {
      rows: count,
      freshnessSeconds,
      sendSeconds,
      sendRate: count / sendSeconds,
      committedSecondsAfterLastAnswer: committedAfter,
      commits: commits.length,
      largestCommitRows: Math.max(...commits.map((run) => run.rows)),
      ...(await verdict(service, sent, [connection.dataSetId])),
    };
  } finally {
    await service.stop();
  }
}

/** From each row's message id to the timestamp of the commit that holds it, read from the table's own log. */
async function commitTimes(service: BenchService, dataSetId: string, into: Map<string, number>): Promise<void> {
  const { storage_location: location } = await api<{ storage_location: string }>(
    service,
    'GET',
    `/api/data-sets/${dataSetId}`,
  );
  const [, bucket, root] = /^s3:\/\/([^/]+)\/(.+)$/.exec(location) ?? [];
  const s3 = new S3Client({
    endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}`,
    region: localRegion,
    credentials: localCredentials,
    forcePathStyle: true,
  });
  const get = async (key: string) =>
    Buffer.from(
      await ((await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToByteArray() ??
        new Uint8Array()),
    );
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${root}/_delta_log/`, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) {
      if (!object.Key || !/\d{20}\.json$/.test(object.Key)) continue;
      const actions = (await get(object.Key))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
      const info = actions.find((action) => action.commitInfo)?.commitInfo ?? {};
      const at = Number(info.inCommitTimestamp ?? info.timestamp);
      for (const action of actions.filter((each) => each.add)) {
        const table = readParquet(new Uint8Array(await get(`${root}/${decodeURIComponent(String(action.add?.path))}`)));
        const ids = table.getChild('message_id');
        for (let i = 0; i < (ids?.length ?? 0); i++) into.set(String(ids?.get(i)), at);
      }
    }
    token = page.NextContinuationToken;
  } while (token);
  s3.destroy();
}

export async function benchFreshness(seconds = Number(process.env.BENCH_STAGING_SECONDS ?? 60)) {
  const freshnessSeconds = 2;
  const perSecond = 20;
  const service = await startService({ ...window });
  try {
    const made = await createConnections(service, 20, 1);
    for (const connection of made)
      await api(service, 'PUT', `/api/data-sets/${connection.dataSetId}/table-properties`, {
        properties: { 'tributary.freshness': `${freshnessSeconds} seconds` },
      });
    const sent = await sendAtRate(service, made, perSecond, seconds);
    const accepted = sent.filter((request) => request.status === 202 && request.messageId);
    await until(async () => {
      let rows = 0;
      for (const connection of made) rows += await rowCount(service, connection.dataSetId);
      return rows >= accepted.length;
    }, 10 * 60_000);
    const committedAt = new Map<string, number>();
    let commits = 0;
    for (const connection of made) {
      await commitTimes(service, connection.dataSetId, committedAt);
      const runs = await api<{ runs: { rows: number }[] }>(
        service,
        'GET',
        `/api/data-sets/${connection.dataSetId}/runs?limit=100`,
      );
      commits += runs.runs.filter((run) => run.rows > 0).length;
    }
    const delays = accepted.map(
      (request) => (committedAt.get(request.messageId as string) ?? Number.POSITIVE_INFINITY) - request.answeredAt,
    );
    return {
      freshnessSeconds,
      perSecond,
      seconds,
      tables: made.length,
      commits,
      fromAnswerToCommit: {
        p50: percentile(delays, 50),
        p90: percentile(delays, 90),
        p99: percentile(delays, 99),
        max: Math.max(...delays),
      },
      ...(await verdict(
        service,
        sent,
        made.map((connection) => connection.dataSetId),
      )),
    };
  } finally {
    await service.stop();
  }
}
