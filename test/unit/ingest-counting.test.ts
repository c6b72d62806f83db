/**
 * What the ingest use case counts and keeps, through in-memory ports: every answer counted once per
 * source, a receipt on every queued envelope, a refusal of a known source kept for its tenant, and a
 * count taken back when the envelope could not be queued.
 */
import { describe, expect, it } from 'vitest';
import type { Source } from '#shared/domain/connections/model.ts';
import { defaultSecurity } from '#shared/domain/connections/security.ts';
import { acceptIngest, type IngestDeps, type IngestRequest } from '#shared/domain/ingest/accept.ts';
import type { EnvelopeMessage, Receipt } from '#shared/domain/ingest/envelope.ts';
import type { Rejection } from '#shared/domain/ingest/kept-records.ts';
import { hashToken } from '#shared/domain/tokens.ts';
import { tenantRecord } from '../support/memory.ts';

const source: Source = {
  source_id: '5d3c2b1a-0000-4000-8000-0000000000a1',
  connection_id: 'con-1',
  tenant_id: '5d3c2b1a-0000-4000-8000-000000000001',
  data_set_id: '5d3c2b1a-0000-4000-8000-000000000002',
  token_hash: hashToken('trb_ing_right'),
  source_status: 'Active',
  connection_status: 'Active',
  security: defaultSecurity,
};

const tenant = tenantRecord({ tenant_id: source.tenant_id, default_object_store_id: 'store-1' });

function memory(options: { queueFails?: boolean; firstMessageId?: string; dedup?: boolean } = {}) {
  const state = {
    queued: [] as EnvelopeMessage[],
    accepted: [] as [string, boolean][],
    withdrawn: [] as [string, boolean][],
    refused: [] as [string, number, string][],
    rejections: [] as [string, Rejection][],
  };
  let total = 0;
  const deps: IngestDeps = {
    findSource: async (id) =>
      id === source.source_id
        ? { ...source, security: { ...source.security, dedup_window_seconds: options.dedup ? 60 : 0 } }
        : null,
    findTenant: async () => tenant,
    signingSecrets: async () => [],
    takeRateToken: async () => ({ allowed: true, retryAfterSeconds: 0 }),
    claimDedupKey: async (_source, _key, messageId) => options.firstMessageId ?? messageId,
    releaseDedupKey: async () => undefined,
    enqueue: async (envelope) => {
      if (options.queueFails) throw new Error('queue unavailable');
      state.queued.push(envelope);
    },
    maxBodyBytes: 1024,
    countAccepted: (sourceId, duplicate): Receipt => {
      state.accepted.push([sourceId, duplicate]);
      total++;
      return { epoch: 'e1', accepted: total, duplicates: duplicate ? 1 : 0 };
    },
    withdrawAccepted: (sourceId, duplicate) => state.withdrawn.push([sourceId, duplicate]),
    countRefused: (sourceId, status, code) => state.refused.push([sourceId, status, code]),
    recordRejection: async (sourceId, rejection) => {
      state.rejections.push([sourceId, rejection]);
    },
    statusOf: (code) => ({ UNAUTHORIZED: 401, NOT_FOUND: 404, PAYLOAD_TOO_LARGE: 413 })[code as string] ?? 500,
  };
  return { deps, state };
}

function request(overrides: Partial<IngestRequest> & { headers?: Record<string, string> } = {}): IngestRequest {
  const headers: Record<string, string> = {
    authorization: 'Bearer trb_ing_right',
    'content-type': 'application/json',
    'x-trace': 'kept',
    ...overrides.headers,
  };
  return {
    sourceId: source.source_id,
    feed: undefined,
    sourceIp: '192.0.2.1',
    body: Buffer.from('{"a":1}'),
    ...overrides,
    headers,
    header: (name) => headers[name],
  };
}

describe('accepting a webhook', () => {
  it('counts the 202 and queues the envelope with its receipt', async () => {
    const { deps, state } = memory();
    const answer = await acceptIngest(deps, request());
    expect(answer.sourceId).toBe('5d3c2b1a-0000-4000-8000-0000000000a1');
    expect(state.accepted).toEqual([['5d3c2b1a-0000-4000-8000-0000000000a1', false]]);
    expect(state.queued).toHaveLength(1);
    expect(state.queued[0]).toMatchObject({
      message_id: answer.kind === 'accepted' ? answer.messageId : 'a handshake',
      source_id: '5d3c2b1a-0000-4000-8000-0000000000a1',
      receipt: { epoch: 'e1', accepted: 1, duplicates: 0 },
    });
    expect(state.refused).toEqual([]);
    expect(state.withdrawn).toEqual([]);
  });

  it('counts a repeat inside the deduplication window as a duplicate under the first message id', async () => {
    const first = '11111111-1111-4111-8111-111111111111';
    const { deps, state } = memory({ dedup: true, firstMessageId: first });
    const answer = await acceptIngest(deps, request({ headers: { 'webhook-id': 'evt_1' } }));
    expect(answer).toMatchObject({ kind: 'accepted', messageId: first });
    expect(state.accepted).toEqual([['5d3c2b1a-0000-4000-8000-0000000000a1', true]]);
    expect(state.queued[0]?.receipt).toEqual({ epoch: 'e1', accepted: 1, duplicates: 1 });
  });

  it('takes the count back when the envelope cannot be queued, and fails the request', async () => {
    const { deps, state } = memory({ queueFails: true });
    await expect(acceptIngest(deps, request())).rejects.toThrow('queue unavailable');
    expect(state.accepted).toEqual([['5d3c2b1a-0000-4000-8000-0000000000a1', false]]);
    expect(state.withdrawn).toEqual([['5d3c2b1a-0000-4000-8000-0000000000a1', false]]);
    expect(state.refused).toEqual([]);
  });

  it('counts and keeps a refusal of a known source, without credentials', async () => {
    const { deps, state } = memory();
    await expect(
      acceptIngest(deps, request({ headers: { authorization: 'Bearer trb_ing_wrong', cookie: 'c=1' } })),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(state.refused).toEqual([['5d3c2b1a-0000-4000-8000-0000000000a1', 401, 'UNAUTHORIZED']]);
    expect(state.rejections).toHaveLength(1);
    const [sourceId, rejection] = state.rejections[0] as [string, Rejection];
    expect(sourceId).toBe('5d3c2b1a-0000-4000-8000-0000000000a1');
    expect(rejection).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
      content_type: 'application/json',
      payload_size: 7,
      headers: { 'content-type': 'application/json', 'x-trace': 'kept' },
    });
    expect(state.accepted).toEqual([]);
    expect(state.queued).toEqual([]);
  });

  it('counts a request for an unknown source under "unknown" and keeps nothing for anyone', async () => {
    const { deps, state } = memory();
    await expect(acceptIngest(deps, request({ sourceId: 'nope' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(state.refused).toEqual([['unknown', 404, 'NOT_FOUND']]);
    expect(state.rejections).toEqual([]);
  });

  it('refuses a body over the limit as 413, counted and kept', async () => {
    const { deps, state } = memory();
    await expect(acceptIngest(deps, request({ body: Buffer.alloc(1025) }))).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(state.refused).toEqual([['5d3c2b1a-0000-4000-8000-0000000000a1', 413, 'PAYLOAD_TOO_LARGE']]);
    expect(state.rejections.map(([, rejection]) => rejection.payload_size)).toEqual([1025]);
  });
});
