/**
 * `npm run bench zipf`: many connections at a modest rate, the way a team's webhooks arrive. A fresh
 * local service, as `npm start` runs it, with a 20 s batching window; 1,000 webhook connections;
 * 20 requests a second spread over them by Zipf(1.0) (bench/zipf-traffic.ts), 1 KB bodies, for
 * BENCH_ZIPF_SECONDS (120). Each window then makes a commit for each of a few hundred tables while
 * webhooks keep arriving: the test of whether the front answers in milliseconds while the writer
 * works.
 *
 * It reports the latency senders saw and every answer that was not 202, how long the writer took
 * to write what was queued once the traffic stopped, and, reading every table's files, whether each
 * 202 is stored exactly once and whether any request answered otherwise was stored all the same
 * (which its sender, retrying, would have stored twice).
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readParquet } from '#shared/adapters/parquet/parquet-files.ts';
import { type BenchService, startService } from './service.ts';
import { percentile, type Sender, sendZipfTraffic } from './zipf-traffic.ts';

const connections = Number(process.env.BENCH_ZIPF_CONNECTIONS ?? 1000);
const requestsPerSecond = Number(process.env.BENCH_ZIPF_RATE ?? 20);
const seconds = Number(process.env.BENCH_ZIPF_SECONDS ?? 120);
const batchWindowSeconds = 20;

interface Connection extends Sender {
  dataSetId: string;
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
    base_url: 's3://demo-bucket/zipf',
    options: { endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}` },
  });
  const made: Connection[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const index = next++;
        const created = await api<{ source_id: string; ingest_token: string; data_set_id: string }>(
          service,
          'POST',
          `/api/tenants/${tenant.tenant_id}/connections`,
          { type: 'Webhook', name: `sender ${index}` },
        );
        made[index] = { sourceId: created.source_id, token: created.ingest_token, dataSetId: created.data_set_id };
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
async function storedRequestIds(service: BenchService, dataSetId: string, into: Map<string, number>): Promise<void> {
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
}

export async function benchZipf() {
  const service = await startService({ LOCAL_BATCH_WINDOW_SECONDS: String(batchWindowSeconds) });
  const sqs = new SQSClient({
    endpoint: `http://127.0.0.1:${service.env.LOCAL_SQS_PORT}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  try {
    const made = await createConnections(service, connections);
    const sent = await sendZipfTraffic({
      url: service.url,
      senders: made,
      requestsPerSecond,
      seconds,
      bodyBytes: 1024,
      exponent: 1,
    });
    const lastAnswered = performance.now();
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ingest' }));
    const drainDeadline = Date.now() + 15 * 60_000;
    while ((await ingestQueueDepth(sqs, QueueUrl as string)) > 0 && Date.now() < drainDeadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    const drainSeconds = (performance.now() - lastAnswered) / 1000;

    const stored = new Map<string, number>();
    const used = new Set(sent.map((request) => request.sender));
    for (const index of used) await storedRequestIds(service, (made[index] as Connection).dataSetId, stored);

    const accepted = sent.filter((request) => request.status === 202);
    const others = sent.filter((request) => request.status !== 202);
    const latencies = sent.map((request) => request.latencyMs);
    const answers: Record<string, number> = {};
    for (const request of others) {
      const key = request.status === 0 ? `no answer (${request.error})` : `${request.status} ${request.error}`;
      answers[key] = (answers[key] ?? 0) + 1;
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
      drainSeconds,
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
