/**
 * A refused ingest request keeps its headers for the tenant to see, but never a signature, a MAC, a
 * signed token or a shared secret: not when it was kept, and not when it is read. Every preset in
 * the table is held to a list of its signature headers written out here by hand from the providers'
 * documentation, so that the rule is not checked against itself.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Source } from '#shared/domain/connections/model.ts';
import { presets, type SignatureScheme } from '#shared/domain/connections/presets.ts';
import { defaultSecurity, type SignatureSettings } from '#shared/domain/connections/security.ts';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import { acceptIngest, type IngestDeps } from '#shared/domain/ingest/accept.ts';
import { safeHeaders } from '#shared/domain/ingest/credential-headers.ts';
import type { Rejection } from '#shared/domain/ingest/kept-records.ts';
import { connectionRejections } from '#shared/domain/monitoring/rejections.ts';
import type { Tenant } from '#shared/domain/tenants/model.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { hashToken } from '#shared/domain/tokens.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { memoryStore, platformAdmin, tenantPrincipal, tenantRecord } from '../support/memory.ts';

/** Where each provider puts its signature, MAC, signed JWT or shared secret (none: it is in the body). */
const signatureHeaders: Record<SignatureScheme, string[]> = {
  'standard-webhooks': ['webhook-signature'],
  github: ['x-hub-signature-256'],
  stripe: ['stripe-signature'],
  'hmac-sha256': ['x-signature'],
  slack: ['x-slack-signature'],
  meta: ['x-hub-signature-256'],
  zoom: ['x-zm-signature'],
  'microsoft-graph': [],
  twilio: ['x-twilio-signature'],
  square: ['x-square-hmacsha256-signature'],
  hubspot: ['x-hubspot-signature-v3'],
  linear: ['linear-signature'],
  paddle: ['paddle-signature'],
  sendgrid: ['x-twilio-email-event-webhook-signature'],
  shopify: ['x-shopify-hmac-sha256'],
  gitlab: ['x-gitlab-token'],
  intercom: ['x-hub-signature'],
  pagerduty: ['x-pagerduty-signature'],
  typeform: ['typeform-signature'],
  calendly: ['calendly-webhook-signature'],
  mailgun: [],
  dropbox: ['x-dropbox-signature'],
  clerk: ['svix-signature'],
  resend: ['svix-signature'],
  svix: ['svix-signature'],
  zendesk: ['x-zendesk-webhook-signature'],
  jira: ['x-hub-signature'],
  bitbucket: ['x-hub-signature'],
  twitch: ['twitch-eventsub-message-signature'],
  discord: ['x-signature-ed25519'],
  woocommerce: ['x-wc-webhook-signature'],
  postmark: ['authorization'],
  mailchimp: ['x-mandrill-signature'],
  airtable: ['x-airtable-content-mac'],
  notion: ['x-notion-signature'],
  vercel: ['x-vercel-signature'],
  sentry: ['sentry-hook-signature'],
  okta: ['authorization'],
  plaid: ['plaid-verification'],
  x: ['x-twitter-webhooks-signature'],
  box: ['box-signature-primary'],
  netlify: ['x-webhook-signature'],
};
const everySignatureHeader = [...new Set(Object.values(signatureHeaders).flat())];

/** Headers with no secret in them, which a rejection keeps: what a sender needs to find its request. */
const harmless = {
  'content-type': 'application/json',
  'user-agent': 'Sender/1.0',
  'x-request-id': 'req-1',
  'x-slack-request-timestamp': '1700000000',
  'webhook-id': 'msg_1',
  'x-machine': 'build-7',
};

const sourceId = '5d3c2b1a-0000-4000-8000-0000000000b2';
const tenantId = '5d3c2b1a-0000-4000-8000-000000000003';

/** The settings of a source of this scheme; its secret is kept as itself (the test's secrets are not sealed). */
function settingsOf(
  scheme: SignatureScheme,
  header: string | null = null,
  secret = 'a-secret-of-thirty-two-characters',
): SignatureSettings {
  return {
    scheme,
    header,
    encoding: null,
    tolerance_seconds: null,
    secrets: [{ sealed: secret, created_at: '2026-01-01T00:00:00.000Z', expires_at: null }],
  };
}

function world(source: Omit<Source, 'source_id' | 'connection_id' | 'tenant_id' | 'data_set_id' | 'token_hash'>) {
  const kept: Rejection[] = [];
  const tenant: Tenant = tenantRecord({ tenant_id: tenantId, default_object_store_id: 'store-1' });
  const stored: Source = {
    source_id: sourceId,
    connection_id: 'con-1',
    tenant_id: tenantId,
    data_set_id: 'ds-1',
    token_hash: hashToken('trb_ing_right'),
    ...source,
  };
  const deps: IngestDeps = {
    findSource: async (id) => (id === sourceId ? stored : null),
    findTenant: async () => tenant,
    signingSecrets: async () => stored.security.signature?.secrets.map((secret) => secret.sealed) ?? [],
    takeRateToken: async () => ({ allowed: true, retryAfterSeconds: 0 }),
    releaseDedupKey: async () => undefined,
    claimDedupKey: async (_source, _key, messageId) => messageId,
    enqueue: async () => undefined,
    maxBodyBytes: 1024,
    countAccepted: () => ({ epoch: 'e1', accepted: 1, duplicates: 0 }),
    withdrawAccepted: () => undefined,
    countRefused: () => undefined,
    recordRejection: async (_id, rejection) => void kept.push(rejection),
    statusOf: (code) => statusOfCode[code],
  };
  return { deps, kept };
}

async function refusedWith(deps: IngestDeps, headers: Record<string, string>, body = '{"a":1}') {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const refusal = await acceptIngest(deps, {
    sourceId,
    header: (name) => lower[name.toLowerCase()],
    headers,
    feed: undefined,
    sourceIp: '192.0.2.1',
    body: Buffer.from(body),
  }).then(
    () => null,
    (error: { code: string }) => error.code,
  );
  return refusal;
}

/** Every signature header any provider uses, each holding a value that must never be kept. */
const signed = Object.fromEntries(everySignatureHeader.map((name) => [name, `secret-of-${name}`]));

describe('the headers a rejection keeps', () => {
  it('lists every preset of the table, so that a new one must say where its signature is', () => {
    expect(Object.keys(signatureHeaders).sort()).toEqual(Object.keys(presets).sort());
  });

  for (const scheme of Object.keys(presets) as SignatureScheme[]) {
    it(`keeps no signature header of a ${scheme} source's refused request, and the harmless ones`, async () => {
      const { deps, kept } = world({
        source_status: 'Active',
        connection_status: 'Active',
        security: { ...defaultSecurity, auth_mode: 'signature', signature: settingsOf(scheme) },
      });
      expect(await refusedWith(deps, { ...harmless, ...signed })).toBe('UNAUTHORIZED');
      expect(kept).toHaveLength(1);
      const headers = kept[0]?.headers ?? {};
      for (const name of [...signatureHeaders[scheme], ...everySignatureHeader])
        expect(headers).not.toHaveProperty(name);
      expect(JSON.stringify(headers)).not.toContain('secret-of-');
      expect(headers).toEqual(harmless);
    });
  }

  it('keeps no connection-chosen signature header of a correctly signed request refused because the source is paused', async () => {
    const secret = 'a-generic-hmac-secret-of-32-chars';
    const body = '{"order":42}';
    const mac = createHmac('sha256', secret).update(body).digest('hex');
    const { deps, kept } = world({
      source_status: 'Paused',
      connection_status: 'Active',
      security: {
        ...defaultSecurity,
        auth_mode: 'signature',
        signature: settingsOf('hmac-sha256', 'X-Payload-Digest', secret),
      },
    });
    expect(await refusedWith(deps, { ...harmless, 'X-Payload-Digest': mac }, body)).toBe('SOURCE_PAUSED');
    expect(kept[0]?.status).toBe(422);
    expect(kept[0]?.headers).toEqual(harmless);
  });

  it('keeps no Shopify HMAC of a correctly signed request refused because the tenant is suspended', async () => {
    const secret = 'shopify-app-secret-0123456789';
    const body = '{"id":7}';
    const { deps, kept } = world({
      source_status: 'Active',
      connection_status: 'Active',
      security: {
        ...defaultSecurity,
        auth_mode: 'signature',
        signature: settingsOf('shopify', null, secret),
      },
    });
    deps.findTenant = async () =>
      tenantRecord({ tenant_id: tenantId, status: 'Suspended', default_object_store_id: 's' });
    const hmac = createHmac('sha256', secret).update(body).digest('base64');
    expect(await refusedWith(deps, { ...harmless, 'X-Shopify-Hmac-Sha256': hmac }, body)).toBe('TENANT_SUSPENDED');
    expect(kept[0]?.headers).toEqual(harmless);
  });

  it('keeps no header any preset signs with, nor any whose name says it is secret, for a source with no signature settings', async () => {
    const { deps, kept } = world({ source_status: 'Active', connection_status: 'Active', security: defaultSecurity });
    const named = {
      'x-mac': 'm',
      'x-sig': 's',
      'x-hmac-sha1': 'h',
      'x-signed-payload': 'p',
      'x-auth-key': 'k',
      'x-api-key': 'k',
      'proxy-authorization': 'Basic eA==',
      'x-client-credential': 'c',
      'x-verification': 'v',
      cookie: 'c=1',
      'x-tributary-origin': 'the edge secret',
    };
    expect(await refusedWith(deps, { ...harmless, ...signed, ...named, authorization: 'Bearer trb_ing_wrong' })).toBe(
      'UNAUTHORIZED',
    );
    expect(kept[0]?.headers).toEqual(harmless);
  });
});

describe('the size of a rejection', () => {
  it('keeps 50 headers at most, their names cut at 100 characters and their values at 256', () => {
    const headers = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`x-${String(i).padStart(2, '0')}-${'n'.repeat(200)}`, 'v'.repeat(1_000)]),
    );
    const kept = safeHeaders(headers, new Set());
    expect(Object.keys(kept)).toHaveLength(50);
    expect(Object.keys(kept)[0]).toBe(`x-00-${'n'.repeat(95)}`);
    expect(Object.values(kept).every((value) => value === 'v'.repeat(256))).toBe(true);
  });
});

describe('the rejections a tenant reads', () => {
  it('shows a rejection kept under an older rule without its signature headers', async () => {
    const store = memoryStore();
    const tenant = await createTenant(store, { name: 'Acme' });
    const { connection } = await createConnection(store, platformAdmin, tenant.tenant_id, {
      type: 'Webhook',
      name: 'h',
    });
    await store.setSourceSecurity(
      connection.source_id,
      { ...defaultSecurity, auth_mode: 'signature', signature: settingsOf('hmac-sha256', 'X-Payload-Digest') },
      new Date(),
    );
    const older: Rejection = {
      at: '2026-11-20T10:00:00.000Z',
      status: 422,
      code: 'SOURCE_PAUSED',
      content_type: 'application/json',
      payload_size: 7,
      headers: {
        ...harmless,
        'x-shopify-hmac-sha256': 'c2hvcGlmeQ==',
        'x-airtable-content-mac': 'hmac-sha256=ab',
        'plaid-verification': 'eyJ.eyJ.sig',
        'x-payload-digest': 'ab12',
      },
    };
    const asked: string[] = [];
    const page = await connectionRejections(
      {
        ...store,
        listRejections: async (id) => {
          asked.push(id);
          return { items: [older], nextCursor: 'next' };
        },
      },
      tenantPrincipal(tenant.tenant_id, 'TenantViewer'),
      connection.connection_id,
      { limit: 10 },
    );
    expect(asked).toEqual([connection.source_id]);
    expect(page).toEqual({ items: [{ ...older, headers: harmless }], nextCursor: 'next' });
  });
});
