/**
 * `npm run bench zipf`: many connections at a modest rate, the way a team's webhooks arrive. A fresh
 * local service, as `npm start` runs it, with the deployed batching window (BENCH_ZIPF_WINDOW_SECONDS
 * to change it) and freshness target (TABLE_FRESHNESS_SECONDS); BENCH_ZIPF_CONNECTIONS (1,000)
 * webhook connections; BENCH_ZIPF_RATE (20) requests a second spread over them by Zipf(1.0)
 * (bench/zipf-traffic.ts), 1 KB bodies, for BENCH_ZIPF_SECONDS (120).
 *
 * It reports the latency senders saw and every answer that was not 202; how soon an accepted event
 * is listed by the events endpoint (one 202 in 100 is looked up by its message id until it is);
 * once every table is committed (a freshness target after the traffic), the files and
 * rows per file the commits made; and, reading every table's files, whether each 202 is stored
 * exactly once and whether any request answered otherwise was stored all the same (which its
 * sender, retrying, would have stored twice).
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readParquet } from '#delta/parquet/parquet-files.ts';
import { defaultFreshnessSeconds } from '#shared/config.ts';
import { consumers } from '#shared/topology.ts';
import { type BenchService, startService } from './service.ts';
import { percentile, type Sender, type SentRequest, sendZipfTraffic } from './zipf-traffic.ts';

const connections = Number(process.env.BENCH_ZIPF_CONNECTIONS ?? 1000);
const requestsPerSecond = Number(process.env.BENCH_ZIPF_RATE ?? 20);
const seconds = Number(process.env.BENCH_ZIPF_SECONDS ?? 120);
/** The writer's batching window: the deployed one unless BENCH_ZIPF_WINDOW_SECONDS says otherwise. */
const batchWindowSeconds = Number(
  process.env.BENCH_ZIPF_WINDOW_SECONDS ?? consumers['ingest-writer'].maxBatchingWindowSeconds,
);
/** Every this many 202s, the events endpoint is asked for the event until it lists it. */
const probeEvery = 100;

interface Connection extends Sender {
  dataSetId: string;
  connectionId: string;
}

/** From a 202 until the events endpoint lists the event (pending or committed), in ms. */
async function listedAfter(service: BenchService, connection: Connection, messageId: string): Promise<number> {
  const from = performance.now();
  const deadline = from + 120_000;
  while (performance.now() < deadline) {
    // As a client pages: a lookup that ran out of its budget hands on a cursor.
    let cursor: string | null = null;
    do {
      const page: { events: { message_id: string }[]; next_cursor: string | null } = await api(
        service,
        'GET',
        `/api/connections/${connection.connectionId}/events?message_id=${messageId}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      if (page.events.some((event) => event.message_id === messageId)) return performance.now() - from;
      cursor = page.next_cursor;
    } while (cursor);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return Number.POSITIVE_INFINITY;
}

async function api<T>(service: BenchService, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { 'x-api-key': service.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** One tenant with a store and `count` webhook connections, made a few at a time. */
async function createConnections(service: BenchService, count: number): Promise<Connection[]> {
  const tenant = await api<{ tenant_id: string }>(service, 'POST', '/api/tenants', { name: `zipf ${Date.now()}` });
  await api(service, 'POST', `/api/tenants/${tenant.tenant_id}/register-object-store`, {
    name: 'zipf',
    base_url: `s3://demo-bucket/zipf-${tenant.tenant_id}`,
    options: { endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}` },
  });
  const made: Connection[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const index = next++;
        const created = await api<{
          source_id: string;
          ingest_token: string;
          data_set_id: string;
          connection_id: string;
        }>(service, 'POST', `/api/tenants/${tenant.tenant_id}/connections`, {
          type: 'Webhook',
          name: `sender ${index}`,
        });
        made[index] = {
          sourceId: created.source_id,
          token: created.ingest_token,
          dataSetId: created.data_set_id,
          connectionId: created.connection_id,
        };
      }
    }),
  );
  return made;
}

async function ingestQueueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

/** The request ids stored in a connection's table, with how many rows each has. */
async function storedRequestIds(service: BenchService, dataSetId: string, into: Map<string, number>): Promise<number> {
  const listing = await api<{ files: { url: string }[] }>(service, 'GET', `/api/data-sets/${dataSetId}/files`);
  for (const file of listing.files) {
    const table = readParquet(new Uint8Array(await (await fetch(file.url)).arrayBuffer()));
    const payloads = table.getChild('payload');
    for (let i = 0; i < (payloads?.length ?? 0); i++) {
      const body = JSON.parse(Buffer.from(String(payloads?.get(i)), 'base64').toString('utf8')) as {
        request_id: string;
      };
      into.set(body.request_id, (into.get(body.request_id) ?? 0) + 1);
    }
  }
  return listing.files.length;
}

const freshnessSeconds = Number(process.env.TABLE_FRESHNESS_SECONDS ?? defaultFreshnessSeconds);

export async function benchZipf() {
  const service = await startService({
    LOCAL_BATCH_WINDOW_SECONDS: String(batchWindowSeconds),
    TABLE_FRESHNESS_SECONDS: String(freshnessSeconds),
  });
  const sqs = new SQSClient({
    endpoint: `http://127.0.0.1:${service.env.LOCAL_SQS_PORT}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  try {
    const made = await createConnections(service, connections);
    const probes: Promise<number>[] = [];
    let answered = 0;
    const sent = await sendZipfTraffic({
      url: service.url,
      senders: made,
      requestsPerSecond,
      seconds,
      bodyBytes: 1024,
      exponent: 1,
      onAnswer: (request) => {
        if (request.status !== 202 || !request.messageId || answered++ % probeEvery !== 0) return;
        probes.push(listedAfter(service, made[request.sender] as Connection, request.messageId));
      },
    });
    const lastAnswered = performance.now();
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ingest' }));
    const drainDeadline = Date.now() + 15 * 60_000;
    while ((await ingestQueueDepth(sqs, QueueUrl as string)) > 0 && Date.now() < drainDeadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    const drainSeconds = (performance.now() - lastAnswered) / 1000;
    const listed = await Promise.all(probes);
    // Every table is committed once its oldest staged envelope is a freshness target old, by the
    // commit trigger the writer sent it.
    const commitSeconds = freshnessSeconds + 20;
    const waitMs = lastAnswered + commitSeconds * 1000 - performance.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));

    const stored = new Map<string, number>();
    const used = new Set(sent.map((request) => request.sender));
    let files = 0;
    for (const index of used) files += await storedRequestIds(service, (made[index] as Connection).dataSetId, stored);

    const accepted = sent.filter((request) => request.status === 202);
    const others = sent.filter((request) => request.status !== 202);
    const latencies = sent.map((request) => request.latencyMs);
    const answers: Record<string, number> = {};
    for (const request of others) {
      const key = request.status === 0 ? `no answer (${request.error})` : `${request.status} ${request.error}`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
    // A connection's first request opens a TCP connection and finds its source in no cache; later ones do neither.
    const firstOfSender = new Set<SentRequest>();
    const seenSenders = new Set<number>();
    for (const request of [...sent].sort((a, b) => a.dueAt - b.dueAt)) {
      if (seenSenders.has(request.sender)) continue;
      seenSenders.add(request.sender);
      firstOfSender.add(request);
    }
    const firstLatencies = [...firstOfSender].map((request) => request.latencyMs);
    const laterLatencies = sent.filter((request) => !firstOfSender.has(request)).map((request) => request.latencyMs);
    // When the slowest 1 % were due, by 10 s of the run: a cluster points at something the service did then.
    const slowFrom = percentile(latencies, 99);
    const slowByTenSeconds = new Map<number, number>();
    for (const request of sent.filter((candidate) => candidate.latencyMs >= slowFrom)) {
      const bucket = Math.floor(request.dueAt / 10_000) * 10;
      slowByTenSeconds.set(bucket, (slowByTenSeconds.get(bucket) ?? 0) + 1);
    }
    const busiest = new Map<number, number>();
    for (const request of sent) busiest.set(request.sender, (busiest.get(request.sender) ?? 0) + 1);
    return {
      connections,
      requestsPerSecond,
      seconds,
      batchWindowSeconds,
      requests: sent.length,
      accepted: accepted.length,
      answers,
      connectionsUsed: used.size,
      busiestShare: Math.max(...busiest.values()) / sent.length,
      latency: {
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
      },
      firstRequests: {
        count: firstLatencies.length,
        p50: percentile(firstLatencies, 50),
        p99: percentile(firstLatencies, 99),
      },
      laterRequests: {
        count: laterLatencies.length,
        p50: percentile(laterLatencies, 50),
        p99: percentile(laterLatencies, 99),
      },
      slowByTenSeconds: [...slowByTenSeconds].sort((a, b) => a[0] - b[0]),
      drainSeconds,
      freshnessSeconds,
      /** Live files once every table is committed: one per commit (a day partition each; no compaction ran). */
      files,
      rowsPerFile: stored.size / Math.max(1, files),
      commitsPerEvent: files / Math.max(1, accepted.length),
      listed: {
        probes: listed.length,
        p50: percentile(listed, 50),
        p99: percentile(listed, 99),
        max: Math.max(...listed),
      },
      storedOnce: accepted.filter((request) => stored.get(request.requestId) === 1).length,
      acceptedMissing: accepted.filter((request) => !stored.has(request.requestId)).length,
      storedTwice: [...stored.values()].filter((rows) => rows > 1).length,
      refusedButStored: others.filter((request) => stored.has(request.requestId)).length,
    };
  } finally {
    sqs.destroy();
    await service.stop();
  }
}
