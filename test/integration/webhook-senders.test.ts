/**
 * Webhook senders as they really are: signed with the senders' own libraries (Standard Webhooks,
 * GitHub's @octokit/webhooks-methods, Stripe's SDK), refused when anything is off, deduplicated,
 * rate limited and address-filtered per source.
 */
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import twilio from 'twilio';
import { describe, expect, inject, it } from 'vitest';
import { apiClient, rawRequest } from '../support/api.ts';
import { readEnvelopeTable } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';
import { createWebhook, type Webhook, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const adminKey = inject('adminKey');
const stripe = new Stripe('sk_test_tributary');

interface Security {
  auth_mode: string;
  signature: Record<string, unknown> | null;
  dedup_window_seconds: number;
  rate_limit: { requests_per_second: number; burst: number } | null;
  ip_allowlist: string[] | null;
  signing_secret?: string;
}

const none = { dedup_window_seconds: 0, rate_limit: null, ip_allowlist: null };

async function secure(hook: Webhook, settings: Record<string, unknown>): Promise<Security> {
  const response = await api.put<Security>(`/api/connections/${hook.connectionId}/security`, {
    json: { ...none, ...settings },
  });
  expect(response.status, response.text).toBe(200);
  expect(
    Object.keys(response.body)
      .filter((key) => key !== 'signing_secret')
      .sort(),
  ).toEqual(['auth_mode', 'dedup_key', 'dedup_window_seconds', 'ip_allowlist', 'rate_limit', 'signature']);
  return response.body;
}

/** Sends without a bearer token unless one is given; the body goes as raw bytes. */
function post(hook: Webhook, body: string | Buffer, headers: Record<string, string> = {}, localAddress?: string) {
  return rawRequest(
    api.baseUrl,
    'POST',
    `/api/ingest/${hook.sourceId}`,
    { 'content-type': 'application/json', ...headers },
    body,
    localAddress,
  );
}

function flip(body: string): string {
  return body.replace('"', "'");
}

async function lastRejection(hook: Webhook) {
  const listed = await api.get<{ rejections: { status: number; code: string; headers: Record<string, string> }[] }>(
    `/api/connections/${hook.connectionId}/rejections`,
  );
  return listed.body.rejections[0];
}

describe('Standard Webhooks', () => {
  it('accepts what the standardwebhooks library signs and refuses a flipped byte, a wrong secret, a stale timestamp and a missing header', async () => {
    const hook = await createWebhook(api);
    const settings = await secure(hook, { auth_mode: 'signature', signature: { scheme: 'standard-webhooks' } });
    expect(settings.signing_secret).toMatch(/^whsec_/);
    const sender = new StandardWebhook(settings.signing_secret as string);
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1' } });
    const signed = (id: string, at: Date, signer = sender, payload = body) => ({
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(id, at, payload),
    });

    expect((await post(hook, body, signed('msg_1', new Date()))).status).toBe(202);
    const checks: [string, { status: number; text: string }, string][] = [
      ['flipped byte', await post(hook, flip(body), signed('msg_2', new Date())), 'INVALID_SIGNATURE'],
      [
        'wrong secret',
        await post(
          hook,
          body,
          signed(
            'msg_3',
            new Date(),
            new StandardWebhook(`whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`),
          ),
        ),
        'INVALID_SIGNATURE',
      ],
      [
        'stale timestamp',
        await post(hook, body, signed('msg_4', new Date(Date.now() - 10 * 60_000))),
        'STALE_TIMESTAMP',
      ],
      [
        'timestamp from the future',
        await post(hook, body, signed('msg_5', new Date(Date.now() + 10 * 60_000))),
        'STALE_TIMESTAMP',
      ],
      [
        'missing header',
        await post(hook, body, { 'webhook-id': 'msg_6', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) }),
        'MISSING_SIGNATURE',
      ],
    ];
    for (const [label, response, detail] of checks) {
      expect({ label, status: response.status }).toEqual({ label, status: 401 });
      expect(JSON.parse(response.text)).toMatchObject({
        code: 'UNAUTHORIZED',
        details: [{ path: 'signature', message: detail }],
      });
    }
    const rejections = (
      await api.get<{ rejections: { status: number; code: string; headers: Record<string, string> }[] }>(
        `/api/connections/${hook.connectionId}/rejections`,
      )
    ).body.rejections;
    expect(rejections.map((rejection) => [rejection.status, rejection.code])).toEqual(
      Array.from({ length: 5 }, () => [401, 'UNAUTHORIZED']),
    );
    expect(
      rejections.every(
        (rejection) =>
          rejection.headers['webhook-signature'] === undefined && rejection.headers['webhook-id'] !== undefined,
      ),
    ).toBe(true);
  });

  it('accepts the old and the new secret during the grace period after a rotation, then only the new', async () => {
    const hook = await createWebhook(api);
    const settings = await secure(hook, { auth_mode: 'signature', signature: { scheme: 'standard-webhooks' } });
    const old = new StandardWebhook(settings.signing_secret as string);
    const rotated = await api.post<{ signing_secret: string }>(
      `/api/connections/${hook.connectionId}/rotate-signing-secret`,
      { json: {} },
    );
    expect(rotated.status).toBe(200);
    const fresh = new StandardWebhook(rotated.body.signing_secret);
    const send = (signer: StandardWebhook, id: string) => {
      const at = new Date();
      return post(hook, '{}', {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signer.sign(id, at, '{}'),
      });
    };
    expect((await send(old, 'a')).status).toBe(202);
    expect((await send(fresh, 'b')).status).toBe(202);

    const immediate = await api.post<{ signing_secret: string }>(
      `/api/connections/${hook.connectionId}/rotate-signing-secret`,
      { json: { grace_seconds: 0 } },
    );
    const newest = new StandardWebhook(immediate.body.signing_secret);
    expect((await send(fresh, 'c')).status).toBe(401);
    expect((await send(newest, 'd')).status).toBe(202);
    const view = await api.get<Security>(`/api/connections/${hook.connectionId}/security`);
    expect(view.text).not.toContain(immediate.body.signing_secret);
    expect(view.body.signing_secret).toBeUndefined();
  });
});

describe('GitHub', () => {
  it('accepts what @octokit/webhooks-methods signs and refuses a flipped byte, a wrong secret and a missing header', async () => {
    const hook = await createWebhook(api);
    const secret = 'github-webhook-secret-of-some-length';
    await secure(hook, { auth_mode: 'signature', signature: { scheme: 'github', secret } });
    const body = JSON.stringify({ action: 'opened', number: 1 });
    expect(
      (
        await post(hook, body, {
          'x-github-event': 'pull_request',
          'x-hub-signature-256': await githubSign(secret, body),
        })
      ).status,
    ).toBe(202);
    expect((await post(hook, flip(body), { 'x-hub-signature-256': await githubSign(secret, body) })).status).toBe(401);
    expect(
      (await post(hook, body, { 'x-hub-signature-256': await githubSign('not-the-secret-at-all-xx', body) })).status,
    ).toBe(401);
    expect((await post(hook, body)).status).toBe(401);
    expect(await lastRejection(hook)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('Stripe', () => {
  it('accepts what the Stripe SDK signs and refuses a flipped byte, a wrong secret, a stale timestamp and a missing header', async () => {
    const hook = await createWebhook(api);
    const secret = 'whsec_stripe_test_secret_value';
    await secure(hook, { auth_mode: 'signature', signature: { scheme: 'stripe', secret, tolerance_seconds: 120 } });
    const body = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded' });
    const header = (payload: string, key = secret, timestamp = Math.floor(Date.now() / 1000)) =>
      stripe.webhooks.generateTestHeaderString({ payload, secret: key, timestamp });
    expect((await post(hook, body, { 'stripe-signature': header(body) })).status).toBe(202);
    expect((await post(hook, flip(body), { 'stripe-signature': header(body) })).status).toBe(401);
    expect((await post(hook, body, { 'stripe-signature': header(body, 'whsec_some_other_secret') })).status).toBe(401);
    const stale = await post(hook, body, {
      'stripe-signature': header(body, secret, Math.floor(Date.now() / 1000) - 300),
    });
    expect(JSON.parse(stale.text)).toMatchObject({ code: 'UNAUTHORIZED', details: [{ message: 'STALE_TIMESTAMP' }] });
    expect((await post(hook, body)).status).toBe(401);
  });
});

describe('generic HMAC-SHA256 and combined modes', () => {
  it('verifies a configured header in base64, and with bearer_and_signature needs both', async () => {
    const hook = await createWebhook(api);
    const secret = 'generic-hmac-secret-value';
    await secure(hook, {
      auth_mode: 'bearer_and_signature',
      signature: { scheme: 'hmac-sha256', secret, header: 'X-Acme-Signature', encoding: 'base64' },
    });
    const body = '<order id="1"/>';
    const signature = createHmac('sha256', secret).update(body).digest('base64');
    const bearer = { authorization: `Bearer ${hook.token}` };
    expect((await post(hook, body, { ...bearer, 'x-acme-signature': signature })).status).toBe(202);
    expect((await post(hook, body, { 'x-acme-signature': signature })).status).toBe(401);
    expect((await post(hook, body, bearer)).status).toBe(401);
    expect(
      (
        await post(hook, body, {
          ...bearer,
          'x-acme-signature': createHmac('sha256', secret).update(body).digest('hex'),
        })
      ).status,
    ).toBe(401);
  });

  it('refuses settings that cannot work with 400, and keeps the previous ones', async () => {
    const hook = await createWebhook(api);
    const before = (await api.get(`/api/connections/${hook.connectionId}/security`)).text;
    for (const settings of [
      { auth_mode: 'signature', signature: null },
      { auth_mode: 'signature', signature: { scheme: 'acme-sig' } },
      { auth_mode: 'signature', signature: { scheme: 'github', header: 'x-sig' } },
      { auth_mode: 'signature', signature: { scheme: 'github', tolerance_seconds: 10 } },
      { auth_mode: 'bearer', signature: null, ip_allowlist: ['10.0.0.0/33'] },
      { auth_mode: 'bearer', signature: null, ip_allowlist: ['example.com'] },
      { auth_mode: 'bearer', signature: null, rate_limit: { requests_per_second: 0, burst: 1 } },
      { auth_mode: 'bearer', signature: null, dedup_window_seconds: -1 },
    ]) {
      const response = await api.put(`/api/connections/${hook.connectionId}/security`, {
        json: { ...none, ...settings },
      });
      expect({ settings, status: response.status }).toEqual({ settings, status: 400 });
    }
    expect((await api.get(`/api/connections/${hook.connectionId}/security`)).text).toBe(before);
    expect((await api.post(`/api/connections/${hook.connectionId}/rotate-signing-secret`, { json: {} })).status).toBe(
      409,
    );
  });
});

describe('deduplication', () => {
  it('answers 20 parallel copies of one webhook-id with the first message id, and writes one row', async () => {
    const hook = await createWebhook(api);
    await secure(hook, { auth_mode: 'bearer', signature: null, dedup_window_seconds: 300 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        post(hook, '{"same":"event"}', { authorization: `Bearer ${hook.token}`, 'webhook-id': 'evt_same' }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 202));
    const ids = new Set(responses.map((response) => (JSON.parse(response.text) as { message_id: string }).message_id));
    expect(ids.size).toBe(1);
    const other = await post(hook, '{"other":1}', {
      authorization: `Bearer ${hook.token}`,
      'idempotency-key': 'key-2',
    });
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 2));
    expect(table.rows.map((row) => row.message_id).sort()).toEqual(
      [...ids, (JSON.parse(other.text) as { message_id: string }).message_id].sort(),
    );
  });
  // A key taken over once its window has passed: test/integration/ingest-guards.test.ts, with the clock handed in.
});

describe('rate limits and allowlists', () => {
  it('lets a burst through, then answers 429 with Retry-After', async () => {
    const hook = await createWebhook(api);
    // One request a minute: the five requests below fit inside the minute the burst leaves, however busy the machine.
    await secure(hook, {
      auth_mode: 'bearer',
      signature: null,
      rate_limit: { requests_per_second: 1 / 60, burst: 3 },
    });
    const bearer = { authorization: `Bearer ${hook.token}` };
    const statuses: number[] = [];
    let retryAfter: string | string[] | undefined;
    for (let i = 0; i < 5; i++) {
      const response = await post(hook, '{}', bearer);
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers['retry-after'];
    }
    expect(statuses.slice(0, 3)).toEqual([202, 202, 202]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await lastRejection(hook)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    // The allowance refilling after Retry-After: test/integration/ingest-guards.test.ts, with the clock handed in.
  });

  it('accepts only addresses inside the allowlist, at its edges', async () => {
    const hook = await createWebhook(api);
    await secure(hook, { auth_mode: 'bearer', signature: null, ip_allowlist: ['127.0.0.2/31', '::1/128'] });
    const bearer = { authorization: `Bearer ${hook.token}` };
    expect((await post(hook, '{}', bearer, '127.0.0.1')).status).toBe(403);
    expect((await post(hook, '{}', bearer, '127.0.0.2')).status).toBe(202);
    expect((await post(hook, '{}', bearer, '127.0.0.3')).status).toBe(202);
    expect((await post(hook, '{}', bearer, '127.0.0.4')).status).toBe(403);
    expect(await lastRejection(hook)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('keeps a bearer-only source exactly as before: no token 401, token 202', async () => {
    const hook = await createWebhook(api);
    const view = await api.get(`/api/connections/${hook.connectionId}/security`, { key: adminKey });
    expect(view.body).toEqual({
      auth_mode: 'bearer',
      signature: null,
      dedup_window_seconds: 0,
      dedup_key: null,
      rate_limit: null,
      ip_allowlist: null,
    });
    expect((await post(hook, '{}')).status).toBe(401);
    expect((await post(hook, '{}', { authorization: `Bearer ${hook.token}` })).status).toBe(202);
  });
});

describe('provider presets through the running service', () => {
  it('answers Meta’s GET handshake with the challenge as text/plain, refuses a wrong verify token, and 404s any other GET', async () => {
    const hook = await createWebhook(api);
    const settings = await secure(hook, {
      auth_mode: 'signature',
      signature: { scheme: 'meta', secret: 'meta-app-secret-0123456789abcdef', verify_token: 'tributary-verify' },
    });
    expect(settings.signature).toMatchObject({ scheme: 'meta', verify_token_set: true, public_key: null });
    const path = `/api/ingest/${hook.sourceId}`;
    const answered = await api.get(
      `${path}?hub.mode=subscribe&hub.verify_token=tributary-verify&hub.challenge=1158201444`,
      {
        key: null,
      },
    );
    expect([answered.status, answered.headers.get('content-type'), answered.text]).toEqual([
      200,
      'text/plain',
      '1158201444',
    ]);
    const wrong = await api.get(`${path}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1`, { key: null });
    expect([wrong.status, (wrong.body as { code: string }).code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await api.get(path, { key: null })).status).toBe(404);
    expect((await api.get(`/api/ingest/${crypto.randomUUID()}?hub.mode=subscribe`, { key: null })).status).toBe(401);
  });

  it('answers Slack’s signed url_verification with its challenge, stores no event, and takes the signed events after it', async () => {
    const hook = await createWebhook(api);
    const secret = 'slack-signing-secret-0123456789ab';
    await secure(hook, { auth_mode: 'signature', signature: { scheme: 'slack', secret } });
    const signed = (body: string) => {
      const at = String(Math.floor(Date.now() / 1000));
      return {
        'content-type': 'application/json',
        'x-slack-request-timestamp': at,
        'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${at}:${body}`).digest('hex')}`,
      };
    };
    const verification = JSON.stringify({ token: 't', challenge: 'c-3eZbrw1aBm2rZgRNFdxV', type: 'url_verification' });
    const path = `/api/ingest/${hook.sourceId}`;
    const answered = await api.post(path, { key: null, raw: verification, headers: signed(verification) });
    expect([answered.status, answered.body]).toEqual([200, { challenge: 'c-3eZbrw1aBm2rZgRNFdxV' }]);
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev0PV52K25', event: { type: 'app_mention' } });
    expect((await api.post(path, { key: null, raw: event, headers: signed(event) })).status).toBe(202);
    expect(
      (await api.post(path, { key: null, raw: event, headers: { 'content-type': 'application/json' } })).status,
    ).toBe(401);
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 1));
    expect(table.rows.map((row) => Buffer.from(row.payload as Uint8Array).toString('utf8'))).toEqual([event]);
  });

  it('verifies Twilio’s signature over the ingest URL it was given, with the query string it sent, as the twilio library signs it', async () => {
    const hook = await createWebhook(api);
    const authToken = '12345678901234567890123456789012';
    await secure(hook, { auth_mode: 'signature', signature: { scheme: 'twilio', secret: authToken } });
    const url = `${hook.ingestUrl}?feed=sms`;
    const params = { From: '+15017122661', To: '+15558675310', Body: 'Hello & welcome' };
    const body = new URLSearchParams(params).toString();
    const send = (signature: string, query = '?feed=sms') =>
      api.post(`/api/ingest/${hook.sourceId}${query}`, {
        key: null,
        raw: body,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      });
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    expect((await send(signature)).status).toBe(202);
    expect((await send(signature, '?feed=other')).status).toBe(401);
  });

  it('keeps one row for a Stripe event delivered twice, signed anew: the retry gets the first message id, the stats count one duplicate', async () => {
    const hook = await createWebhook(api);
    const secret = 'whsec_stripe_dedup_integration';
    await secure(hook, { auth_mode: 'signature', signature: { scheme: 'stripe', secret }, dedup_window_seconds: 600 });
    const body = JSON.stringify({ id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy', object: 'event', type: 'invoice.paid' });
    const deliver = (secondsAgo: number) =>
      post(hook, body, {
        'stripe-signature': stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret,
          timestamp: Math.floor(Date.now() / 1000) - secondsAgo,
        }),
      });
    const first = await deliver(30);
    const retry = await deliver(0);
    expect([first.status, retry.status]).toEqual([202, 202]);
    expect(JSON.parse(retry.text)).toEqual(JSON.parse(first.text));
    const table = await readEnvelopeTable(await waitForRows(api, hook.dataSetId, 1));
    expect(table.rows.map((row) => row.message_id)).toEqual([JSON.parse(first.text).message_id]);
    const stats = await pollUntil(
      async () =>
        (
          await api.get<{ accepted: number; duplicates: number; written_rows: number; staged_rows: number }>(
            `/api/connections/${hook.connectionId}/stats`,
          )
        ).body,
      // Until the commit lets its staged records go, a read may find them written and still staged.
      // accepted too: the door's count and the writer's arrive in separate writes.
      (body) => body.accepted === 2 && body.duplicates === 1 && body.written_rows === 1 && body.staged_rows === 0,
      // As long as a commit may wait beside the whole suite (waitForRows): once, the rows were in the
      // table and the written count 30 s behind them.
      { what: 'the stats to count the retry as a duplicate', timeoutMs: 60_000 },
    );
    expect({ accepted: stats.accepted, duplicates: stats.duplicates, written_rows: stats.written_rows }).toEqual({
      accepted: 2,
      duplicates: 1,
      written_rows: 1,
    });
  });
});
