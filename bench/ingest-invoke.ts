/**
 * One ingest function instance, as Lambda runs it: the deployed bundle imported in this process
 * (timed: the cold start), then invoked one request at a time, every `BENCH_INTERVAL_MS` (the
 * traffic one instance gets), against the stand-ins the environment names. Writes to stdout, as
 * JSON, the import's time and every invocation's CPU and duration. bench/ingest-memory.ts runs it,
 * at full speed and with its CPU held to a memory size's share.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [bundle, sourceId, token] = process.argv.slice(2) as [string, string, string];
const invocations = Number(process.env.BENCH_INVOCATIONS ?? 1000);
const warmUp = Number(process.env.BENCH_WARM_UP ?? 100);
const intervalMs = Number(process.env.BENCH_INTERVAL_MS ?? 50);

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;

const initCpu = process.cpuUsage();
const initStarted = performance.now();
const { handler } = (await import(pathToFileURL(bundle).href)) as { handler: Handler };
const initMs = performance.now() - initStarted;
const initCpuUsed = process.cpuUsage(initCpu);

const body = JSON.stringify({ event: 'push', padding: 'x'.repeat(1000) }).slice(0, 1024);
const event = () => ({
  version: '2.0',
  routeKey: 'POST /api/ingest/{source_id}',
  rawPath: `/api/ingest/${sourceId}`,
  rawQueryString: '',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  pathParameters: { source_id: sourceId },
  requestContext: {
    requestId: randomUUID(),
    http: {
      method: 'POST',
      path: `/api/ingest/${sourceId}`,
      protocol: 'HTTP/1.1',
      sourceIp: '127.0.0.1',
      userAgent: 'bench',
    },
  },
  body,
  isBase64Encoded: false,
});
const context = () => {
  const deadline = Date.now() + 10_000;
  return {
    functionName: 'ingest',
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => deadline - Date.now(),
    callbackWaitsForEmptyEventLoop: true,
  };
};

const cpuMicros: number[] = [];
const durationMs: number[] = [];
for (let i = 0; i < warmUp + invocations; i++) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await handler(event(), context());
  const used = process.cpuUsage(cpu);
  const took = performance.now() - started;
  if (result.statusCode !== 202) throw new Error(`The invocation was answered ${result.statusCode}`);
  if (i >= warmUp) {
    cpuMicros.push(used.user + used.system);
    durationMs.push(took);
  }
  const pause = intervalMs - took;
  if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
}
process.stdout.write(
  JSON.stringify({
    initMs,
    initCpuMs: (initCpuUsed.user + initCpuUsed.system) / 1000,
    cpuMicros,
    durationMs,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
process.exit(0);
