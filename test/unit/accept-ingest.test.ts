/**
 * acceptIngest, the ingest use case, through in-memory ports: the order of its checks (CONTRACT §4
 * and §10), what the envelope carries, deduplication and rate limiting. The running service checks
 * the wiring (the route, the queue, the rejections it records) with a few requests.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Source } from '#shared/domain/connections/model.ts';
import type { SourceSecurity } from '#shared/domain/connections/security.ts';
import { DomainError, notQueuedInTime } from '#shared/domain/errors.ts';
import { acceptIngest, type IngestDeps, type IngestRequest } from '#shared/domain/ingest/accept.ts';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import type { Tenant } from '#shared/domain/tenants/model.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { tenantRecord } from '../support/memory.ts';

const token = 'trb_ing_good-token-0000000000000000000000000000';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function world(
  options: { security?: Partial<SourceSecurity>; source?: Partial<Source>; tenant?: Partial<Tenant> } = {},
) {
  const source: Source = {
    source_id: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
    connection_id: 'conn-1',
    tenant_id: 'tenant-1',
    data_set_id: 'ds-1',
    token_hash: sha256(token),
    source_status: 'Active',
    connection_status: 'Active',
    security: {
      auth_mode: 'bearer',
      signature: null,
      dedup_window_seconds: 0,
      rate_limit: null,
      ip_allowlist: null,
      ...options.security,
    },
    ...options.source,
  };
  const tenant = tenantRecord({ tenant_id: 'tenant-1', default_object_store_id: 'store-1', ...options.tenant });
  const queued: { envelope: EnvelopeMessage; body: Buffer }[] = [];
  const rejectionsFor: string[] = [];
  const dedup = new Map<string, string>();
  let tokens = Number.POSITIVE_INFINITY;
  /** Requests the queue does not take in time (503), from the next on. */
  let notQueued = 0;
  const deps: IngestDeps = {
    findSource: async (sourceId) => (sourceId === source.source_id ? source : null),
    findTenant: async (tenantId) => (tenantId === tenant.tenant_id ? tenant : null),
    signingSecrets: async () => ['signing-secret'],
    takeRateToken: async (_, __, burst) => {
      if (tokens === Number.POSITIVE_INFINITY) tokens = burst;
      if (tokens <= 0) return { allowed: false, retryAfterSeconds: 0.4 };
      tokens--;
      return { allowed: true, retryAfterSeconds: 0 };
    },
    claimDedupKey: async (sourceId, key, messageId) => {
      const claimKey = `${sourceId}#${key}`;
      if (!dedup.has(claimKey)) dedup.set(claimKey, messageId);
      return dedup.get(claimKey) as string;
    },
    releaseDedupKey: async (sourceId, key, messageId) => {
      if (dedup.get(`${sourceId}#${key}`) === messageId) dedup.delete(`${sourceId}#${key}`);
    },
    enqueue: async (envelope, body) => {
      if (notQueued > 0) {
        notQueued--;
        throw notQueuedInTime();
      }
      queued.push({ envelope, body });
    },
    maxBodyBytes: 16,
    countAccepted: () => ({ epoch: 'e1', accepted: queued.length + 1, duplicates: 0 }),
    withdrawAccepted: () => undefined,
    countRefused: () => undefined,
    recordRejection: async (sourceId) => {
      rejectionsFor.push(sourceId);
    },
    statusOf: (code) => statusOfCode[code],
  };
  return {
    deps,
    queued,
    dedup,
    source,
    refuseQueueing: (count: number) => {
      notQueued = count;
    },
  };
}

function request(overrides: Partial<IngestRequest> & { headers?: Record<string, string> } = {}): IngestRequest {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...overrides.headers };
  return {
    sourceId: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
    header: (name) => headers[name],
    headers,
    feed: undefined,
    sourceIp: '198.51.100.7',
    body: Buffer.from('{"a":1}'),
    ...overrides,
  };
}

type Outcome =
  | { accepted: true; messageId: string }
  | { accepted: false; error: DomainError; source: { source_id: string } | null };

/** Accepts or refuses: the message id, or the refusal and the source it was kept for (when it was). */
async function accept(deps: IngestDeps, input: IngestRequest): Promise<Outcome> {
  const kept: string[] = [];
  const watched = { ...deps, recordRejection: async (sourceId: string) => void kept.push(sourceId) };
  try {
    const answer = await acceptIngest(watched, input);
    if (answer.kind !== 'accepted') throw new Error(`answered a handshake: ${JSON.stringify(answer.answer)}`);
    return { accepted: true, messageId: answer.messageId };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { accepted: false, error, source: kept[0] ? { source_id: kept[0] } : null };
  }
}

/** The outcome as a line: the message id, or the code and whether the refusal is the source's to see. */
async function outcomeOf(deps: IngestDeps, input: IngestRequest) {
  const outcome = await accept(deps, input);
  return outcome.accepted
    ? { accepted: true }
    : { code: outcome.error.code, recordedFor: outcome.source?.source_id ?? null };
}

describe.concurrent('acceptIngest', () => {
  it('answers a time-ordered message id (UUID version 7) made of the ingest time, in milliseconds', async () => {
    const { deps, queued } = world();
    const outcome = await accept(deps, request({}));
    if (!outcome.accepted) throw outcome.error;
    // RFC 9562: 48 bits of Unix milliseconds, version 7, variant 10.
    expect(outcome.messageId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = Number.parseInt(outcome.messageId.replace('-', '').slice(0, 12), 16);
    const ingestedMs = Number(BigInt((queued[0] as (typeof queued)[number]).envelope.ingested_at_us) / 1000n);
    expect(ms).toBe(ingestedMs);
  });

  it('queues the raw body with the content type exactly as sent, its size and the UTC day, then answers its id', async () => {
    const { deps, queued } = world();
    const body = Buffer.from([0, 255, 10, 13]);
    const before = BigInt(Date.now()) * 1000n;
    const outcome = await accept(deps, request({ body, headers: { 'content-type': 'Application/JSON; charset=x' } }));
    const after = BigInt(Date.now() + 1) * 1000n;
    if (!outcome.accepted) throw outcome.error;
    expect(queued).toHaveLength(1);
    const { envelope, body: sent } = queued[0] as (typeof queued)[number];
    expect(sent).toEqual(body);
    expect(envelope).toEqual({
      v: 1,
      message_id: outcome.messageId,
      data_set_id: 'ds-1',
      dt: new Date(Number(BigInt(envelope.ingested_at_us) / 1000n)).toISOString().slice(0, 10),
      ingested_at_us: expect.stringMatching(/^\d{16}$/),
      source_id: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
      tenant_id: 'tenant-1',
      content_type: 'Application/JSON; charset=x',
      payload_size: 4,
      headers: { 'content-type': 'Application/JSON; charset=x' },
      receipt: { epoch: 'e1', accepted: 1, duplicates: 0 },
    });
    expect(BigInt(envelope.ingested_at_us) >= before && BigInt(envelope.ingested_at_us) <= after).toBe(true);
  });

  it('queues the headers but the credentials: the bearer token and the signature the source checks', async () => {
    const { deps, queued } = world({
      security: {
        auth_mode: 'bearer_and_signature',
        signature: { scheme: 'github', header: null, encoding: null, tolerance_seconds: null, secrets: [] },
      },
    });
    const body = Buffer.from('{"action":"opened"}');
    const signature = `sha256=${createHmac('sha256', 'signing-secret').update(body).digest('hex')}`;
    const outcome = await accept(
      { ...deps, maxBodyBytes: 1024 },
      request({
        body,
        headers: {
          'x-github-event': 'pull_request',
          'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
          'x-hub-signature-256': signature,
          cookie: 'session=abc',
          'x-custom-thing': 'kept',
        },
      }),
    );
    if (!outcome.accepted) throw outcome.error;
    expect(queued[0]?.envelope.headers).toEqual({
      'x-github-event': 'pull_request',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-custom-thing': 'kept',
    });
  });

  it('keeps content_type null when the header is absent', async () => {
    const { deps, queued } = world();
    await accept(deps, request());
    expect(queued[0]?.envelope.content_type).toBeNull();
  });

  it('admits no one through an allowlist entry stored before entries were checked strictly, and answers 403, not 500', async () => {
    // "198.51.100.7/" was once read as /0 (every address): it now matches nothing, and the other entries stand.
    const loose = world({ security: { ip_allowlist: ['198.51.100.7/'] } });
    expect(await accept(loose.deps, request())).toMatchObject({
      accepted: false,
      error: { code: 'FORBIDDEN' },
    });
    expect(loose.queued).toEqual([]);
    const mixed = world({ security: { ip_allowlist: ['198.51.100.7/', '198.51.100.0/24'] } });
    expect(await accept(mixed.deps, request())).toMatchObject({ accepted: true });
    expect(mixed.queued).toHaveLength(1);
  });

  it('refuses in the documented order, each refusal naming the first thing wrong', async () => {
    const everythingWrong = {
      security: { ip_allowlist: ['192.0.2.0/24'] },
      source: { source_status: 'Paused' as const, connection_status: 'Inactive' as const },
      tenant: { status: 'Suspended' as const, default_object_store_id: null },
    };
    const { deps } = world(everythingWrong);
    const big = Buffer.alloc(17);
    const steps: [string, IngestRequest, IngestDeps, { code: string; recordedFor: string | null }][] = [
      [
        'no bearer token',
        request({ headers: { authorization: '' }, body: big }),
        deps,
        { code: 'UNAUTHORIZED', recordedFor: null },
      ],
      ['unknown source', request({ sourceId: 'nope', body: big }), deps, { code: 'NOT_FOUND', recordedFor: null }],
      [
        'outside the allowlist',
        request({ body: big }),
        deps,
        { code: 'FORBIDDEN', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
      ],
    ];
    const inside = world({ ...everythingWrong, security: { ip_allowlist: ['198.51.100.0/24'] } }).deps;
    steps.push(
      [
        'a wrong token',
        request({ headers: { authorization: 'Bearer trb_ing_wrong' }, body: big }),
        inside,
        { code: 'UNAUTHORIZED', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
      ],
      [
        'a malformed feed',
        request({ feed: '-bad', body: big }),
        inside,
        { code: 'INVALID_FEED', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
      ],
      [
        'a suspended tenant',
        request({ feed: 'ok.feed_1', body: big }),
        inside,
        { code: 'TENANT_SUSPENDED', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
      ],
    );
    const active = { tenant: { default_object_store_id: null }, source: everythingWrong.source };
    steps.push([
      'a paused source',
      request({ body: big }),
      world(active).deps,
      { code: 'SOURCE_PAUSED', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
    ]);
    steps.push([
      'an inactive connection',
      request({ body: big }),
      world({ tenant: { default_object_store_id: null }, source: { connection_status: 'Inactive' } }).deps,
      { code: 'CONNECTION_NOT_ACTIVE', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
    ]);
    steps.push([
      'no object store',
      request({ body: big }),
      world({ tenant: { default_object_store_id: null } }).deps,
      { code: 'OBJECT_STORE_NOT_CONFIGURED', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
    ]);
    steps.push([
      'a body over the limit',
      request({ body: big }),
      world().deps,
      { code: 'PAYLOAD_TOO_LARGE', recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41' },
    ]);
    const seen = [];
    for (const [label, input, stepDeps] of steps) seen.push([label, await outcomeOf(stepDeps, input)]);
    expect(seen).toEqual(steps.map(([label, , , expected]) => [label, expected]));
  });

  it('takes a body of exactly the limit, and an empty feed only when it is well formed', async () => {
    const { deps } = world();
    expect(await outcomeOf(deps, request({ body: Buffer.alloc(16) }))).toEqual({ accepted: true });
    expect(await outcomeOf(deps, request({ feed: '' }))).toEqual({
      code: 'INVALID_FEED',
      recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
    });
    expect(await outcomeOf(deps, request({ feed: 'a'.repeat(65) }))).toEqual({
      code: 'INVALID_FEED',
      recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
    });
    expect(await outcomeOf(deps, request({ feed: `A${'z'.repeat(63)}` }))).toEqual({ accepted: true });
  });

  it('answers a repeat of a webhook-id inside the window with the first message id, and queues it again', async () => {
    const { deps, queued } = world({ security: { dedup_window_seconds: 60 } });
    const first = await accept(deps, request({ headers: { 'webhook-id': 'evt_1' } }));
    const again = await accept(deps, request({ headers: { 'webhook-id': 'evt_1' } }));
    const other = await accept(deps, request({ headers: { 'idempotency-key': 'evt_1b' } }));
    if (!first.accepted || !again.accepted || !other.accepted) throw new Error('refused');
    expect(again.messageId).toBe(first.messageId);
    expect(other.messageId).not.toBe(first.messageId);
    expect(queued.map((item) => item.envelope.message_id)).toEqual([first.messageId, first.messageId, other.messageId]);
  });

  it('gives a claimed key back when its request is not queued: the retry is a first request, not a duplicate of nothing', async () => {
    const { deps, queued, dedup, source, refuseQueueing } = world({ security: { dedup_window_seconds: 60 } });
    refuseQueueing(1);
    const lost = await accept(deps, request({ headers: { 'webhook-id': 'evt_9' } }));
    expect(lost).toMatchObject({ accepted: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(dedup.has(`${source.source_id}#evt_9`)).toBe(false);
    const retry = await accept(deps, request({ headers: { 'webhook-id': 'evt_9' } }));
    if (!retry.accepted) throw new Error('refused');
    expect(queued.map((item) => item.envelope.message_id)).toEqual([retry.messageId]);
    expect(dedup.get(`${source.source_id}#evt_9`)).toBe(retry.messageId);
    // A repeat of a key another request claimed gives nothing back when it is not queued.
    refuseQueueing(1);
    expect(await accept(deps, request({ headers: { 'webhook-id': 'evt_9' } }))).toMatchObject({ accepted: false });
    expect(dedup.get(`${source.source_id}#evt_9`)).toBe(retry.messageId);
  });

  it('gives back a key its decision claims after the request was refused for time', async () => {
    const { deps, dedup, source } = world({ security: { dedup_window_seconds: 60 } });
    let claimed = (): void => undefined;
    const claimedLate = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const slow: IngestDeps = {
      ...deps,
      // The claim answers after the time to queue is over (the request had 1.2 s, 1 s of it kept for the queue call).
      claimDedupKey: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        const id = await deps.claimDedupKey(...args);
        setTimeout(claimed, 0);
        return id;
      },
    };
    const late = await accept(slow, request({ headers: { 'webhook-id': 'evt_late' }, timeLeftMs: 1200 }));
    expect(late).toMatchObject({ accepted: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    await claimedLate;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(dedup.has(`${source.source_id}#evt_late`)).toBe(false);
  });

  it('ignores deduplication keys on a source without a window', async () => {
    const { deps, dedup } = world();
    const first = await accept(deps, request({ headers: { 'webhook-id': 'evt_1' } }));
    const again = await accept(deps, request({ headers: { 'webhook-id': 'evt_1' } }));
    if (!first.accepted || !again.accepted) throw new Error('refused');
    expect(again.messageId).not.toBe(first.messageId);
    expect(dedup.size).toBe(0);
  });

  it('lets the burst through, then answers 429 with a whole-second Retry-After', async () => {
    const { deps, queued } = world({ security: { rate_limit: { requests_per_second: 1, burst: 2 } } });
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await accept(deps, request()));
    expect(results.map((result) => result.accepted)).toEqual([true, true, false]);
    const refused = results[2];
    if (refused?.accepted !== false) throw new Error('not refused');
    expect({ code: refused.error.code, headers: refused.error.headers }).toEqual({
      code: 'RATE_LIMITED',
      headers: { 'retry-after': '1' },
    });
    expect(queued).toHaveLength(2);
  });

  it('takes a GitHub signature instead of a bearer token, and says which check failed', async () => {
    const { deps } = world({
      security: {
        auth_mode: 'signature',
        signature: { scheme: 'github', header: null, encoding: null, tolerance_seconds: null, secrets: [] },
      },
    });
    const body = Buffer.from('{"action":"opened"}');
    const signature = `sha256=${createHmac('sha256', 'signing-secret').update(body).digest('hex')}`;
    const signed = request({ body, headers: { authorization: '', 'x-hub-signature-256': signature } });
    expect(await outcomeOf({ ...deps, maxBodyBytes: 1024 }, signed)).toEqual({ accepted: true });
    const outcomes = [];
    for (const headers of [
      {},
      { 'x-hub-signature-256': `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}` },
    ] as Record<string, string>[]) {
      const outcome = await accept(
        { ...deps, maxBodyBytes: 1024 },
        request({ body, headers: { authorization: '', ...headers } }),
      );
      outcomes.push(outcome.accepted ? 'accepted' : `${outcome.error.code} ${outcome.error.details?.[0]?.message}`);
    }
    expect(outcomes).toEqual(['UNAUTHORIZED MISSING_SIGNATURE', 'UNAUTHORIZED INVALID_SIGNATURE']);
  });

  it('refuses with 503 and keeps nothing when its time is up before the envelope is queued', async () => {
    const { deps, queued } = world();
    // 1 s left is all the reserve for the queue call: nothing left to begin it.
    const outcome = await accept(deps, request({ timeLeftMs: 1000 }));
    expect(outcome.accepted ? 'accepted' : { code: outcome.error.code, headers: outcome.error.headers }).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'retry-after': '1' },
    });
    expect(queued).toEqual([]);
    expect(await outcomeOf(deps, request({ timeLeftMs: 1000 }))).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
    });
  });

  it('gives the queue the time left less the reserve, its call all but the last 100 ms, and takes its refusal back from the count', async () => {
    const { deps } = world();
    const deadlines: ({ queueBy: number; answerBy: number } | undefined)[] = [];
    const withdrawn: string[] = [];
    const refusing: IngestDeps = {
      ...deps,
      enqueue: async (_, __, deadline) => {
        deadlines.push(deadline);
        throw new DomainError('SERVICE_UNAVAILABLE', 'not queued in time');
      },
      withdrawAccepted: (sourceId) => void withdrawn.push(sourceId),
    };
    const before = Date.now();
    expect(await outcomeOf(refusing, request({ timeLeftMs: 5000 }))).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      recordedFor: '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41',
    });
    const after = Date.now();
    const { queueBy = 0, answerBy = 0 } = deadlines[0] ?? {};
    expect(queueBy >= before + 4000 && queueBy <= after + 4000).toBe(true);
    expect(answerBy - queueBy).toBe(900);
    expect(withdrawn).toEqual(['5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41']);
  });
});

describe('acceptIngest at the end of its time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers its refusal by the request’s last 100 ms while the table that keeps refusals has not answered', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-12-05T12:00:00Z') });
    const { deps, queued } = world();
    const kept: string[] = [];
    const stalled: IngestDeps = {
      ...deps,
      // The queue refuses the envelope (not handed over in time), and the table is as slow as the queue was.
      enqueue: async () => {
        throw new DomainError('SERVICE_UNAVAILABLE', 'not queued in time');
      },
      recordRejection: (sourceId) => {
        kept.push(sourceId);
        return new Promise<void>(() => undefined);
      },
    };
    let settled: unknown = 'pending';
    void acceptIngest(stalled, request({ timeLeftMs: 5000 })).then(
      () => (settled = 'accepted'),
      (error: DomainError) => (settled = error.code),
    );
    await vi.advanceTimersByTimeAsync(4899);
    expect(settled).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect({ settled, kept, queued: queued.length }).toEqual({
      settled: 'SERVICE_UNAVAILABLE',
      kept: ['5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41'],
      queued: 0,
    });
  });
});
