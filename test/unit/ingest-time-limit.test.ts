/**
 * The ingest time limit through the local front, with a queue that answers slowly: an envelope the
 * queue took is answered by the queue's answer (this queue's slow call is not given up, as the SQS
 * client's own are at the end of the request's time), so a sender never gets a 503 for a webhook
 * that was stored; a request still waiting for the queue when its time is up, or for its body's
 * claim check to be stored, is refused (503, Retry-After) and its envelope never reaches the queue.
 */
import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptOver, ingestEdge } from '#functions/ingest/accept.ts';
import { callLimits, transferLimits } from '#shared/adapters/aws-http.ts';
import { type CheckIn, claimCheckIn } from '#shared/adapters/s3/claim-check-in.ts';
import { BatchingSender } from '#shared/adapters/sqs/batching-sender.ts';
import { envelopeQueue } from '#shared/adapters/sqs/ingest-queue.ts';
import type { SendMessageBatchInput, SendMessageBatchOutput } from '#shared/adapters/sqs/json-client.ts';
import type { Source } from '#shared/domain/connections/model.ts';
import type { IngestDeps } from '#shared/domain/ingest/accept.ts';
import { httpEdge } from '#shared/http/api-handler.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { type HttpFront, startHttpFront } from '../../local/http-front.ts';
import { tenantRecord } from '../support/memory.ts';
import { pollUntil } from '../support/poll.ts';

const token = 'trb_ing_good-token-0000000000000000000000000000';
const sourceId = '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41';
const source: Source = {
  source_id: sourceId,
  connection_id: 'conn-1',
  tenant_id: 'tenant-1',
  data_set_id: '0c7e5a8e-1f0b-4c1e-9a55-3d2f6b7a8c90',
  token_hash: createHash('sha256').update(token).digest('hex'),
  source_status: 'Active',
  connection_status: 'Active',
  security: { auth_mode: 'bearer', signature: null, dedup_window_seconds: 0, rate_limit: null, ip_allowlist: null },
};
const tenant = tenantRecord({ tenant_id: 'tenant-1', default_object_store_id: 'store-1' });

/** A queue that holds each call for `callMs` and then takes every entry; it lists what it holds. */
function slowQueue(callMs: number) {
  const held: string[] = [];
  let calls = 0;
  const client = {
    sendBatch: async (input: SendMessageBatchInput): Promise<SendMessageBatchOutput> => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, callMs));
      held.push(...input.Entries.map((entry) => (JSON.parse(entry.MessageBody) as { message_id: string }).message_id));
      return {
        Successful: input.Entries.map((entry) => ({ Id: entry.Id, MessageId: 'm' })),
        Failed: [],
        $metadata: {},
      };
    },
  };
  return { client, held, calls: () => calls };
}

/** The ingest route's handler, behind its edge as deployed, over in-memory ports and the given queue. */
function ingestOver(enqueue: IngestDeps['enqueue'], findSource?: IngestDeps['findSource']) {
  return httpEdge(
    'POST /api/ingest/{source_id}',
    acceptOver({
      findSource: findSource ?? (async (id) => (id === sourceId ? source : null)),
      findTenant: async () => tenant,
      signingSecrets: async () => [],
      takeRateToken: async () => ({ allowed: true, retryAfterSeconds: 0 }),
      releaseDedupKey: async () => undefined,
      claimDedupKey: async (_, __, messageId) => messageId,
      enqueue,
      maxBodyBytes: 1024 * 1024,
      countAccepted: () => ({ epoch: 'e', accepted: 1, duplicates: 0 }),
      withdrawAccepted: () => undefined,
      countRefused: () => undefined,
      recordRejection: async () => undefined,
      statusOf: (code) => statusOfCode[code],
    }),
    ingestEdge,
  );
}

async function post(front: HttpFront, body = '{"a":1}') {
  const response = await fetch(`${front.url}/api/ingest/${sourceId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/**
 * The route behind the local front, two seconds per request, over the given queue (and source
 * lookup, and claim checks).
 */
function frontOver(queue: ReturnType<typeof slowQueue>, findSource?: IngestDeps['findSource'], checkIn?: CheckIn) {
  const enqueue = envelopeQueue(new BatchingSender(queue.client, () => 'queue', 1), checkIn);
  return startHttpFront({
    port: 0,
    host: '127.0.0.1',
    functionTimeoutSeconds: 2,
    loadHandler: async () => ingestOver(enqueue, findSource),
  });
}

/** A request refused for want of time, in the contract's words. */
const refusedInTime = {
  status: 503,
  retryAfter: '1',
  body: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }),
};

let front: HttpFront | undefined;
afterEach(async () => {
  await front?.close();
  front = undefined;
});

describe('the ingest time limit, through the local front', () => {
  it('answers 202 for an envelope the queue took after the time limit, and refuses only what never reached it', async () => {
    // Two seconds per request, one of them kept for the queue call: an envelope must be handed to
    // the queue within a second. Each queue call takes three, one call at a time.
    const queue = slowQueue(3000);
    front = await frontOver(queue);
    const taken = post(front);
    // Sent once the first call is under way: it waits for the queue until its time is up.
    await pollUntil(
      async () => queue.calls(),
      (calls) => calls === 1,
      { what: 'the first queue call', intervalMs: 5 },
    );
    const waiting = post(front);
    const [first, second] = await Promise.all([taken, waiting]);
    expect(first).toEqual({ status: 202, retryAfter: null, body: { message_id: expect.any(String) } });
    expect(second).toEqual(refusedInTime);
    expect({ calls: queue.calls(), held: queue.held }).toEqual({ calls: 1, held: [first.body.message_id] });
  });

  it('refuses in its own words, and queues nothing, when a large body cannot be checked in before its time is up', async () => {
    const queue = slowQueue(0);
    // An S3 endpoint whose connection goes silent: it takes the upload and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const s3 = new S3Client({
      endpoint: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      forcePathStyle: true,
      requestHandler: callLimits(transferLimits),
    });
    try {
      front = await frontOver(
        queue,
        undefined,
        claimCheckIn(s3, () => 'platform'),
      );
      // Over 240 KiB: the body goes to the bucket first, as a claim check.
      expect(await post(front, JSON.stringify({ text: 'x'.repeat(300 * 1024) }))).toEqual(refusedInTime);
      expect(queue.calls()).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      s3.destroy();
    }
  });

  it('refuses in its own words, before the function times out, a request whose source lookup gets no answer', async () => {
    const queue = slowQueue(0);
    // The table does not answer (a dead connection, each attempt given up after 5 s).
    front = await frontOver(queue, () => new Promise(() => undefined));
    expect(await post(front)).toEqual(refusedInTime);
    expect(queue.calls()).toBe(0);
  });
});
