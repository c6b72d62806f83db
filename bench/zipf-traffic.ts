/**
 * Webhook traffic as many senders make it: requests spread over connections by a Zipf law (a few
 * connections send most of it, a long tail sends now and then), arriving at a steady rate whatever
 * the answers (an open loop: a slow answer never delays the next request, so latency is measured
 * as senders see it). Each connection is a sender of its own, with its own kept-alive sockets.
 * Every body carries a request id, so that what was stored can be matched to what was answered.
 * Used by `npm run bench zipf`; any bench that wants the same shape of traffic can use it.
 */

import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { seededRandom } from './envelopes.ts';

export interface Sender {
  sourceId: string;
  token: string;
}

export interface ZipfTraffic {
  /** The service's base URL. */
  url: string;
  senders: Sender[];
  requestsPerSecond: number;
  seconds: number;
  bodyBytes: number;
  /** Called with each request's outcome as its answer arrives. */
  onAnswer?: (sent: SentRequest) => void;
  /** The Zipf exponent: the k-th connection sends in proportion to 1 / k^exponent. */
  exponent?: number;
  /** The same seed gives the same sequence of connections. */
  seed?: number;
}

export interface SentRequest {
  /** Index of the sender (its Zipf rank is this + 1). */
  sender: number;
  requestId: string;
  /** Milliseconds from the start of the run to when the request was due. */
  dueAt: number;
  /** From when it was due to the whole answer (or the error). */
  latencyMs: number;
  /** The HTTP status, or 0 when the request got no answer. */
  status: number;
  messageId: string | null;
  /** The error code of a refusal, or of the network error. */
  error: string | null;
}

/** Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^exponent. */
export function zipfChooser(n: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    total += 1 / (k + 1) ** exponent;
    cumulative[k] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** A JSON body of exactly `bytes` bytes that carries the request id. */
export function bodyWithId(requestId: string, sequence: number, bytes: number): string {
  const head = JSON.stringify({ request_id: requestId, sequence, padding: '' });
  return head.replace('"padding":""', `"padding":"${'x'.repeat(Math.max(0, bytes - head.length))}"`);
}

/** Sends the traffic and answers every request's outcome, once the last answer is in. */
export async function sendZipfTraffic(traffic: ZipfTraffic): Promise<SentRequest[]> {
  const choose = zipfChooser(traffic.senders.length, traffic.exponent ?? 1, seededRandom(traffic.seed ?? 1));
  const agents = traffic.senders.map(() => new Agent({ keepAlive: true }));
  const base = new URL(traffic.url);
  const total = Math.round(traffic.requestsPerSecond * traffic.seconds);
  const intervalMs = 1000 / traffic.requestsPerSecond;
  const results: Promise<SentRequest>[] = [];
  const started = performance.now();

  const send = (index: number, dueAt: number): Promise<SentRequest> => {
    const sender = choose();
    const { sourceId, token } = traffic.senders[sender] as Sender;
    const requestId = randomUUID();
    const body = bodyWithId(requestId, index, traffic.bodyBytes);
    const outcome = (status: number, messageId: string | null, error: string | null): SentRequest => ({
      sender,
      requestId,
      dueAt,
      latencyMs: performance.now() - started - dueAt,
      status,
      messageId,
      error,
    });
    return new Promise((resolve) => {
      const outgoing = request(
        {
          agent: agents[sender],
          hostname: base.hostname,
          port: base.port,
          path: `/api/ingest/${sourceId}`,
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => {
            let answer: { message_id?: string; code?: string } = {};
            try {
              answer = JSON.parse(text);
            } catch {
              // Not JSON: the status says it.
            }
            const status = response.statusCode ?? 0;
            resolve(outcome(status, answer.message_id ?? null, status === 202 ? null : (answer.code ?? 'UNKNOWN')));
          });
          response.on('error', (error: NodeJS.ErrnoException) =>
            resolve(outcome(0, null, error.code ?? error.message)),
          );
        },
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => resolve(outcome(0, null, error.code ?? error.message)));
      outgoing.end(body);
    });
  };

  for (let index = 0; index < total; index++) {
    const dueAt = index * intervalMs;
    const wait = dueAt - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const result = send(index, dueAt);
    if (traffic.onAnswer) void result.then(traffic.onAnswer);
    results.push(result);
  }
  const outcomes = await Promise.all(results);
  for (const agent of agents) agent.destroy();
  return outcomes;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
