/**
 * What the local-stops tests share (test/integration/local-stops*.test.ts): a burst of webhooks that
 * notes every 202, the queue's depth, and the rows per message id a restarted service left in the
 * table, read by DuckDB. A ledger keeps the ids every scenario of a file had accepted, and checks
 * after each restart that each of them is in the table exactly once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'vitest';
import { apiClient } from './api.ts';
import type { Webhook } from './webhooks.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The settings of the service the scenarios stop and start: short waits, every stop drained in 15 s. */
export const stopsServiceEnv = (adminKey: string) => ({
  ADMIN_API_KEY: adminKey,
  LOCAL_BATCH_WINDOW_SECONDS: '1',
  LOCAL_VISIBILITY_TIMEOUT_SECONDS: '2',
  LOCAL_DRAIN_TIMEOUT_SECONDS: '15',
  // Staged envelopes are due at once and the commit schedule passes every 2 s.
  TABLE_FRESHNESS_SECONDS: '0',
  LOCAL_SCHEDULE_SECONDS: '2',
  LOG_LEVEL: 'WARN',
});

/** Where a running local service answers: its front, its S3 and its SQS (`npm start`'s or the service's own). */
export interface ServiceEndpoints {
  url: string;
  s3Endpoint: string;
  sqsEndpoint: string;
}

export interface BurstResult {
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
export function burst(
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

export async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs / 1000} s`);
    await sleep(25);
  }
}

/** Envelopes in the ingest queue, visible, in flight or delayed. */
export async function queued(service: ServiceEndpoints): Promise<number> {
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
export function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether nothing listens on 127.0.0.1:port: a server of ours can take it. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>> | undefined;

/** Rows per message id over the table's live files (the Delta log's adds less its removes), read by DuckDB. */
export async function rowsByMessageId(service: ServiceEndpoints, location: string): Promise<Map<string, number>> {
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

/**
 * The ids a file's scenarios had answered 202, kept across the restarts of one DATA_DIR, and the
 * check each scenario ends with.
 */
export class AcceptedLedger {
  readonly accepted: string[] = [];
  /** The table's location, known from the first check on. */
  location = '';

  constructor(
    private readonly adminKey: string,
    private readonly hook: () => Webhook,
  ) {}

  /**
   * Waits until the restarted service has written everything it holds, then counts the table: the
   * ids accepted in the scenario just run, and those of the scenarios before it.
   */
  async expectEveryAcceptedRowOnce(running: ServiceEndpoints, scenario: string[]): Promise<void> {
    const earlier = [...this.accepted];
    this.accepted.push(...scenario);
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
      this.location ||=
        (
          await apiClient(running.url, this.adminKey).get<{ storage_location: string | null }>(
            `/api/data-sets/${this.hook().dataSetId}`,
          )
        ).body.storage_location ?? '';
      if (this.location) rows = await rowsByMessageId(running, this.location);
      if (this.accepted.every((id) => rows.has(id)) || Date.now() > deadline) break;
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
}
