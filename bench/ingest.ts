/**
 * Ingest throughput through the local HTTP front (1 KB bodies, 50 connections) beside a bare
 * node:http server answering 202, measured in the same run; the ingest handler's own CPU time per
 * request; freshness, from a 202 to the row appearing in the data set's files; and the cost of
 * durability: the SQS stand-in's journal alone, every send flushed to disk before it is answered.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import autocannon from 'autocannon';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { readParquet } from '#delta/parquet/parquet-files.ts';
import { QueueService } from '../local/sqs/queues.ts';
import { cpuPerRequest, cpuSnapshot } from './process-cpu.ts';
import { createWebhook, startService } from './service.ts';

const durationSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
const body = JSON.stringify({ event: 'push', padding: 'x'.repeat(1000) }).slice(0, 1024);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Load> {
  const result = await autocannon({ url, method: 'POST', connections, duration: durationSeconds, headers, body });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    accepted: result['2xx'],
    non2xx: result.non2xx,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function committedRows(service: { url: string; adminKey: string }, dataSetId: string): Promise<number> {
  const response = await fetch(`${service.url}/api/data-sets/${dataSetId}/files`, {
    headers: { 'x-api-key': service.adminKey },
  });
  const listing = (await response.json()) as { files?: { num_records: number }[] };
  return (listing.files ?? []).reduce((sum, file) => sum + file.num_records, 0);
}

/** Rows staged and not committed yet, as the connection's stats show them (read from its table's staging records). */
async function stagedRows(service: { url: string; adminKey: string }, connectionId: string): Promise<number> {
  const response = await fetch(`${service.url}/api/connections/${connectionId}/stats`, {
    headers: { 'x-api-key': service.adminKey },
  });
  return ((await response.json()) as { staged_rows?: number }).staged_rows ?? 0;
}

/**
 * The whole service under load (a warm-up and a measured run, 50 connections each), and how fast
 * the writer takes in what the front accepts: `rowsNow` counts what it has done with them (rows
 * committed, or staged). Rows/s end to end is over the load and the drain after it.
 */
async function writerUnderLoad(
  service: Awaited<ReturnType<typeof startService>>,
  hook: { sourceId: string; token: string },
  rowsNow: () => Promise<number>,
) {
  const url = `${service.url}/api/ingest/${hook.sourceId}`;
  const headers = { authorization: `Bearer ${hook.token}`, 'content-type': 'application/json' };
  const loadStarted = performance.now();
  const warmUp = await load(url, headers);
  const { load: measured, cpu } = await measuredLoad(service, url, headers);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const accepted = warmUp.accepted + measured.accepted;
  // How far behind the writer was when the senders stopped: what it still had to take in.
  const behindAtEnd = accepted - (await rowsNow());
  // Every envelope answered 202 must be taken in: wait for it (or give up after 5 quiet seconds).
  let rows = -1;
  let lastChange = performance.now();
  while (rows < accepted && performance.now() - lastChange < 5000) {
    const now = await rowsNow();
    if (now !== rows) {
      rows = now;
      lastChange = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    load: measured,
    cpu,
    accepted,
    rows,
    acceptedPerSecond: accepted / loadSeconds,
    rowsPerSecond: rows / ((lastChange - loadStarted) / 1000),
    loadSeconds,
    drainSeconds: (lastChange - loadStarted) / 1000 - loadSeconds,
    behindAtEnd,
  };
}

/** A measured run, with its CPU per request for each part of the service and for the load generator (this process). */
async function measuredLoad(service: { child: { pid?: number } }, url: string, headers: Record<string, string>) {
  const root = service.child.pid as number;
  const before = cpuSnapshot(root);
  const ownBefore = process.cpuUsage();
  const measured = await load(url, headers);
  const own = process.cpuUsage(ownBefore);
  const cpu = cpuPerRequest(before, cpuSnapshot(root), measured.accepted);
  cpu.push(['load generator (autocannon)', (own.user + own.system) / measured.accepted]);
  return { load: measured, cpu };
}

/** Reads every file of the table and counts distinct message ids: equal to the rows when nothing was duplicated. */
async function distinctMessageIds(service: { url: string; adminKey: string }, dataSetId: string): Promise<number> {
  const response = await fetch(`${service.url}/api/data-sets/${dataSetId}/files`, {
    headers: { 'x-api-key': service.adminKey },
  });
  const listing = (await response.json()) as { files?: { url: string }[] };
  const ids = new Set<string>();
  for (const file of listing.files ?? []) {
    const column = readParquet(new Uint8Array(await (await fetch(file.url)).arrayBuffer())).getChild('message_id');
    for (let i = 0; i < (column?.length ?? 0); i++) ids.add(String(column?.get(i)));
  }
  return ids.size;
}

/** Freshness on an idle service: 20 requests a second for 10 seconds, then when each row first shows. */
async function freshness(service: Awaited<ReturnType<typeof startService>>) {
  const hook = await createWebhook(service);
  const acceptedAt = new Map<string, number>();
  const seenAt = new Map<string, number>();
  const seenFiles = new Set<string>();
  let sending = true;
  const poller = (async () => {
    const deadline = Date.now() + 60_000;
    while ((sending || seenAt.size < acceptedAt.size) && Date.now() < deadline) {
      const response = await fetch(`${service.url}/api/data-sets/${hook.dataSetId}/files`, {
        headers: { 'x-api-key': service.adminKey },
      });
      const listing = (await response.json()) as { files?: { path: string; url: string }[] };
      const now = performance.now();
      for (const file of listing.files ?? []) {
        if (seenFiles.has(file.path)) continue;
        seenFiles.add(file.path);
        const bytes = new Uint8Array(await (await fetch(file.url)).arrayBuffer());
        const ids = readParquet(bytes).getChild('message_id');
        for (let i = 0; i < (ids?.length ?? 0); i++) seenAt.set(String(ids?.get(i)), now);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  for (let i = 0; i < 200; i++) {
    const sent = performance.now();
    const response = await fetch(`${service.url}/api/ingest/${hook.sourceId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hook.token}` },
      body: JSON.stringify({ i }),
    });
    const accepted = (await response.json()) as { message_id: string };
    acceptedAt.set(accepted.message_id, performance.now());
    const pause = 50 - (performance.now() - sent);
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  sending = false;
  await poller;
  const delays = [...acceptedAt].map(([id, at]) => (seenAt.get(id) ?? Number.NaN) - at);
  return { p50: percentile(delays, 50), p99: percentile(delays, 99), missing: delays.filter(Number.isNaN).length };
}

/** The ingest handler's CPU per request: the same module, invoked in this process against the same stand-ins. */
async function handlerCpu(
  service: Awaited<ReturnType<typeof startService>>,
  hook: { sourceId: string; token: string },
) {
  const endpoints = {
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${service.env.LOCAL_DYNAMODB_PORT}`,
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}`,
    AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${service.env.LOCAL_SQS_PORT}`,
  };
  const sqs = new SQSClient({
    endpoint: endpoints.AWS_ENDPOINT_URL_SQS,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  Object.assign(process.env, endpoints, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    TABLE_NAME: 'tributary',
    PLATFORM_BUCKET: 'tributary-platform',
    S3_FORCE_PATH_STYLE: 'true',
    INGEST_QUEUE_URL: (await sqs.send(new GetQueueUrlCommand({ QueueName: 'ingest' }))).QueueUrl,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
  sqs.destroy();
  const { handler } = await import('#functions/ingest/accept.ts');
  const event = () =>
    ({
      version: '2.0',
      routeKey: 'POST /api/ingest/{source_id}',
      rawPath: `/api/ingest/${hook.sourceId}`,
      rawQueryString: '',
      headers: {
        authorization: `Bearer ${hook.token}`,
        'content-type': 'application/json',
        host: `127.0.0.1:${service.env.PORT}`,
      },
      pathParameters: { source_id: hook.sourceId },
      requestContext: {
        requestId: 'bench',
        domainName: `127.0.0.1:${service.env.PORT}`,
        http: { method: 'POST', path: '/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      },
      body,
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;
  const context = {
    awsRequestId: 'bench',
    functionName: 'ingest',
    getRemainingTimeInMillis: () => 10_000,
  } as unknown as Context;
  // Measured only once it answers as it does behind the front: an error's path is another handler's cost.
  for (let i = 0; i < 200; i++) {
    const answer = (await handler(event(), context)) as { statusCode?: number; body?: string };
    if (answer.statusCode !== 202) throw new Error(`The ingest handler answered ${answer.statusCode}: ${answer.body}`);
  }
  const invocations = 2000;
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  for (let i = 0; i < invocations; i++) await handler(event(), context);
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuMicros: (cpu.user + cpu.system) / invocations, wallMs: (performance.now() - wallBefore) / invocations };
}

export async function benchIngest() {
  const bare = fork(path.join(import.meta.dirname, 'bare-server.ts'), [], { execArgv: ['--import', 'tsx'] });
  const barePort = await new Promise<number>((resolve) =>
    bare.once('message', (message: { port: number }) => resolve(message.port)),
  );
  const headersFor = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  await load(`http://127.0.0.1:${barePort}/`, headersFor('x')); // warm-up, discarded
  const bareLoad = await load(`http://127.0.0.1:${barePort}/`, headersFor('x'));
  bare.kill();

  // The whole service, as npm start runs it: the writer shares the machine with the front. Tables
  // are committed as soon as their envelopes are staged (a freshness target of 0), so that rows
  // committed end to end measure the writer's whole work, staging and commits: its heaviest load.
  const service = await startService({ TABLE_FRESHNESS_SECONDS: '0' });
  let committed: Awaited<ReturnType<typeof writerUnderLoad>>;
  let distinct: number;
  let fresh: Awaited<ReturnType<typeof freshness>>;
  let cpu: Awaited<ReturnType<typeof handlerCpu>>;
  try {
    fresh = await freshness(service);
    const hook = await createWebhook(service);
    committed = await writerUnderLoad(service, hook, () => committedRows(service, hook.dataSetId));
    distinct = await distinctMessageIds(service, hook.dataSetId);
    cpu = await handlerCpu(service, hook);
  } finally {
    await service.stop();
  }

  // The same at the default freshness target, as npm start runs by default: the writer stages each
  // batch (safe, listed as pending) and leaves the commits to the table-commits schedule.
  const defaults = await startService();
  let staged: Awaited<ReturnType<typeof writerUnderLoad>>;
  try {
    const hook = await createWebhook(defaults);
    staged = await writerUnderLoad(defaults, hook, () => stagedRows(defaults, hook.connectionId));
  } finally {
    await defaults.stop();
  }
  return {
    bare: bareLoad,
    ingest: committed.load,
    freshness: fresh,
    handler: cpu,
    writer: { ...committed, distinct },
    staging: staged,
  };
}

/** The front alone (consumers paused): what ingest costs without the writer competing for the CPU. */
export async function benchIngestFrontOnly() {
  const service = await startService({ LOCAL_POLLERS_PER_CONSUMER: '0' });
  try {
    const hook = await createWebhook(service);
    const url = `${service.url}/api/ingest/${hook.sourceId}`;
    const headers = { authorization: `Bearer ${hook.token}`, 'content-type': 'application/json' };
    await load(url, headers);
    return await measuredLoad(service, url, headers);
  } finally {
    await service.stop();
  }
}

/**
 * The SQS stand-in's journal on its own, in this process: 50 senders each sending one 1 KB message
 * after another, every send answered only once it is on disk. Shows how many sends share a disk
 * flush (group commit) and what a send waits for.
 */
export async function benchQueueJournal() {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-journal-'));
  const { service } = await QueueService.open({ directory });
  try {
    await service.createQueue('bench', {});
    const message = JSON.stringify({ v: 1, payload: Buffer.from(body).toString('base64') });
    const latencies: number[] = [];
    const flushesBefore = service.journalFlushes();
    const until = performance.now() + (durationSeconds * 1000) / 2;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await service.send('bench', [{ body: message }]);
          latencies.push(performance.now() - started);
        }
      }),
    );
    const flushes = service.journalFlushes() - flushesBefore;
    return {
      sendsPerSecond: latencies.length / (durationSeconds / 2),
      sendsPerFlush: latencies.length / flushes,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    await service.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
