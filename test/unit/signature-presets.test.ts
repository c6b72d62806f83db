/**
 * Every signature preset, through the ingest use case's ports: a request signed as the provider
 * signs it is accepted, and the same request with its body, key, time or URL changed is refused with
 * 401. The truth each preset is held to is not our code: the provider's own npm library signs the
 * request where it publishes a signer (Stripe, Twilio, HubSpot, Standard Webhooks, Svix, GitHub's
 * Octokit), and verifies what we accept where it publishes only a verifier (Slack's Bolt, Zoom's
 * Rivet, Square, Linear, Paddle, SendGrid, Shopify, Discord); a literal example from the provider's
 * documentation where there is one (GitHub, Slack); otherwise the request is built in this file, as
 * the provider's documentation writes it out, with Node's crypto and `jose`.
 */
import {
  createHash,
  createHmac,
  sign as cryptoSign,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Signature as HubSpotSignature } from '@hubspot/api-client/lib/src/utils/signature.js';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { Paddle } from '@paddle/paddle-node-sdk';
import sendgridEventWebhook from '@sendgrid/eventwebhook';
import { isValidSlackRequest } from '@slack/bolt';
import { AwsLambdaReceiver } from '@zoom/rivet/users';
import { verifyKey as discordVerifyKey } from 'discord-interactions';
import { exportJWK, SignJWT } from 'jose';
import { WebhooksHelper as SquareWebhooksHelper } from 'square';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import twilio from 'twilio';
import { describe, expect, it, vi } from 'vitest';
import type { Source } from '#shared/domain/connections/model.ts';
import { dedupText, handshakeText } from '#shared/domain/connections/preset-guide.ts';
import { defaultToleranceOf, type Preset, presets, type SignatureScheme } from '#shared/domain/connections/presets.ts';
import {
  applySecurityUpdate,
  defaultSecurity,
  rotateSecret,
  type SecurityUpdate,
} from '#shared/domain/connections/security.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { acceptIngest, type IngestAnswer, type IngestDeps } from '#shared/domain/ingest/accept.ts';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { hashToken } from '#shared/domain/tokens.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { rotateSigningSecretBody } from '#shared/http/schemas/connections.ts';
import { tenantRecord } from '../support/memory.ts';

const sourceId = '5b1c0a52-8f1e-4d3a-9c7b-2e6f1a0d9e41';
const ingestUrl = `https://tributary.example/api/ingest/${sourceId}`;
const stripe = new Stripe('sk_test_tributary');
const { EventWebhook } = sendgridEventWebhook as unknown as {
  EventWebhook: new () => {
    convertPublicKeyToECDSA(key: string): unknown;
    verifySignature(key: unknown, payload: string, signature: string, timestamp: string): boolean;
  };
};

type SignatureSettingsInput = NonNullable<SecurityUpdate['signature']>;

/** A source whose settings went through the same checks as a PUT (secrets "sealed" as themselves). */
async function world(
  scheme: SignatureScheme,
  settings: Omit<SignatureSettingsInput, 'scheme'>,
  extra: Partial<SecurityUpdate> = {},
) {
  const { security } = await applySecurityUpdate(
    defaultSecurity,
    {
      auth_mode: 'signature',
      signature: { scheme, ...settings },
      dedup_window_seconds: 0,
      rate_limit: null,
      ip_allowlist: null,
      ...extra,
    },
    async (secret) => secret,
    new Date(),
  );
  const source: Source = {
    source_id: sourceId,
    connection_id: 'conn-1',
    tenant_id: 'tenant-1',
    data_set_id: 'ds-1',
    token_hash: 'no-token',
    source_status: 'Active',
    connection_status: 'Active',
    security,
    ingest_url: ingestUrl,
  };
  const tenant = tenantRecord({ tenant_id: 'tenant-1', default_object_store_id: 'store-1' });
  const queued: EnvelopeMessage[] = [];
  const counted: boolean[] = [];
  const dedup = new Map<string, string>();
  const deps: IngestDeps = {
    findSource: async (id) => (id === sourceId ? source : null),
    findTenant: async () => tenant,
    signingSecrets: async () => security.signature?.secrets.map((secret) => secret.sealed) ?? [],
    takeRateToken: async () => ({ allowed: true, retryAfterSeconds: 0 }),
    // As the table does: a claim goes only while it still names the message that gives it back.
    releaseDedupKey: async (_, key, messageId) => {
      if (dedup.get(key) === messageId) dedup.delete(key);
    },
    claimDedupKey: async (_, key, messageId) => {
      if (!dedup.has(key)) dedup.set(key, messageId);
      return dedup.get(key) as string;
    },
    enqueue: async (envelope) => void queued.push(envelope),
    maxBodyBytes: 1024 * 1024,
    countAccepted: (_, duplicate) => {
      counted.push(duplicate);
      return { epoch: 'e1', accepted: counted.length, duplicates: counted.filter(Boolean).length };
    },
    withdrawAccepted: () => undefined,
    countRefused: () => undefined,
    recordRejection: async () => undefined,
    statusOf: (code) => statusOfCode[code],
  };
  return { deps, queued, counted, dedup, source, tenant };
}

interface Sent {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
  /** The query string as sent, without `?`. */
  query?: string;
}

type Outcome = { status: number; answer?: IngestAnswer; detail?: string; code?: string };

async function send(deps: IngestDeps, sent: Sent): Promise<Outcome> {
  const headers = Object.fromEntries(Object.entries(sent.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const query = Object.fromEntries(new URLSearchParams(sent.query ?? ''));
  try {
    const answer = await acceptIngest(deps, {
      sourceId,
      method: sent.method ?? 'POST',
      header: (name) => headers[name],
      headers,
      feed: undefined,
      query,
      rawQuery: sent.query ?? '',
      sourceIp: '198.51.100.7',
      body: Buffer.from(sent.body, 'utf8'),
    });
    return { status: answer.kind === 'accepted' ? 202 : answer.answer.status, answer };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { status: statusOfCode[error.code], code: error.code, detail: error.details?.[0]?.message };
  }
}

const hmac = (algorithm: 'sha1' | 'sha256', key: string | Buffer, data: string | Buffer) =>
  createHmac(algorithm, key).update(data);
const unix = (at: Date) => String(Math.floor(at.getTime() / 1000));
const shared = () => randomBytes(24).toString('hex');

/** The key a sender signs with, and what the tenant gives Tributary to check it. */
interface KeyPair {
  signing: string | KeyObject;
  settings: Omit<SignatureSettingsInput, 'scheme'>;
}

interface Sender {
  scheme: SignatureScheme;
  /** What holds the preset to the provider's truth. */
  truth: string;
  key(): KeyPair | Promise<KeyPair>;
  body?(at: Date): string;
  sign(input: { body: string; url: string; at: Date; key: string | KeyObject }): Sent | Promise<Sent>;
  /** The provider's own library, verifying what was sent (where it publishes only a verifier). */
  libraryAccepts?(sent: Sent, key: KeyPair, url: string): boolean | Promise<boolean>;
  /** The body is signed (not so for a shared value in a header, or a signature of other fields). */
  signsBody?: false;
  /** A time is signed: the same request made two hours ago is refused. */
  stamps?: boolean;
  /** The URL is signed: the request signed for another query string is refused. */
  signsUrl?: boolean;
  /** The request without its signature, where the signature is not in a header of its own. */
  unsigned?(sent: Sent): Sent;
  /** Extra settings for the test (a tolerance where the provider's default checks none). */
  settings?: Omit<SignatureSettingsInput, 'scheme'>;
}

const secretKey = (settings: Omit<SignatureSettingsInput, 'scheme'> = {}) => {
  const secret = settings.secret ?? shared();
  return { signing: secret, settings: { ...settings, secret } };
};
const text = (key: string | KeyObject) => key as string;
const jsonBody = (at: Date) => JSON.stringify({ id: 'evt_1', event_id: 'evt_1', type: 'test.event', at: at.getTime() });
const formBody = () => 'To=%2B15558675310&From=%2B15017122661&Body=Hello+world+%26+more&MediaUrl0=b&MediaUrl0=a';

const hexBodySender = (
  scheme: SignatureScheme,
  header: string,
  algorithm: 'sha1' | 'sha256',
  prefix: string,
  truth: string,
): Sender => ({
  scheme,
  truth,
  key: () => secretKey(),
  sign: ({ body, key }) => ({
    headers: { [header]: `${prefix}${hmac(algorithm, text(key), body).digest('hex')}` },
    body,
  }),
});
const base64BodySender = (scheme: SignatureScheme, header: string, prefix: string, truth: string): Sender => ({
  scheme,
  truth,
  key: () => secretKey(),
  sign: ({ body, key }) => ({
    headers: { [header]: `${prefix}${hmac('sha256', text(key), body).digest('base64')}` },
    body,
  }),
});
const svixSender = (scheme: SignatureScheme): Sender => ({
  scheme,
  truth: 'svix (the library signs)',
  stamps: true,
  key: () => secretKey({ secret: `whsec_${randomBytes(24).toString('base64')}` }),
  sign: ({ body, at, key }) => ({
    headers: {
      'svix-id': 'msg_2Lh9KRb0pzN4LePd3XiA4TQ1Cp7',
      'svix-timestamp': unix(at),
      'svix-signature': new SvixWebhook(text(key)).sign('msg_2Lh9KRb0pzN4LePd3XiA4TQ1Cp7', at, body),
    },
    body,
  }),
});

const senders: Sender[] = [
  {
    scheme: 'standard-webhooks',
    truth: 'standardwebhooks (the library signs)',
    stamps: true,
    key: () => {
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      return { signing: secret, settings: { secret } };
    },
    sign: ({ body, at, key }) => ({
      headers: {
        'webhook-id': 'msg_1',
        'webhook-timestamp': unix(at),
        'webhook-signature': new StandardWebhook(text(key)).sign('msg_1', at, body),
      },
      body,
    }),
  },
  {
    scheme: 'github',
    truth: '@octokit/webhooks-methods (the library signs)',
    key: () => secretKey(),
    sign: async ({ body, key }) => ({ headers: { 'x-hub-signature-256': await octokitSign(text(key), body) }, body }),
  },
  {
    scheme: 'stripe',
    truth: 'stripe (the SDK signs)',
    stamps: true,
    key: () => secretKey({ secret: `whsec_${shared()}` }),
    sign: ({ body, at, key }) => ({
      headers: {
        'stripe-signature': stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: text(key),
          timestamp: Math.floor(at.getTime() / 1000),
        }),
      },
      body,
    }),
  },
  {
    scheme: 'hmac-sha256',
    truth: 'the generic scheme, as its settings name it (header X-Acme-Signature, base64)',
    key: () => secretKey({ header: 'X-Acme-Signature', encoding: 'base64' }),
    sign: ({ body, key }) => ({
      headers: { 'x-acme-signature': hmac('sha256', text(key), body).digest('base64') },
      body,
    }),
  },
  {
    scheme: 'slack',
    truth: '@slack/bolt verifies (isValidSlackRequest); the documented example below',
    stamps: true,
    key: () => secretKey(),
    sign: ({ body, at, key }) => ({
      headers: {
        'x-slack-request-timestamp': unix(at),
        'x-slack-signature': `v0=${hmac('sha256', text(key), `v0:${unix(at)}:${body}`).digest('hex')}`,
      },
      body,
    }),
    libraryAccepts: (sent, key) =>
      isValidSlackRequest({
        signingSecret: text(key.signing),
        body: sent.body,
        headers: {
          'x-slack-signature': sent.headers['x-slack-signature'] as string,
          'x-slack-request-timestamp': Number(sent.headers['x-slack-request-timestamp']),
        },
      }),
  },
  {
    scheme: 'meta',
    truth: 'X-Hub-Signature-256 as GitHub signs it: @octokit/webhooks-methods verifies',
    key: () => secretKey({ verify_token: 'my-verify-token' }),
    sign: ({ body, key }) => ({
      headers: { 'x-hub-signature-256': `sha256=${hmac('sha256', text(key), body).digest('hex')}` },
      body,
    }),
    libraryAccepts: (sent, key) =>
      octokitVerify(text(key.signing), sent.body, sent.headers['x-hub-signature-256'] as string),
  },
  {
    scheme: 'zoom',
    truth: '@zoom/rivet verifies (its AWS Lambda receiver)',
    stamps: true,
    key: () => secretKey(),
    body: (at) => JSON.stringify({ event: 'meeting.started', event_ts: at.getTime(), payload: { account_id: 'a1' } }),
    sign: ({ body, at, key }) => ({
      headers: {
        'x-zm-request-timestamp': unix(at),
        'x-zm-signature': `v0=${hmac('sha256', text(key), `v0:${unix(at)}:${body}`).digest('hex')}`,
      },
      body,
    }),
    libraryAccepts: async (sent, key) =>
      zoomAnswer(sent, text(key.signing)).then((answer) => answer.statusCode === 200),
  },
  {
    scheme: 'microsoft-graph',
    truth: 'the clientState of every notification, as Microsoft Graph documents it',
    signsBody: false,
    unsigned: (sent) => ({ ...sent, body: sent.body.replace(/"clientState":"[^"]*",/, '') }),
    key: () => secretKey(),
    body: () => '{"value":[]}',
    sign: ({ key }) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        value: [
          { subscriptionId: 's1', clientState: text(key), changeType: 'created', resource: 'Users/1' },
          { subscriptionId: 's1', clientState: text(key), changeType: 'updated', resource: 'Users/2' },
        ],
      }),
    }),
  },
  {
    scheme: 'twilio',
    truth: 'twilio (getExpectedTwilioSignature signs, validateRequest agrees)',
    signsUrl: true,
    key: () => secretKey({ secret: randomBytes(16).toString('hex') }),
    body: formBody,
    sign: ({ body, url, key }) => ({
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(text(key), url, formParams(body)),
      },
      body,
      query: queryOf(url),
    }),
    libraryAccepts: (sent, key, url) =>
      twilio.validateRequest(
        text(key.signing),
        sent.headers['x-twilio-signature'] as string,
        url,
        formParams(sent.body),
      ),
  },
  {
    scheme: 'square',
    truth: 'square verifies (WebhooksHelper.verifySignature)',
    signsUrl: true,
    key: () => secretKey(),
    sign: ({ body, url, key }) => ({
      headers: { 'x-square-hmacsha256-signature': hmac('sha256', text(key), url + body).digest('base64') },
      body,
      query: queryOf(url),
    }),
    libraryAccepts: (sent, key, url) =>
      SquareWebhooksHelper.verifySignature({
        requestBody: sent.body,
        signatureHeader: sent.headers['x-square-hmacsha256-signature'] as string,
        signatureKey: text(key.signing),
        notificationUrl: url,
      }),
  },
  {
    scheme: 'hubspot',
    truth: '@hubspot/api-client (Signature.getSignature signs v3)',
    stamps: true,
    signsUrl: true,
    key: () => secretKey(),
    sign: ({ body, url, at, key }) => ({
      headers: {
        'x-hubspot-request-timestamp': String(at.getTime()),
        'x-hubspot-signature-v3': HubSpotSignature.getSignature('POST', 'v3', {
          signature: '',
          clientSecret: text(key),
          requestBody: body,
          url,
          timestamp: at.getTime(),
        }),
      },
      body,
      query: queryOf(url),
    }),
  },
  {
    scheme: 'linear',
    truth: '@linear/sdk verifies (LinearWebhookClient.verify, which also checks webhookTimestamp)',
    stamps: true,
    key: () => secretKey(),
    body: (at) => JSON.stringify({ action: 'create', type: 'Issue', webhookTimestamp: at.getTime() }),
    sign: ({ body, key }) => ({ headers: { 'linear-signature': hmac('sha256', text(key), body).digest('hex') }, body }),
    libraryAccepts: (sent, key) => {
      try {
        return new LinearWebhookClient(text(key.signing)).verify(
          Buffer.from(sent.body),
          sent.headers['linear-signature'] as string,
        );
      } catch {
        return false;
      }
    },
  },
  {
    scheme: 'paddle',
    truth: '@paddle/paddle-node-sdk verifies (webhooks.isSignatureValid)',
    stamps: true,
    key: () => secretKey({ secret: `pdl_ntfset_${shared()}` }),
    sign: ({ body, at, key }) => ({
      headers: {
        'paddle-signature': `ts=${unix(at)};h1=${hmac('sha256', text(key), `${unix(at)}:${body}`).digest('hex')}`,
      },
      body,
    }),
    libraryAccepts: (sent, key) =>
      new Paddle('pdl_sdbx_apikey_tributarytest').webhooks.isSignatureValid(
        sent.body,
        text(key.signing),
        sent.headers['paddle-signature'] as string,
      ),
  },
  {
    scheme: 'sendgrid',
    truth: '@sendgrid/eventwebhook verifies (EventWebhook.verifySignature)',
    stamps: true,
    settings: { tolerance_seconds: 300 },
    key: () => {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      return {
        signing: privateKey,
        settings: {
          public_key: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
          tolerance_seconds: 300,
        },
      };
    },
    body: () => '[{"email":"a@example.com","event":"delivered","sg_event_id":"sg1"}]\r\n',
    sign: ({ body, at, key }) => ({
      headers: {
        'x-twilio-email-event-webhook-timestamp': unix(at),
        'x-twilio-email-event-webhook-signature': cryptoSign(
          'sha256',
          Buffer.from(unix(at) + body),
          key as KeyObject,
        ).toString('base64'),
      },
      body,
    }),
    libraryAccepts: (sent, key) => {
      const webhook = new EventWebhook();
      return webhook.verifySignature(
        webhook.convertPublicKeyToECDSA(key.settings.public_key as string),
        sent.body,
        sent.headers['x-twilio-email-event-webhook-signature'] as string,
        sent.headers['x-twilio-email-event-webhook-timestamp'] as string,
      );
    },
  },
  {
    ...base64BodySender(
      'shopify',
      'x-shopify-hmac-sha256',
      '',
      'base64 HMAC-SHA256 of the body, as Shopify documents it',
    ),
    libraryAccepts: (sent, key) => shopifyAccepts(sent, text(key.signing)),
    truth: '@shopify/shopify-api verifies (webhooks.validate)',
  },
  {
    scheme: 'gitlab',
    truth: 'X-Gitlab-Token carries the secret token as is (GitLab’s documentation)',
    signsBody: false,
    key: () => secretKey(),
    sign: ({ body, key }) => ({ headers: { 'x-gitlab-token': text(key) }, body }),
  },
  hexBodySender(
    'intercom',
    'x-hub-signature',
    'sha1',
    'sha1=',
    'X-Hub-Signature: sha1= hex HMAC-SHA1 of the body (Intercom’s documentation)',
  ),
  {
    scheme: 'pagerduty',
    truth: 'X-PagerDuty-Signature: v1= hex, comma-separated during rotation (PagerDuty’s documentation)',
    key: () => secretKey(),
    sign: ({ body, key }) => ({
      headers: {
        'x-pagerduty-signature': `v1=${hmac('sha256', 'an-older-secret-being-rotated', body).digest('hex')},v1=${hmac('sha256', text(key), body).digest('hex')}`,
      },
      body,
    }),
  },
  base64BodySender(
    'typeform',
    'typeform-signature',
    'sha256=',
    'Typeform-Signature: sha256= base64 (Typeform’s documentation)',
  ),
  {
    scheme: 'calendly',
    truth: 'Calendly-Webhook-Signature: t=…,v1=hex of "t.body" (Calendly’s documentation)',
    stamps: true,
    key: () => secretKey(),
    sign: ({ body, at, key }) => ({
      headers: {
        'calendly-webhook-signature': `t=${unix(at)},v1=${hmac('sha256', text(key), `${unix(at)}.${body}`).digest('hex')}`,
      },
      body,
    }),
  },
  {
    scheme: 'mailgun',
    truth: 'hex HMAC-SHA256 of timestamp + token, in the body’s signature object (Mailgun’s documentation)',
    signsBody: false,
    unsigned: (sent) => ({ ...sent, body: sent.body.replace(/"signature":"[0-9a-f]+"/, '"signature":""') }),
    stamps: true,
    settings: { tolerance_seconds: 300 },
    key: () => secretKey({ tolerance_seconds: 300 }),
    body: () => '',
    sign: ({ at, key }) => {
      const token = randomBytes(25).toString('hex');
      const signature = hmac('sha256', text(key), unix(at) + token).digest('hex');
      return {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          signature: { timestamp: unix(at), token, signature },
          'event-data': { id: 'ev1', event: 'delivered' },
        }),
      };
    },
  },
  hexBodySender(
    'dropbox',
    'x-dropbox-signature',
    'sha256',
    '',
    'X-Dropbox-Signature: hex HMAC-SHA256 of the body (Dropbox’s documentation)',
  ),
  svixSender('clerk'),
  svixSender('resend'),
  svixSender('svix'),
  {
    scheme: 'zendesk',
    truth: 'base64 HMAC-SHA256 of timestamp + body (Zendesk’s documentation)',
    stamps: true,
    settings: { tolerance_seconds: 300 },
    key: () => secretKey({ tolerance_seconds: 300 }),
    sign: ({ body, at, key }) => {
      const timestamp = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
      return {
        headers: {
          'x-zendesk-webhook-signature-timestamp': timestamp,
          'x-zendesk-webhook-signature': hmac('sha256', text(key), timestamp + body).digest('base64'),
        },
        body,
      };
    },
  },
  hexBodySender(
    'jira',
    'x-hub-signature',
    'sha256',
    'sha256=',
    'X-Hub-Signature: sha256= hex (Atlassian’s documentation)',
  ),
  hexBodySender(
    'bitbucket',
    'x-hub-signature',
    'sha256',
    'sha256=',
    'X-Hub-Signature: sha256= hex (Bitbucket’s documentation)',
  ),
  {
    scheme: 'twitch',
    truth: 'sha256= hex of message id + timestamp + body (Twitch EventSub’s documentation)',
    stamps: true,
    key: () => secretKey(),
    sign: ({ body, at, key }) => {
      const id = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
      return {
        headers: {
          'twitch-eventsub-message-id': id,
          'twitch-eventsub-message-timestamp': at.toISOString(),
          'twitch-eventsub-message-type': 'notification',
          'twitch-eventsub-message-signature': `sha256=${hmac('sha256', text(key), id + at.toISOString() + body).digest('hex')}`,
        },
        body,
      };
    },
  },
  {
    scheme: 'discord',
    truth: 'discord-interactions verifies (verifyKey)',
    stamps: true,
    settings: { tolerance_seconds: 300 },
    key: () => discordKey(),
    body: () => JSON.stringify({ version: 1, application_id: '1', type: 1, event: { type: 'APPLICATION_AUTHORIZED' } }),
    sign: ({ body, at, key }) => ({
      headers: {
        'x-signature-timestamp': unix(at),
        'x-signature-ed25519': cryptoSign(null, Buffer.from(unix(at) + body), key as KeyObject).toString('hex'),
      },
      body,
    }),
    libraryAccepts: (sent, key) =>
      discordVerifyKey(
        sent.body,
        sent.headers['x-signature-ed25519'] as string,
        sent.headers['x-signature-timestamp'] as string,
        key.settings.public_key as string,
      ),
  },
  base64BodySender(
    'woocommerce',
    'x-wc-webhook-signature',
    '',
    'X-WC-Webhook-Signature: base64 HMAC-SHA256 (WooCommerce’s documentation)',
  ),
  {
    scheme: 'postmark',
    truth: 'HTTP Basic credentials (RFC 7617; its own example below)',
    signsBody: false,
    key: () => secretKey({ secret: `tributary:${shared()}` }),
    sign: ({ body, key }) => ({
      headers: { authorization: `Basic ${Buffer.from(text(key)).toString('base64')}` },
      body,
    }),
  },
  {
    scheme: 'mailchimp',
    truth:
      'Mandrill signs the URL and the sorted POST parameters as Twilio does, with HMAC-SHA1: twilio’s signer agrees',
    signsUrl: true,
    key: () => secretKey(),
    body: () => `mandrill_events=${encodeURIComponent('[{"event":"send","_id":"m1"}]')}`,
    sign: ({ body, url, key }) => ({
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-mandrill-signature': twilio.getExpectedTwilioSignature(text(key), url, formParams(body)),
      },
      body,
      query: queryOf(url),
    }),
  },
  {
    scheme: 'airtable',
    truth:
      'X-Airtable-Content-MAC: hmac-sha256= hex, keyed by the base64-decoded macSecretBase64 (Airtable’s documentation)',
    key: () => {
      const secret = randomBytes(32).toString('base64');
      return { signing: secret, settings: { secret } };
    },
    sign: ({ body, key }) => ({
      headers: {
        'x-airtable-content-mac': `hmac-sha256=${hmac('sha256', Buffer.from(text(key), 'base64'), body).digest('hex')}`,
      },
      body,
    }),
  },
  hexBodySender(
    'notion',
    'x-notion-signature',
    'sha256',
    'sha256=',
    'X-Notion-Signature: sha256= hex (Notion’s documentation)',
  ),
  hexBodySender(
    'vercel',
    'x-vercel-signature',
    'sha1',
    '',
    'x-vercel-signature: hex HMAC-SHA1 (Vercel’s documentation)',
  ),
  hexBodySender(
    'sentry',
    'sentry-hook-signature',
    'sha256',
    '',
    'Sentry-Hook-Signature: hex HMAC-SHA256 (Sentry’s documentation)',
  ),
  {
    scheme: 'okta',
    truth: 'the Authorization header’s value as configured in the event hook (Okta’s documentation)',
    signsBody: false,
    key: () => secretKey(),
    sign: ({ body, key }) => ({ headers: { authorization: text(key) }, body }),
  },
  {
    scheme: 'plaid',
    truth: 'an ES256 JWT signed by jose with Plaid’s documented claims (iat, request_body_sha256)',
    stamps: true,
    key: async () => {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      return {
        signing: privateKey,
        settings: { public_key: JSON.stringify({ ...(await exportJWK(publicKey)), kid: 'k1' }) },
      };
    },
    sign: async ({ body, at, key }) => ({
      headers: {
        'plaid-verification': await new SignJWT({
          request_body_sha256: createHash('sha256').update(body).digest('hex'),
        })
          .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'JWT' })
          .setIssuedAt(Math.floor(at.getTime() / 1000))
          .sign(key as KeyObject),
      },
      body,
    }),
  },
  base64BodySender(
    'x',
    'x-twitter-webhooks-signature',
    'sha256=',
    'x-twitter-webhooks-signature: sha256= base64 (X’s documentation)',
  ),
  {
    scheme: 'box',
    truth: 'BOX-SIGNATURE-PRIMARY: base64 HMAC-SHA256 of body + delivery timestamp (Box’s documentation)',
    stamps: true,
    key: () => secretKey(),
    sign: ({ body, at, key }) => {
      const timestamp = at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
      return {
        headers: {
          'box-delivery-id': 'd1',
          'box-delivery-timestamp': timestamp,
          'box-signature-primary': hmac('sha256', text(key), body + timestamp).digest('base64'),
        },
        body,
      };
    },
  },
  {
    scheme: 'netlify',
    truth: 'an HS256 JWS signed by jose with Netlify’s documented claims (iss netlify, sha256)',
    key: () => secretKey(),
    sign: async ({ body, key }) => ({
      headers: {
        'x-webhook-signature': await new SignJWT({ sha256: createHash('sha256').update(body).digest('hex') })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setIssuer('netlify')
          .sign(new TextEncoder().encode(text(key))),
      },
      body,
    }),
  },
];

function formParams(body: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const current = params[name];
    params[name] = current === undefined ? value : [...(Array.isArray(current) ? current : [current]), value];
  }
  return params;
}
function queryOf(url: string): string {
  return url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
}
function discordKey(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { signing: privateKey, settings: { public_key: raw.toString('hex'), tolerance_seconds: 300 } };
}
async function zoomAnswer(sent: Sent, secret: string) {
  const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  try {
    const receiver = new AwsLambdaReceiver({ webhooksSecretToken: secret });
    receiver.init({ eventEmitter: { emit: async () => undefined } as never } as never);
    const handle = receiver.start() as (
      event: unknown,
      context: unknown,
    ) => Promise<{ statusCode: number; body: string }>;
    return await handle({ body: sent.body, headers: sent.headers, isBase64Encoded: false }, {});
  } finally {
    debug.mockRestore();
  }
}
async function shopifyAccepts(sent: Sent, secret: string): Promise<boolean> {
  await import('@shopify/shopify-api/adapters/node');
  const { shopifyApi, ApiVersion } = await import('@shopify/shopify-api');
  const shopify = shopifyApi({
    apiKey: 'tributary-test',
    apiSecretKey: secret,
    scopes: [],
    hostName: 'tributary.example',
    apiVersion: ApiVersion.October25,
    isEmbeddedApp: false,
    logger: { level: 0, log: async () => undefined },
  });
  const headers = {
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': 'acme.myshopify.com',
    'x-shopify-api-version': '2025-10',
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
    'x-shopify-triggered-at': '2026-11-26T10:00:00Z',
    ...sent.headers,
  };
  const result = await shopify.webhooks.validate({
    rawBody: sent.body,
    rawRequest: { headers, method: 'POST', url: '/api/ingest' } as never,
    rawResponse: {} as never,
  });
  return result.valid;
}

function flipped(body: string): string {
  const index = Math.max(0, body.search(/[a-z]/));
  return `${body.slice(0, index)}${body[index] === 'x' ? 'y' : 'x'}${body.slice(index + 1)}`;
}

describe('signature presets', () => {
  it('cover at least 35 providers, each with a sender below', () => {
    expect(Object.keys(presets).length).toBeGreaterThanOrEqual(35);
    expect(senders.map((sender) => sender.scheme).sort()).toEqual(Object.keys(presets).sort());
  });

  it('are each a row of the docs’ table, with the handshake and dedup key they have', () => {
    const page = readFileSync(new URL('../../docs/ingest.md', import.meta.url), 'utf8');
    const rows = new Map(
      page
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => [
          /^\| `([^`]+)`/.exec(line)?.[1],
          line.split(' | ').map((cell) => cell.trim().replace(/\\\|/g, '|')),
        ]),
    );
    for (const [scheme, preset] of Object.entries(presets) as [string, Preset][]) {
      const row = rows.get(scheme);
      expect({ scheme, handshake: row?.[4], dedup: row?.[5] }).toEqual({
        scheme,
        handshake: handshakeText(preset.handshake),
        dedup: dedupText(preset.dedupKey),
      });
    }
  });

  describe.each(senders.map((sender) => [sender.scheme, sender] as const))('%s', (_, sender) => {
    const url = `${ingestUrl}?feed=orders&b=2&a=1`;

    it(`accepts what the provider signs, refuses it altered (${sender.truth})`, async () => {
      const key = await sender.key();
      const { deps, queued } = await world(sender.scheme, { ...key.settings, ...sender.settings });
      const now = new Date();
      const body = sender.body?.(now) ?? jsonBody(now);
      const sent = await sender.sign({ body, url, at: now, key: key.signing });
      const outcomes: [string, Outcome][] = [['as signed', await send(deps, sent)]];
      if (sender.libraryAccepts)
        expect(await sender.libraryAccepts(sent, key, url), 'the library accepts it').toBe(true);

      const other = await sender.key();
      const otherSent = await sender.sign({ body, url, at: now, key: other.signing });
      outcomes.push(['signed with another key', await send(deps, otherSent)]);
      if (sender.libraryAccepts)
        expect(await sender.libraryAccepts(otherSent, key, url), 'the library refuses').toBe(false);
      if (sender.signsBody !== false) {
        const altered = { ...sent, body: flipped(sent.body) };
        outcomes.push(['body altered', await send(deps, altered)]);
        if (sender.libraryAccepts)
          expect(await sender.libraryAccepts(altered, key, url), 'the library refuses').toBe(false);
      }
      const unsigned = sender.unsigned?.(sent) ?? { ...sent, headers: withoutSignature(sent.headers) };
      outcomes.push(['signature left out', await send(deps, unsigned)]);
      if (sender.stamps) {
        const then = new Date(now.getTime() - 2 * 3600_000);
        const stale = await sender.sign({
          body: sender.body?.(then) ?? jsonBody(then),
          url,
          at: then,
          key: key.signing,
        });
        outcomes.push(['signed two hours ago', await send(deps, stale)]);
      }
      if (sender.signsUrl) {
        outcomes.push(['sent to another query string', await send(deps, { ...sent, query: 'feed=orders&b=3&a=1' })]);
      }
      expect(outcomes.map(([label, outcome]) => [label, outcome.status, outcome.detail])).toEqual(
        outcomes.map(([label, outcome], index) => [
          label,
          index === 0 ? 202 : 401,
          index === 0 ? undefined : outcome.detail,
        ]),
      );
      expect(outcomes.slice(1).every(([, outcome]) => outcome.code === 'UNAUTHORIZED')).toBe(true);
      expect(queued).toHaveLength(1);
    });
  });
});

/** Drops whatever carries the signature (or the shared value): every header but the plain ones. */
function withoutSignature(headers: Record<string, string>): Record<string, string> {
  const plain = new Set(['content-type', 'twitch-eventsub-message-type', 'box-delivery-id']);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => plain.has(name.toLowerCase())));
}

describe('documented examples', () => {
  it('GitHub: "Hello, World!" signed with "It\'s a Secret to Everybody"', async () => {
    const { deps } = await world('github', { secret: "It's a Secret to Everybody" });
    const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect((await send(deps, { headers: { 'x-hub-signature-256': signature }, body: 'Hello, World!' })).status).toBe(
      202,
    );
    expect((await send(deps, { headers: { 'x-hub-signature-256': signature }, body: 'Hello, World?' })).status).toBe(
      401,
    );
  });

  it('Slack: the slash command of its verification guide, at its own time', async () => {
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = {
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    // The example is from 2018: its time is checked with a tolerance that reaches back to it.
    const since = Math.ceil(Date.now() / 1000) - 1531420618 + 60;
    const { deps } = await world('slack', { secret, tolerance_seconds: Math.min(since, 86_400 * 365 * 20) });
    expect((await send(deps, { headers, body })).status).toBe(202);
    expect((await send(deps, { headers, body: body.replace('roadrunner', 'coyote') })).status).toBe(401);
    expect(
      isValidSlackRequest({
        signingSecret: secret,
        body,
        headers: { 'x-slack-signature': headers['x-slack-signature'], 'x-slack-request-timestamp': 1531420618 },
        nowMilliseconds: 1531420618_000,
      }),
    ).toBe(true);
  });

  it('HTTP Basic (Postmark): RFC 7617’s Aladdin / open sesame', async () => {
    const { deps } = await world('postmark', { secret: 'Aladdin:open sesame' });
    const sent = (authorization: string) => send(deps, { headers: { authorization }, body: '{}' });
    expect((await sent('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==')).status).toBe(202);
    expect((await sent('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQo=')).status).toBe(401);
    expect((await sent('Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==')).status).toBe(401);
  });
});

describe('handshakes', () => {
  const now = () => new Date();
  const slackSigned = (secret: string, body: string, at = now()) => ({
    'x-slack-request-timestamp': unix(at),
    'x-slack-signature': `v0=${hmac('sha256', secret, `v0:${unix(at)}:${body}`).digest('hex')}`,
  });

  it('Slack: a signed url_verification gets its challenge back as JSON, and nothing is stored or counted', async () => {
    const { deps, queued, counted } = await world('slack', { secret: 'slack-signing-secret-0123456789' });
    const body = JSON.stringify({
      token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    const answered = await send(deps, { headers: slackSigned('slack-signing-secret-0123456789', body), body });
    expect(answered.answer).toEqual({
      kind: 'handshake',
      sourceId,
      answer: { status: 200, json: { challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' } },
    });
    const forged = await send(deps, { headers: slackSigned('another-secret-000000000000', body), body });
    const unsigned = await send(deps, { headers: {}, body });
    expect([forged, unsigned].map((outcome) => [outcome.status, outcome.detail])).toEqual([
      [401, 'INVALID_SIGNATURE'],
      [401, 'MISSING_SIGNATURE'],
    ]);
    expect({ queued: queued.length, counted: counted.length }).toEqual({ queued: 0, counted: 0 });
  });

  it('Meta: GET with hub.mode=subscribe answers the challenge as text when the verify token matches, 401 when not; other GETs 404', async () => {
    const { deps, queued } = await world('meta', {
      secret: 'meta-app-secret-0123456789abcdef',
      verify_token: 'my verify token',
    });
    const get = (query: string) => send(deps, { method: 'GET', headers: {}, body: '', query });
    expect((await get('hub.mode=subscribe&hub.verify_token=my+verify+token&hub.challenge=1158201444')).answer).toEqual({
      kind: 'handshake',
      sourceId,
      answer: { status: 200, text: '1158201444' },
    });
    const refusals = [
      await get('hub.mode=subscribe&hub.verify_token=not+mine&hub.challenge=1158201444'),
      await get('hub.mode=subscribe&hub.challenge=1158201444'),
      await get('hub.mode=subscribe&hub.verify_token=my+verify+token'),
      await get(''),
      await get('hub.mode=unsubscribe&hub.verify_token=my+verify+token&hub.challenge=1'),
    ];
    expect(refusals.map((outcome) => [outcome.status, outcome.code])).toEqual([
      [401, 'UNAUTHORIZED'],
      [401, 'UNAUTHORIZED'],
      [400, 'VALIDATION_ERROR'],
      [404, 'NOT_FOUND'],
      [404, 'NOT_FOUND'],
    ]);
    expect(queued).toEqual([]);
  });

  it('Zoom: a signed endpoint.url_validation gets the plain token and its HMAC, exactly as @zoom/rivet answers it', async () => {
    const secret = 'zoom-secret-token-abcdef';
    const { deps, queued } = await world('zoom', { secret });
    const at = now();
    const body = JSON.stringify({
      payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' },
      event_ts: at.getTime(),
      event: 'endpoint.url_validation',
    });
    const headers = {
      'x-zm-request-timestamp': unix(at),
      'x-zm-signature': `v0=${hmac('sha256', secret, `v0:${unix(at)}:${body}`).digest('hex')}`,
    };
    const answered = await send(deps, { headers, body });
    const rivet = await zoomAnswer({ headers, body }, secret);
    expect(answered.answer?.kind === 'handshake' && answered.answer.answer).toEqual({
      status: 200,
      json: JSON.parse(rivet.body),
    });
    expect(JSON.parse(rivet.body)).toHaveProperty('encryptedToken');
    expect((await send(deps, { headers: { ...headers, 'x-zm-signature': 'v0=00' }, body })).status).toBe(401);
    expect(queued).toEqual([]);
  });

  it('Microsoft Graph: POST ?validationToken= is answered with the token, URL-decoded, as text', async () => {
    const { deps, queued } = await world('microsoft-graph', { secret: 'client-state-0123456789' });
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 5c1b0f50';
    const answered = await send(deps, { headers: {}, body: '', query: `validationToken=${encodeURIComponent(token)}` });
    expect(answered.answer).toEqual({ kind: 'handshake', sourceId, answer: { status: 200, text: token } });
    expect(queued).toEqual([]);
  });

  it('Dropbox, X, Okta: their GET handshakes, X’s CRC answered with the HMAC its documentation gives', async () => {
    const dropbox = await world('dropbox', { secret: 'dropbox-app-sec' });
    expect(
      (await send(dropbox.deps, { method: 'GET', headers: {}, body: '', query: 'challenge=abc123' })).answer,
    ).toMatchObject({
      answer: { status: 200, text: 'abc123' },
    });
    const x = await world('x', { secret: 'x-consumer-secret-0123456789' });
    const crc = await send(x.deps, { method: 'GET', headers: {}, body: '', query: 'crc_token=dGVzdA' });
    expect(crc.answer).toMatchObject({
      answer: {
        status: 200,
        json: { response_token: `sha256=${hmac('sha256', 'x-consumer-secret-0123456789', 'dGVzdA').digest('base64')}` },
      },
    });
    const okta = await world('okta', { secret: 'okta-authorization-value-01' });
    const challenge = { 'x-okta-verification-challenge': 'Ng2SmMCtLeJoGpPn1bnSbUJBs-wrmYXZQwUkgjLLvcw' };
    expect(
      (
        await send(okta.deps, {
          method: 'GET',
          headers: { ...challenge, authorization: 'okta-authorization-value-01' },
          body: '',
        })
      ).answer,
    ).toMatchObject({ answer: { status: 200, json: { verification: challenge['x-okta-verification-challenge'] } } });
    expect((await send(okta.deps, { method: 'GET', headers: challenge, body: '' })).status).toBe(401);
  });

  it('X: its unsigned CRC signs only a token, never a body an event could be; a token-like event body is refused', async () => {
    const secret = 'x-consumer-secret-0123456789';
    const x = await world('x', { secret });
    // An attacker's CRC whose token is an event: answering it would hand out that event's signature.
    const forged = JSON.stringify({ for_user_id: '2244994945', tweet_create_events: [{ id_str: '1' }] });
    const oracle = await send(x.deps, {
      method: 'GET',
      headers: {},
      body: '',
      query: `crc_token=${encodeURIComponent(forged)}`,
    });
    const signatureOf = (body: string) => `sha256=${hmac('sha256', secret, body).digest('base64')}`;
    const event = await send(x.deps, {
      headers: { 'x-twitter-webhooks-signature': signatureOf(forged) },
      body: forged,
    });
    // A token X's CRC would sign, posted as an event with that signature (what the CRC answered).
    const tokenBody = await send(x.deps, {
      headers: { 'x-twitter-webhooks-signature': signatureOf('dGVzdA') },
      body: 'dGVzdA',
    });
    // A real event, signed by X.
    const real = await send(x.deps, { headers: { 'x-twitter-webhooks-signature': signatureOf(forged) }, body: forged });
    expect([oracle.status, oracle.code, tokenBody.status, event.status, real.status]).toEqual([
      400,
      'VALIDATION_ERROR',
      401,
      202,
      202,
    ]);
    expect(x.queued).toHaveLength(2);
  });

  it('unsigned handshakes still need the bearer token where the source takes one, and no suspended tenant’s or inactive connection’s source answers one', async () => {
    const x = await world('x', { secret: 'x-consumer-secret-0123456789' }, { auth_mode: 'bearer_and_signature' });
    x.source.token_hash = hashToken('the-ingest-token');
    const crc = (authorization?: string) =>
      send(x.deps, {
        method: 'GET',
        headers: authorization ? { authorization } : {},
        body: '',
        query: 'crc_token=dGVzdA',
      });
    const notion = await world(
      'notion',
      { secret: 'secret_notion_verification_token_0' },
      { auth_mode: 'bearer_and_signature' },
    );
    notion.source.token_hash = hashToken('the-ingest-token');
    const token = JSON.stringify({ verification_token: 'secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl' });
    const statuses = [
      (await crc('Bearer wrong')).status,
      (await crc()).status,
      (await crc('Bearer the-ingest-token')).status,
      (await send(notion.deps, { headers: { authorization: 'Bearer wrong' }, body: token })).status,
    ];
    x.source.source_status = 'Paused';
    statuses.push((await crc('Bearer the-ingest-token')).status);
    x.source.source_status = 'Active';
    x.source.connection_status = 'Inactive';
    statuses.push((await crc('Bearer the-ingest-token')).status);
    x.source.connection_status = 'Active';
    x.tenant.status = 'Suspended';
    statuses.push((await crc('Bearer the-ingest-token')).status);
    expect(statuses).toEqual([401, 401, 200, 401, 200, 422, 422]);
    expect(notion.queued).toEqual([]);
  });

  it('Twitch: a signed callback verification gets its challenge as text; Discord: a signed ping gets 204', async () => {
    const twitch = await world('twitch', { secret: 'twitch-secret-0123' });
    const at = now();
    const body = JSON.stringify({
      challenge: 'pogchamp-kappa-360noscope-vohiyo',
      subscription: { type: 'channel.follow' },
    });
    const id = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
    const headers = {
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-timestamp': at.toISOString(),
      'twitch-eventsub-message-type': 'webhook_callback_verification',
      'twitch-eventsub-message-signature': `sha256=${hmac('sha256', 'twitch-secret-0123', id + at.toISOString() + body).digest('hex')}`,
    };
    expect((await send(twitch.deps, { headers, body })).answer).toMatchObject({
      answer: { status: 200, text: 'pogchamp-kappa-360noscope-vohiyo' },
    });
    expect((await send(twitch.deps, { headers, body: body.replace('pogchamp', 'pogchump') })).status).toBe(401);

    const key = discordKey();
    const discord = await world('discord', key.settings);
    const ping = JSON.stringify({ version: 1, application_id: '1234560123453231555', type: 0 });
    const sign = (payload: string) => ({
      'x-signature-timestamp': unix(at),
      'x-signature-ed25519': cryptoSign(null, Buffer.from(unix(at) + payload), key.signing as KeyObject).toString(
        'hex',
      ),
    });
    expect((await send(discord.deps, { headers: sign(ping), body: ping })).answer).toMatchObject({
      answer: { status: 204 },
    });
    expect((await send(discord.deps, { headers: sign('{}'), body: ping })).status).toBe(401);
    expect([...twitch.queued, ...discord.queued]).toEqual([]);
  });

  it('Notion: its unsigned verification token is kept as an event for the tenant to read; nothing else passes unsigned', async () => {
    const { deps, queued } = await world('notion', { secret: 'secret_notion_verification_token_0' });
    const token = JSON.stringify({ verification_token: 'secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl' });
    expect((await send(deps, { headers: { 'content-type': 'application/json' }, body: token })).status).toBe(202);
    const smuggled = JSON.stringify({ verification_token: 'x', type: 'page.deleted' });
    expect((await send(deps, { headers: {}, body: smuggled })).status).toBe(401);
    expect(queued).toHaveLength(1);
  });
});

describe('the provider’s own event id as the deduplication key', () => {
  it('Mailgun: a captured signature carries no other event: its token is taken once, by one body, whatever the deduplication settings', async () => {
    const secret = 'mailgun-signing-key-0123456789';
    const { deps, queued, dedup } = await world('mailgun', { secret });
    const at = Math.floor(Date.now() / 1000) - 120;
    const token = 'e0b5477167110d68991efc6b9f89f0a11066af27834600e123';
    const block = { timestamp: String(at), token, signature: hmac('sha256', secret, `${at}${token}`).digest('hex') };
    const post = (event: object, signature = block) =>
      send(deps, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ signature, 'event-data': event }),
      });
    const delivered = await post({ id: 'ev-1', event: 'delivered' });
    // Mailgun's retry of the same request, its 202 lost on the way: the first one's duplicate.
    const retry = await post({ id: 'ev-1', event: 'delivered' });
    // The same block with another event, as someone who read the first request would send it.
    const forged = await post({ id: 'ev-forged', event: 'unsubscribed', recipient: 'ceo@example.com' });
    // A block ten hours old: past the 9 hours Mailgun's retries take.
    const old = Math.floor(Date.now() / 1000) - 10 * 3600;
    const stale = await post(
      { id: 'ev-2', event: 'delivered' },
      {
        timestamp: String(old),
        token: 'f'.repeat(50),
        signature: hmac('sha256', secret, `${old}${'f'.repeat(50)}`).digest('hex'),
      },
    );
    const ids = [delivered, retry].map((outcome) =>
      outcome.answer?.kind === 'accepted' ? outcome.answer.messageId : null,
    );
    expect([delivered.status, retry.status, forged.status, forged.detail, stale.status, stale.detail]).toEqual([
      202,
      202,
      401,
      'INVALID_SIGNATURE',
      401,
      'STALE_TIMESTAMP',
    ]);
    expect(ids[1]).toBe(ids[0]);
    // Only the delivered event's body is queued (twice, under one message id); the token stays taken.
    expect(queued.map((envelope) => envelope.message_id)).toEqual([ids[0], ids[0]]);
    expect([...dedup.keys()]).toEqual([`replay:${token}`]);
  });

  it('Mailgun: a duplicate refused after its token was found taken leaves the token taken', async () => {
    const secret = 'mailgun-signing-key-0123456789';
    const { deps } = await world('mailgun', { secret }, { dedup_window_seconds: 3600 });
    const at = Math.floor(Date.now() / 1000) - 60;
    const token = 'a'.repeat(50);
    const signature = {
      timestamp: String(at),
      token,
      signature: hmac('sha256', secret, `${at}${token}`).digest('hex'),
    };
    const body = (event: object) => JSON.stringify({ signature, 'event-data': event });
    const post = (event: object, using = deps) =>
      send(using, { headers: { 'content-type': 'application/json' }, body: body(event) });
    const first = await post({ id: 'ev-1', event: 'delivered' });
    // Mailgun's retry of it, refused on the way to the queue (503): it gives back nothing of the first's.
    const failing: IngestDeps = {
      ...deps,
      enqueue: async () => {
        throw new DomainError('SERVICE_UNAVAILABLE', 'The queue did not answer in time');
      },
    };
    const retried = await post({ id: 'ev-1', event: 'delivered' }, failing);
    const forged = await post({ id: 'ev-forged', event: 'unsubscribed' });
    expect([first.status, retried.status, forged.status]).toEqual([202, 503, 401]);
  });

  it('checks the time of every scheme that signs one by default: 300 s, Mailgun 9 hours (Netlify’s token may carry none)', () => {
    const defaults = Object.fromEntries(
      (['sendgrid', 'zendesk', 'discord', 'mailgun', 'stripe', 'netlify'] as const).map((scheme) => [
        scheme,
        defaultToleranceOf(scheme),
      ]),
    );
    expect(defaults).toEqual({
      sendgrid: 300,
      zendesk: 300,
      discord: 300,
      mailgun: 32_400,
      stripe: 300,
      netlify: null,
    });
  });

  it('Stripe: an event delivered twice, signed anew, is one message id, the retry counted as a duplicate', async () => {
    const secret = 'whsec_stripe_dedup_secret_value';
    const { deps, queued, counted } = await world('stripe', { secret }, { dedup_window_seconds: 3600 });
    const body = JSON.stringify({ id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy', object: 'event', type: 'invoice.paid' });
    const delivery = (seconds: number) => ({
      headers: {
        'stripe-signature': stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret,
          timestamp: Math.floor(Date.now() / 1000) - seconds,
        }),
      },
      body,
    });
    const first = await send(deps, delivery(60));
    const retry = await send(deps, delivery(0));
    const other = await send(deps, { ...delivery(0), body: body.replace('CUI79', 'CUI80') });
    expect(other.status).toBe(401);
    const ids = [first, retry].map((outcome) =>
      outcome.answer?.kind === 'accepted' ? outcome.answer.messageId : null,
    );
    expect(ids[0]).toEqual(expect.any(String));
    expect(ids[1]).toBe(ids[0]);
    expect(counted).toEqual([false, true]);
    expect(queued.map((envelope) => envelope.message_id)).toEqual([ids[0], ids[0]]);
  });

  it('never takes an id JSON.parse rounded as a deduplication key: two events past 2^53 are two messages', async () => {
    const secret = 'whsec_stripe_dedup_secret_value';
    const { deps, queued, dedup } = await world(
      'stripe',
      { secret },
      { dedup_window_seconds: 3600, dedup_key: { json_pointer: '/data/id' } },
    );
    const delivery = (body: string) => ({
      headers: { 'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret }) },
      body,
    });
    // Both read as 1850000000000000000 once parsed; 9007199254740991 (2^53 - 1) is exact.
    for (const id of ['1850000000000000001', '1850000000000000002', '9007199254740991'])
      expect((await send(deps, delivery(`{"type":"tweet","data":{"id":${id}}}`))).status).toBe(202);
    expect(new Set(queued.map((envelope) => envelope.message_id)).size).toBe(3);
    expect([...dedup.keys()]).toEqual(['9007199254740991']);
  });

  it('takes the preset’s header (Shopify), or the key the source names, else webhook-id, else Idempotency-Key', async () => {
    const keysOf = async (extra: Partial<SecurityUpdate>, requests: Record<string, string>[]) => {
      const secret = 'shopify-secret-0123456789';
      const { deps, dedup } = await world('shopify', { secret }, { dedup_window_seconds: 60, ...extra });
      const body = JSON.stringify({ id: 820982911946154500, order: { id: 7 } });
      for (const headers of requests)
        await send(deps, {
          headers: { ...headers, 'x-shopify-hmac-sha256': hmac('sha256', secret, body).digest('base64') },
          body,
        });
      return [...dedup.keys()];
    };
    const requests: Record<string, string>[] = [
      { 'x-shopify-webhook-id': 'b54557e4', 'webhook-id': 'w1', 'idempotency-key': 'i1' },
      { 'webhook-id': 'w2', 'idempotency-key': 'i2' },
      { 'idempotency-key': 'i3' },
    ];
    expect(await keysOf({}, requests)).toEqual(['b54557e4', 'w2', 'i3']);
    expect(await keysOf({ dedup_key: { json_pointer: '/order/id' } }, requests.slice(0, 1))).toEqual(['7']);
    expect(await keysOf({ dedup_key: { header: 'X-Request-Id' } }, [{ 'x-request-id': 'r1' }])).toEqual(['r1']);
  });
});

describe('settings a preset cannot work with', () => {
  const refusal = async (
    scheme: SignatureScheme,
    settings: Omit<SignatureSettingsInput, 'scheme'>,
    extra: Partial<SecurityUpdate> = {},
  ) => {
    try {
      await world(scheme, settings, extra);
      return 'accepted';
    } catch (error) {
      return error instanceof DomainError
        ? `${error.code} ${error.details?.[0]?.path}: ${error.details?.[0]?.message}`
        : String(error);
    }
  };

  it('are refused with 400 naming the field', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const sendgridKey = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect([
      await refusal('stripe', {}),
      await refusal('meta', { secret: 'meta-app-secret-0123456789' }),
      await refusal('sendgrid', { secret: 'a-shared-secret-0123456789' }),
      await refusal('sendgrid', { public_key: 'not a key' }),
      await refusal('discord', { public_key: sendgridKey }),
      await refusal('github', { public_key: sendgridKey }),
      await refusal('github', { tolerance_seconds: 60 }),
      await refusal('slack', { secret: 'short' }),
      await refusal('github', { verify_token: 'x' }),
      await refusal('github', {}, { dedup_key: { json_pointer: 'id' } }),
      await refusal('sendgrid', { public_key: sendgridKey }),
    ]).toEqual([
      'VALIDATION_ERROR signature.secret: Required',
      'VALIDATION_ERROR signature.verify_token: Required',
      'VALIDATION_ERROR signature.secret: Give public_key instead',
      'VALIDATION_ERROR signature.public_key: An ECDSA public key as base64 of its DER encoding',
      'VALIDATION_ERROR signature.public_key: An Ed25519 public key in hex (64 characters)',
      'VALIDATION_ERROR signature.public_key: Give secret instead',
      'VALIDATION_ERROR signature.tolerance_seconds: github signs no timestamp',
      'VALIDATION_ERROR signature.secret: At least 16 characters',
      'VALIDATION_ERROR signature.verify_token: Not for github',
      'VALIDATION_ERROR dedup_key.json_pointer: Not a JSON pointer (RFC 6901): empty, or /name/0/…',
      'accepted',
    ]);
  });

  it('rotate only with the new secret where the provider issues it, and never for a public key', async () => {
    const settingsOf = async (scheme: SignatureScheme, signature: Omit<SignatureSettingsInput, 'scheme'>) =>
      (
        await applySecurityUpdate(
          defaultSecurity,
          {
            auth_mode: 'signature',
            signature: { scheme, ...signature },
            dedup_window_seconds: 0,
            rate_limit: null,
            ip_allowlist: null,
          },
          async (secret) => secret,
          new Date(),
        )
      ).security;
    const outcome = (rotation: Promise<unknown>) =>
      rotation.then(
        () => 'rotated',
        (error: DomainError) => `${error.code} ${error.details?.[0]?.message ?? ''}`.trim(),
      );
    const stripeSettings = await settingsOf('stripe', { secret: 'whsec_first_secret_value' });
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;
    const sendgridSettings = await settingsOf('sendgrid', {
      public_key: key.export({ format: 'der', type: 'spki' }).toString('base64'),
    });
    const seal = async (secret: string) => secret;
    expect([
      await outcome(rotateSecret(stripeSettings, undefined, 60, seal, new Date())),
      await outcome(rotateSecret(stripeSettings, 'whsec_second_secret_value', 60, seal, new Date())),
      await outcome(rotateSecret(sendgridSettings, undefined, 60, seal, new Date())),
      await outcome(rotateSecret(await settingsOf('github', {}), undefined, 60, seal, new Date())),
    ]).toEqual(['VALIDATION_ERROR Required', 'rotated', 'CONFLICT', 'rotated']);
    // A given secret holds to its scheme's least length, as PUT …/security holds it: Dropbox's are 15 characters.
    const dropboxSettings = await settingsOf('dropbox', { secret: 'abcdefghijklmno' });
    expect([
      await outcome(rotateSecret(dropboxSettings, 'onmlkjihgfedcba', 60, seal, new Date())),
      await outcome(rotateSecret(dropboxSettings, 'short', 60, seal, new Date())),
      await outcome(rotateSecret(stripeSettings, 'whsec_fifteen__', 60, seal, new Date())),
    ]).toEqual(['rotated', 'VALIDATION_ERROR At least 8 characters', 'VALIDATION_ERROR At least 16 characters']);
    expect(
      [1, 15, 16, 512, 513].map((length) => rotateSigningSecretBody.safeParse({ secret: 'x'.repeat(length) }).success),
    ).toEqual([true, true, true, true, false]);
  });
});
