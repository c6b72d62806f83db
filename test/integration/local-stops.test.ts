/**
 * A 202 is a promise on one machine too. The whole of `npm start` runs in a process group of its own
 * and is stopped the ways a machine stops it — SIGKILL of the group (with or without its stand-ins)
 * during a burst, during a batch write and during a graceful stop; SIGINT to the group (Ctrl-C) and
 * SIGTERM to every process (systemd) during a burst; SIGINT, SIGTERM and SIGKILL to `npm start`'s own
 * pid — and restarted on the same DATA_DIR. After each restart the ingest queue drains and
 * DuckDB counts the rows of the table's live files by message id: every message id ever answered 202
 * must be there exactly once. The scenarios share one DATA_DIR and one restart between each other.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '#shared/domain/tokens.ts';
import { apiClient } from '../support/api.ts';
import {
  type LocalService,
  type LocalServicePorts,
  localServicePorts,
  standInPids,
  startLocalService,
  startWithNpm,
} from '../support/runtime-process.ts';
import { createWebhook, type Webhook } from '../support/webhooks.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const adminKey = issueToken('apiKey').token;
const serviceEnv = {
  ADMIN_API_KEY: adminKey,
  LOCAL_BATCH_WINDOW_SECONDS: '1',
  LOCAL_VISIBILITY_TIMEOUT_SECONDS: '2',
  LOCAL_DRAIN_TIMEOUT_SECONDS: '15',
  // Staged envelopes are due at once and the commit schedule passes every 2 s.
  TABLE_FRESHNESS_SECONDS: '0',
  LOCAL_SCHEDULE_SECONDS: '2',
  LOG_LEVEL: 'WARN',
};

interface BurstResult {
  accepted: string[];
  statuses: Record<string, number>;
  /** Network errors by code: ECONNREFUSED once the front stopped listening, ECONNRESET on a crash. */
  errors: Record<string, number>;
  /** Refusals that were not a clean 503 in the error shape with `Connection: close`. */
  unclean: string[];
}

/**
 * Sends up to `total` webhooks over kept-alive connections, `concurrency` at a time. A worker stops
 * at its first 503 or network error (a sender told to come back later), as webhook senders do.
 */
function burst(
  service: { url: string },
  hook: Webhook,
  total: number,
  onAccepted: (count: number) => void = () => undefined,
  concurrency = 8,
): Promise<BurstResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const result: BurstResult = { accepted: [], statuses: {}, errors: {}, unclean: [] };
  const url = new URL(`${service.url}/api/ingest/${hook.sourceId}`);
  let next = 0;
  const send = (body: string) =>
    new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
      const outgoing = request(
        {
          agent,
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${hook.token}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  const worker = async () => {
    while (next < total) {
      const body = JSON.stringify({ n: next++, padding: 'x'.repeat(200) });
      try {
        const response = await send(body);
        result.statuses[response.status] = (result.statuses[response.status] ?? 0) + 1;
        if (response.status === 202) {
          result.accepted.push((JSON.parse(response.text) as { message_id: string }).message_id);
          onAccepted(result.accepted.length);
          continue;
        }
        const shape = (() => {
          try {
            return Object.keys(JSON.parse(response.text)).sort().join(',');
          } catch {
            return 'not JSON';
          }
        })();
        if (response.status !== 503 || response.connection !== 'close' || shape !== 'code,details,message,request_id')
          result.unclean.push(`${response.status} connection=${response.connection} body=${response.text}`);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        result.errors[code] = (result.errors[code] ?? 0) + 1;
        return;
      }
    }
  };
  return Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
    agent.destroy();
    return result;
  });
}

async function until<T>(what: string, probe: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs / 1000} s`);
    await sleep(25);
  }
}

/** Envelopes in the ingest queue, visible, in flight or delayed. */
async function queued(service: LocalService): Promise<number> {
  const sqs = new SQSClient({
    endpoint: service.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ingest' }));
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return Object.values(Attributes).reduce((sum, value) => sum + Number(value), 0);
  } finally {
    sqs.destroy();
  }
}

/** Whether a process, or with a negative pid a process group, still exists. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether nothing listens on 127.0.0.1:port: a server of ours can take it. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>> | undefined;

/** Rows per message id over the table's live files (the Delta log's adds less its removes), read by DuckDB. */
async function rowsByMessageId(service: LocalService, location: string): Promise<Map<string, number>> {
  const [, bucket, root] = /^s3:\/\/([^/]+)\/(.+)$/.exec(location) ?? [];
  const s3 = new S3Client({
    endpoint: service.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const get = async (key: string) =>
    Buffer.from(
      await (
        (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body as {
          transformToByteArray(): Promise<Uint8Array>;
        }
      ).transformToByteArray(),
    );
  const commits: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${root}/_delta_log/`, ContinuationToken: token }),
    );
    commits.push(
      ...(page.Contents ?? []).map((object) => object.Key ?? '').filter((key) => /\/\d{20}\.json$/.test(key)),
    );
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const live = new Set<string>();
  for (const key of commits.sort()) {
    for (const line of (await get(key)).toString('utf8').split('\n').filter(Boolean)) {
      const action = JSON.parse(line) as { add?: { path: string }; remove?: { path: string } };
      if (action.add) live.add(action.add.path);
      if (action.remove) live.delete(action.remove.path);
    }
  }
  const directory = mkdtempSync(path.join(os.tmpdir(), 'local-stops-read-'));
  const files: string[] = [];
  for (const [index, file] of [...live].entries()) {
    const local = path.join(directory, `${index}.parquet`);
    writeFileSync(local, await get(`${root}/${file}`));
    files.push(local);
  }
  s3.destroy();
  const counts = new Map<string, number>();
  if (files.length > 0) {
    duck ??= await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    const rows = await connection.runAndReadAll(
      `SELECT message_id, count(*) AS n FROM read_parquet([${files.map((file) => `'${file}'`).join(', ')}]) GROUP BY message_id`,
    );
    for (const row of rows.getRowObjectsJson()) counts.set(String(row.message_id), Number(row.n));
    connection.closeSync();
  }
  rmSync(directory, { recursive: true, force: true });
  return counts;
}

describe('a local service stopped or killed at any moment keeps every 202', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-local-stops-'));
  let ports: LocalServicePorts;
  let service: LocalService | undefined;
  let hook: Webhook;
  let location = '';
  const accepted: string[] = [];
  let npmGroup = 0;

  async function start(): Promise<LocalService> {
    service = await startLocalService(dataDir, ports, serviceEnv);
    return service;
  }

  /**
   * Waits until the restarted service has written everything it holds, then counts the table: the
   * ids accepted in the scenario just run, and those of the scenarios before it.
   */
  async function expectEveryAcceptedRowOnce(running: LocalService, scenario: string[]) {
    const earlier = [...accepted];
    accepted.push(...scenario);
    await until(
      'envelopes still queued',
      () => queued(running),
      (depth) => depth === 0,
      90_000,
    );
    // Staged envelopes reach the table at the commit schedule's next pass (the first makes the table).
    const deadline = Date.now() + 30_000;
    let rows = new Map<string, number>();
    for (;;) {
      location ||=
        (
          await apiClient(running.url, adminKey).get<{ storage_location: string | null }>(
            `/api/data-sets/${hook.dataSetId}`,
          )
        ).body.storage_location ?? '';
      if (location) rows = await rowsByMessageId(running, location);
      if (accepted.every((id) => rows.has(id)) || Date.now() > deadline) break;
      await sleep(500);
    }
    const lost = (ids: string[]) => ids.filter((id) => !rows.has(id)).length;
    const duplicated = [...rows.values()].filter((times) => times > 1).length;
    expect({ accepted: scenario.length, lost: lost(scenario), lostEarlier: lost(earlier), duplicated }).toEqual({
      accepted: scenario.length,
      lost: 0,
      lostEarlier: 0,
      duplicated: 0,
    });
  }

  /** Files the batch writer has put in the tenant store so far (s3rver keeps each object in a file). */
  function dataFilesOnDisk(): number {
    const bucket = path.join(dataDir, 's3', 'demo-bucket');
    try {
      return readdirSync(bucket, { recursive: true }).filter((name) => String(name).endsWith('.parquet._S3rver_object'))
        .length;
    } catch {
      return 0;
    }
  }

  // A whole service's start: on a busy machine it takes longer than the suite's hook timeout.
  beforeAll(async () => {
    ports = await localServicePorts();
    const running = await start();
    hook = await createWebhook(apiClient(running.url, adminKey), { store: { endpoint: running.s3Endpoint } });
  }, 300_000);
  afterAll(async () => {
    if (service) await service.killGroup({ everything: true });
    // A test that failed while `npm start` ran.
    for (const pid of [-npmGroup, ...standInPids(dataDir)]) if (pid !== 0 && exists(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL to the group and its stand-ins during a burst (a power cut)', { timeout: 180_000 }, async () => {
    const running = service as LocalService;
    let killed: Promise<void> | undefined;
    const sent = await burst(running, hook, 300, (count) => {
      if (count === 80) killed = running.killGroup({ everything: true });
    });
    await killed;
    expect(sent.accepted.length).toBeGreaterThanOrEqual(80);
    await expectEveryAcceptedRowOnce(await start(), sent.accepted);
  });

  it('SIGKILL to the group during a batch write', { timeout: 180_000 }, async () => {
    const running = service as LocalService;
    const before = dataFilesOnDisk();
    const sending = burst(running, hook, 200);
    await until('a data file written', dataFilesOnDisk, (files) => files > before, 60_000);
    await running.killGroup();
    await expectEveryAcceptedRowOnce(await start(), (await sending).accepted);
  });

  it('SIGKILL to the group and its stand-ins during a graceful stop', { timeout: 180_000 }, async () => {
    const running = service as LocalService;
    let stopped = false;
    const sending = burst(running, hook, 300, (count) => {
      if (count === 80 && !stopped) {
        stopped = true;
        running.signalGroup('SIGTERM');
      }
    });
    await until(
      'the stop begun',
      () => running.output(),
      (output) => /stopping/i.test(output),
      30_000,
    );
    await sleep(150);
    await running.killGroup({ everything: true });
    await expectEveryAcceptedRowOnce(await start(), (await sending).accepted);
  });

  // Ctrl-C in a terminal signals the process group; systemd's stop (KillMode=control-group)
  // signals every process of the unit, the stand-ins included.
  for (const [signal, everything] of [
    ['SIGINT', false],
    ['SIGTERM', true],
  ] as const) {
    it(`${signal} to the ${everything ? 'group and every stand-in' : 'group'} during a burst: clean 503s, a clean exit, nothing lost`, {
      timeout: 180_000,
    }, async () => {
      const running = service as LocalService;
      let signalled = false;
      const sent = await burst(running, hook, 300, (count) => {
        if (count === 80 && !signalled) {
          signalled = true;
          running.signalGroup(signal, { everything });
        }
      });
      const exit = await running.exited;
      expect.soft(sent.unclean).toEqual([]);
      expect.soft(Object.keys(sent.statuses).filter((status) => status !== '202' && status !== '503')).toEqual([]);
      expect.soft(Object.keys(sent.errors).filter((code) => code !== 'ECONNREFUSED')).toEqual([]);
      expect.soft({ exit, failed: /Stop failed|ECONNREFUSED/.test(running.output()) }).toEqual({
        exit: { code: 0, signal: null },
        failed: false,
      });
      await expectEveryAcceptedRowOnce(await start(), sent.accepted);
    });
  }

  // `npm start` stopped as people stop it: Ctrl-C signals the group (above), `kill` or a supervisor
  // signals npm's pid alone, `docker stop` sends SIGTERM to the container's PID 1, which is npm; and
  // npm killed outright leaves the service to notice and stop by itself.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`${signal} to npm start's own pid during a burst: the service drains and stops, nothing lost, nothing left running`, {
      timeout: 360_000,
    }, async () => {
      const previous = service as LocalService;
      previous.signalGroup('SIGINT');
      await previous.exited;
      service = undefined;
      const npm = await startWithNpm(dataDir, ports, serviceEnv);
      npmGroup = npm.pid;
      const started = [npm.pid, ...standInPids(dataDir)];
      let signalled = false;
      const sent = await burst(npm, hook, 300, (count) => {
        if (count === 80 && !signalled) {
          signalled = true;
          process.kill(npm.pid, signal);
        }
      });
      const exit = await npm.exited;
      // npm's group holds npm and the service; each stand-in leads a group of its own.
      const left = await until(
        'processes npm start ran',
        () => [-npm.pid, ...started].filter(exists),
        (pids) => pids.length === 0,
        60_000,
      );
      const busyPorts = [];
      for (const port of Object.values(ports)) if (!(await portIsFree(port))) busyPorts.push(port);
      expect.soft(sent.unclean).toEqual([]);
      expect.soft(Object.keys(sent.statuses).filter((status) => status !== '202' && status !== '503')).toEqual([]);
      expect.soft(Object.keys(sent.errors).filter((code) => code !== 'ECONNREFUSED')).toEqual([]);
      expect
        .soft({
          exit,
          left,
          busyPorts,
          stopped: npm.output().includes('Stopped.'),
          failed: /Stop failed|ECONNREFUSED/.test(npm.output()),
        })
        .toEqual({
          exit: signal === 'SIGKILL' ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null },
          left: [],
          busyPorts: [],
          stopped: true,
          failed: false,
        });
      await expectEveryAcceptedRowOnce(await start(), sent.accepted);
    });
  }

  it('commits everything staged at a graceful stop, however far its freshness target is', {
    timeout: 180_000,
  }, async () => {
    // Prepare: a service whose tables are due only an hour after their oldest staged envelope.
    const hourly = { ...serviceEnv, TABLE_FRESHNESS_SECONDS: '3600' };
    const first = service as LocalService;
    first.signalGroup('SIGINT');
    await first.exited;
    service = await startLocalService(dataDir, ports, hourly);
    const sent = await burst(service, hook, 40);
    await until(
      'envelopes still queued',
      () => queued(service as LocalService),
      (depth) => depth === 0,
      60_000,
    );
    const before = await rowsByMessageId(service, location);

    // Act: a graceful stop, then a start that would not commit for an hour.
    service.signalGroup('SIGINT');
    const exit = await service.exited;
    service = await startLocalService(dataDir, ports, hourly);
    const after = await rowsByMessageId(service, location);

    // Assess: staged (not in the table) before the stop, every one committed once by it.
    const inTable = (rows: Map<string, number>) => sent.accepted.filter((id) => rows.get(id) === 1).length;
    expect({ exit, accepted: sent.accepted.length, before: inTable(before), after: inTable(after) }).toEqual({
      exit: { code: 0, signal: null },
      accepted: 40,
      before: 0,
      after: 40,
    });
    accepted.push(...sent.accepted);
  });

  it('stops an idle service at once, however many signals reach it', { timeout: 60_000 }, async () => {
    const running = service as LocalService;
    running.signalGroup('SIGINT');
    running.signalGroup('SIGTERM', { everything: true });
    await sleep(100);
    running.signalGroup('SIGTERM', { everything: true });
    const exit = await running.exited;
    expect({ exit, failed: /Stop failed|ECONNREFUSED/.test(running.output()) }).toEqual({
      exit: { code: 0, signal: null },
      failed: false,
    });
  });
});
