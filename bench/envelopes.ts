/**
 * The benchmark's input: deterministic envelopes with ~1 KB JSON payloads (varied fields, so that
 * compression sees realistic data rather than repeats), identical in every process that makes them.
 */
import type { Envelope } from '#shared/domain/ingest/envelope.ts';

/** A small seeded generator (mulberry32): the bench's runs stay comparable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = [
  'order',
  'push',
  'invoice',
  'customer',
  'shipment',
  'refund',
  'user',
  'repo',
  'branch',
  'amount',
  'currency',
  'status',
];

export function makeEnvelopes(count: number, seed = 42): Envelope[] {
  return [...envelopeStream(count, seed)];
}

/** The same envelopes one at a time, for an input built without holding them all. */
export function* envelopeStream(count: number, seed = 42): Generator<Envelope> {
  const random = seededRandom(seed);
  const pick = () => words[Math.floor(random() * words.length)] as string;
  const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  const start = 1_795_000_000_000_000n;
  for (let i = 0; i < count; i++) {
    // Built as text directly: generating a large input should not leave a heap full of garbage behind.
    let json = `{"id":"${uuid()}","event":"${pick()}","sequence":${i}`;
    while (json.length < 1000)
      json += `,"${pick()}_${hex(4)}":${random() < 0.5 ? `"${pick()}"` : Math.floor(random() * 1e6)}`;
    const body = Buffer.from(`${json}}`);
    yield {
      message_id: uuid(),
      data_set_id: '00000000-0000-4000-8000-000000000001',
      dt: '2026-11-21',
      ingested_at_us: start + BigInt(i) * 1000n + BigInt(Math.floor(random() * 1000)),
      source_id: '00000000-0000-4000-8000-000000000002',
      tenant_id: '00000000-0000-4000-8000-000000000003',
      content_type: 'application/json',
      payload_size: body.length,
      payload: body.toString('base64'),
    };
  }
}

/**
 * An envelope as the ingest function queues it and the writer stages it (one NDJSON line): with the
 * ingest door's receipt, the payload last.
 */
export function queuedEnvelope({ ingested_at_us, payload, ...fields }: Envelope, accepted: number): string {
  return JSON.stringify({
    v: 1,
    ...fields,
    ingested_at_us: String(ingested_at_us),
    receipt: { epoch: '00000000-0000-4000-8000-00000000e90c', accepted, duplicates: 0 },
    payload,
  });
}
