/**
 * Signature presets: how each webhook provider signs its requests, written down as data. A preset
 * names one of a few verification kinds (shared/domain/ingest/signatures.ts carries them out), the
 * headers and encodings that kind reads, its timestamp tolerance, the handshake the provider makes
 * before it sends events (shared/domain/ingest/handshakes.ts), and where the provider puts its own
 * event id (the default deduplication key). Adding a provider is adding a row.
 */

import type { SignatureScheme } from './security-names.ts';

export type { SignatureScheme };

/** A piece of what a provider signs, in order; the pieces are concatenated as bytes. */
export type SignedPart =
  | { text: string }
  | { header: string }
  /** A string inside the JSON body (Mailgun signs its token). */
  | { jsonPointer: string }
  | 'body'
  | 'timestamp'
  /** The connection's ingest URL as the service gave it, plus the query string as received. */
  | 'url'
  | 'method'
  /** application/x-www-form-urlencoded parameters, sorted by name, each name then its value (Twilio, Mandrill). */
  | 'sorted-form-params';

/** Where a signature or a timestamp is carried. */
export type Carrier =
  | { header: string }
  /** `t=…,v1=…` style: the header holds key=value pairs. */
  | { header: string; pair: string; separator: string }
  /** A string inside the JSON body (Mailgun, Linear). */
  | { jsonPointer: string };

export interface TimestampRule {
  from: Carrier;
  unit: 'seconds' | 'milliseconds' | 'iso8601';
  /** Default allowed distance from now; null: signed, not checked unless the connection sets a tolerance. */
  toleranceSeconds: number | null;
}

export type Verification =
  | {
      kind: 'hmac';
      algorithm: 'sha1' | 'sha256';
      /** How the secret becomes the key: as text, base64-decoded, or Standard Webhooks' `whsec_` + base64. */
      key: 'utf8' | 'base64' | 'whsec';
      signature: Carrier;
      encoding: 'hex' | 'base64';
      /** Text before the encoded signature (`sha256=`, `v0=`). */
      prefix?: string;
      /** The prefix may be left out (the generic scheme takes `sha256=<hex>` and `<hex>`). */
      prefixOptional?: boolean;
      /** Several signatures in one value (rotation): split on this separator. */
      listSeparator?: string;
      signed: SignedPart[];
      timestamp?: TimestampRule;
      /** Twilio signs a JSON body's SHA-256 (hex) into the URL's `bodySHA256` parameter instead of the body. */
      bodyHashParam?: string;
    }
  /** A shared value sent as is in a header (GitLab, Okta), optionally behind an auth scheme (`Basic`). */
  | { kind: 'token'; header: string; scheme?: 'Basic' }
  /** Microsoft Graph: every notification in the JSON body carries the subscription's clientState. */
  | { kind: 'client-state'; arrayPointer: string; field: string }
  /** Public-key signatures over timestamp + body: Ed25519 (hex key and signature) or ECDSA P-256 (base64 DER). */
  | { kind: 'ed25519' | 'ecdsa'; signature: string; signed: SignedPart[]; timestamp: TimestampRule }
  /**
   * A JWT in a header whose claims pin the body: ES256 with a public key (Plaid, a JWK), or HS256 with
   * the secret (Netlify). `bodyHashClaim` holds the body's SHA-256 in hex; `issuer` is checked when set.
   */
  | {
      kind: 'jwt';
      algorithm: 'ES256' | 'HS256';
      header: string;
      bodyHashClaim: string;
      issuer?: string;
      toleranceSeconds: number | null;
    };

export type HmacVerification = Extract<Verification, { kind: 'hmac' }>;

/** What an answer to a handshake carries: the challenge, a constant, or an HMAC of the challenge. */
export type AnswerValue = 'challenge' | { constant: unknown } | { hmac: 'hex' | 'base64'; prefix?: string };

export interface Handshake {
  method: 'GET' | 'POST';
  /** The cheap test that tells a handshake from an event. */
  when:
    | { query: string; equals?: string }
    | { header: string; equals?: string }
    /** A JSON body whose value at the pointer equals `equals` (or, without it, is a string); `marker` must occur in the raw bytes first. */
    | { jsonPointer: string; equals?: unknown; marker: string };
  /** Where the challenge to echo is. */
  challenge: { query: string } | { header: string } | { jsonPointer: string } | null;
  /** Signed or tokened like the provider's events; false where the provider sends it bare (the answer proves the secret, or reveals nothing). */
  authenticated: boolean;
  /** Meta: the query parameter that must equal the connection's verify_token. */
  verifyTokenParam?: string;
  /** The answer: text/plain (the challenge), JSON built from values, no content, or taken in as an event. */
  answer: { text: true } | { json: Record<string, AnswerValue> } | { empty: true } | { acceptAsEvent: true };
}

export type DedupKey = { header: string } | { json_pointer: string };

export interface Preset {
  /** The provider as its users name it. */
  label: string;
  verification: Verification;
  /**
   * `provider`: the provider issues the secret, to be pasted into Tributary; `either`: the tenant may
   * choose one, or Tributary generates one to paste into the provider; `public-key`: the provider
   * shows a public key instead.
   */
  secretFrom: 'provider' | 'either' | 'public-key';
  /** Shortest secret accepted (default 16); some providers' secrets are shorter. */
  minSecretLength?: number;
  handshake: Handshake | null;
  /** The provider's own event id: the default deduplication key. */
  dedupKey: DedupKey | null;
  /** What to paste where, for the console and the docs. */
  setup: string;
}

const hexBody = (header: string, algorithm: 'sha1' | 'sha256' = 'sha256', prefix?: string): HmacVerification => ({
  kind: 'hmac',
  algorithm,
  key: 'utf8',
  signature: { header },
  encoding: 'hex',
  ...(prefix ? { prefix } : {}),
  signed: ['body'],
});
const base64Body = (header: string, prefix?: string): HmacVerification => ({
  kind: 'hmac',
  algorithm: 'sha256',
  key: 'utf8',
  signature: { header },
  encoding: 'base64',
  ...(prefix ? { prefix } : {}),
  signed: ['body'],
});
/** Standard Webhooks, under the header prefix its senders use (`webhook-` or Svix's `svix-`). */
const standardWebhooks = (prefix: string): HmacVerification => ({
  kind: 'hmac',
  algorithm: 'sha256',
  key: 'whsec',
  signature: { header: `${prefix}-signature` },
  encoding: 'base64',
  prefix: 'v1,',
  listSeparator: ' ',
  signed: [{ header: `${prefix}-id` }, { text: '.' }, 'timestamp', { text: '.' }, 'body'],
  timestamp: { from: { header: `${prefix}-timestamp` }, unit: 'seconds', toleranceSeconds: 300 },
});
/** `t=<seconds>,v1=<hex>` over `<t>.<body>` (Stripe, Calendly). */
const stripeLike = (header: string, toleranceSeconds: number): HmacVerification => ({
  kind: 'hmac',
  algorithm: 'sha256',
  key: 'utf8',
  signature: { header, pair: 'v1', separator: ',' },
  encoding: 'hex',
  signed: ['timestamp', { text: '.' }, 'body'],
  timestamp: { from: { header, pair: 't', separator: ',' }, unit: 'seconds', toleranceSeconds },
});

export const presets = {
  'standard-webhooks': {
    label: 'Standard Webhooks',
    verification: standardWebhooks('webhook'),
    secretFrom: 'either',
    handshake: null,
    dedupKey: { header: 'webhook-id' },
    setup: 'Give the sender the whsec_ secret Tributary generates (or set the one it issued).',
  },
  github: {
    label: 'GitHub',
    verification: hexBody('x-hub-signature-256', 'sha256', 'sha256='),
    secretFrom: 'either',
    handshake: null,
    dedupKey: { header: 'x-github-delivery' },
    setup:
      'Webhook settings: Payload URL = the ingest URL, Content type application/json, Secret = the signing secret.',
  },
  stripe: {
    label: 'Stripe',
    verification: stripeLike('stripe-signature', 300),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/id' },
    setup: 'Developers → Webhooks → Add endpoint with the ingest URL; paste its signing secret (whsec_…) here.',
  },
  'hmac-sha256': {
    label: 'Generic HMAC-SHA256',
    verification: { ...hexBody('x-signature', 'sha256', 'sha256='), prefixOptional: true },
    secretFrom: 'either',
    handshake: null,
    dedupKey: null,
    setup: 'The sender signs the raw body with HMAC-SHA256 into a header you name, hex or base64.',
  },
  slack: {
    label: 'Slack (Events API)',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'x-slack-signature' },
      encoding: 'hex',
      prefix: 'v0=',
      signed: [{ text: 'v0:' }, 'timestamp', { text: ':' }, 'body'],
      timestamp: { from: { header: 'x-slack-request-timestamp' }, unit: 'seconds', toleranceSeconds: 300 },
    },
    secretFrom: 'provider',
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/type', equals: 'url_verification', marker: 'url_verification' },
      challenge: { jsonPointer: '/challenge' },
      authenticated: true,
      answer: { json: { challenge: 'challenge' } },
    },
    dedupKey: { json_pointer: '/event_id' },
    setup:
      'App settings → Basic Information: paste the Signing Secret here; Event Subscriptions → Request URL = the ingest URL.',
  },
  meta: {
    label: 'Meta (WhatsApp, Instagram, Messenger)',
    verification: hexBody('x-hub-signature-256', 'sha256', 'sha256='),
    secretFrom: 'provider',
    handshake: {
      method: 'GET',
      when: { query: 'hub.mode', equals: 'subscribe' },
      challenge: { query: 'hub.challenge' },
      authenticated: false,
      verifyTokenParam: 'hub.verify_token',
      answer: { text: true },
    },
    dedupKey: null,
    setup:
      'App Dashboard → Webhooks: Callback URL = the ingest URL, Verify token = the verify_token set here; paste the App Secret here.',
  },
  zoom: {
    label: 'Zoom',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'x-zm-signature' },
      encoding: 'hex',
      prefix: 'v0=',
      signed: [{ text: 'v0:' }, 'timestamp', { text: ':' }, 'body'],
      timestamp: { from: { header: 'x-zm-request-timestamp' }, unit: 'seconds', toleranceSeconds: 300 },
    },
    secretFrom: 'provider',
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/event', equals: 'endpoint.url_validation', marker: 'endpoint.url_validation' },
      challenge: { jsonPointer: '/payload/plainToken' },
      authenticated: true,
      answer: { json: { plainToken: 'challenge', encryptedToken: { hmac: 'hex' } } },
    },
    dedupKey: null,
    setup:
      'App Marketplace → your app → Features → Event Subscriptions: Event notification endpoint URL = the ingest URL; paste the Secret Token here.',
  },
  'microsoft-graph': {
    label: 'Microsoft Graph (change notifications)',
    verification: { kind: 'client-state', arrayPointer: '/value', field: 'clientState' },
    secretFrom: 'either',
    handshake: {
      method: 'POST',
      when: { query: 'validationToken' },
      challenge: { query: 'validationToken' },
      authenticated: false,
      answer: { text: true },
    },
    dedupKey: null,
    setup:
      'Create the subscription with notificationUrl = the ingest URL and clientState = the signing secret (at most 128 characters).',
  },
  twilio: {
    label: 'Twilio',
    verification: {
      kind: 'hmac',
      algorithm: 'sha1',
      key: 'utf8',
      signature: { header: 'x-twilio-signature' },
      encoding: 'base64',
      signed: ['url', 'sorted-form-params'],
      bodyHashParam: 'bodySHA256',
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'i-twilio-idempotency-token' },
    setup: 'Set the webhook URL of the number or service to the ingest URL; paste the account Auth Token here.',
  },
  square: {
    label: 'Square',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'x-square-hmacsha256-signature' },
      encoding: 'base64',
      signed: ['url', 'body'],
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/event_id' },
    setup:
      'Developer Console → Webhooks → Subscriptions: Notification URL = the ingest URL; paste the Signature key here.',
  },
  hubspot: {
    label: 'HubSpot (signature v3)',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'x-hubspot-signature-v3' },
      encoding: 'base64',
      signed: ['method', 'url', 'body', 'timestamp'],
      timestamp: { from: { header: 'x-hubspot-request-timestamp' }, unit: 'milliseconds', toleranceSeconds: 300 },
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: null,
    setup: 'App → Webhooks: Target URL = the ingest URL; paste the app’s Client secret here.',
  },
  linear: {
    label: 'Linear',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'linear-signature' },
      encoding: 'hex',
      signed: ['body'],
      timestamp: { from: { jsonPointer: '/webhookTimestamp' }, unit: 'milliseconds', toleranceSeconds: 60 },
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'linear-delivery' },
    setup: 'Settings → API → Webhooks: URL = the ingest URL; paste the webhook’s signing secret here.',
  },
  paddle: {
    label: 'Paddle Billing',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'paddle-signature', pair: 'h1', separator: ';' },
      encoding: 'hex',
      signed: ['timestamp', { text: ':' }, 'body'],
      timestamp: {
        from: { header: 'paddle-signature', pair: 'ts', separator: ';' },
        unit: 'seconds',
        toleranceSeconds: 5,
      },
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/event_id' },
    setup:
      'Developer Tools → Notifications → New destination: URL = the ingest URL; paste its secret key (pdl_ntfset_…) here.',
  },
  sendgrid: {
    label: 'SendGrid (Event Webhook)',
    verification: {
      kind: 'ecdsa',
      signature: 'x-twilio-email-event-webhook-signature',
      signed: ['timestamp', 'body'],
      timestamp: {
        from: { header: 'x-twilio-email-event-webhook-timestamp' },
        unit: 'seconds',
        toleranceSeconds: null,
      },
    },
    secretFrom: 'public-key',
    handshake: null,
    dedupKey: null,
    setup:
      'Mail Settings → Event Webhook: Post URL = the ingest URL, enable Signed Event Webhook; paste its Verification Key as public_key.',
  },
  shopify: {
    label: 'Shopify',
    verification: base64Body('x-shopify-hmac-sha256'),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'x-shopify-webhook-id' },
    setup:
      'Settings → Notifications → Webhooks (or the app’s subscription): URL = the ingest URL; paste the signing secret (the app’s client secret) here.',
  },
  gitlab: {
    label: 'GitLab',
    verification: { kind: 'token', header: 'x-gitlab-token' },
    secretFrom: 'either',
    handshake: null,
    dedupKey: { header: 'x-gitlab-event-uuid' },
    setup: 'Settings → Webhooks: URL = the ingest URL, Secret token = the signing secret.',
  },
  intercom: {
    label: 'Intercom',
    verification: hexBody('x-hub-signature', 'sha1', 'sha1='),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/id' },
    setup: 'Developer Hub → your app → Webhooks: Endpoint URL = the ingest URL; paste the app’s Client secret here.',
  },
  pagerduty: {
    label: 'PagerDuty (Webhooks v3)',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'x-pagerduty-signature' },
      encoding: 'hex',
      prefix: 'v1=',
      listSeparator: ',',
      signed: ['body'],
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/event/id' },
    setup:
      'Integrations → Generic Webhooks (v3): Webhook URL = the ingest URL; paste the subscription’s signing secret here.',
  },
  typeform: {
    label: 'Typeform',
    verification: base64Body('typeform-signature', 'sha256='),
    secretFrom: 'either',
    handshake: null,
    dedupKey: { json_pointer: '/event_id' },
    setup: 'Connect → Webhooks: Endpoint = the ingest URL, Secret = the signing secret.',
  },
  calendly: {
    label: 'Calendly',
    verification: stripeLike('calendly-webhook-signature', 180),
    secretFrom: 'either',
    handshake: null,
    dedupKey: null,
    setup: 'Create the webhook subscription with url = the ingest URL and signing_key = the signing secret.',
  },
  mailgun: {
    label: 'Mailgun',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { jsonPointer: '/signature/signature' },
      encoding: 'hex',
      signed: ['timestamp', { jsonPointer: '/signature/token' }],
      timestamp: { from: { jsonPointer: '/signature/timestamp' }, unit: 'seconds', toleranceSeconds: null },
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/event-data/id' },
    setup: 'Sending → Webhooks: URL = the ingest URL; paste the HTTP webhook signing key here.',
  },
  dropbox: {
    label: 'Dropbox',
    verification: hexBody('x-dropbox-signature'),
    secretFrom: 'provider',
    minSecretLength: 8,
    handshake: {
      method: 'GET',
      when: { query: 'challenge' },
      challenge: { query: 'challenge' },
      authenticated: false,
      answer: { text: true },
    },
    dedupKey: null,
    setup: 'App Console → your app → Webhooks: add the ingest URL; paste the App secret here.',
  },
  clerk: {
    label: 'Clerk',
    verification: standardWebhooks('svix'),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'svix-id' },
    setup: 'Dashboard → Webhooks → Add Endpoint with the ingest URL; paste its Signing Secret (whsec_…) here.',
  },
  resend: {
    label: 'Resend',
    verification: standardWebhooks('svix'),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'svix-id' },
    setup: 'Webhooks → Add Webhook with the ingest URL; paste its Signing Secret (whsec_…) here.',
  },
  svix: {
    label: 'Svix',
    verification: standardWebhooks('svix'),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'svix-id' },
    setup:
      'Add the ingest URL as an endpoint in the sender’s Svix portal; paste the endpoint’s Signing Secret (whsec_…) here.',
  },
  zendesk: {
    label: 'Zendesk',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'x-zendesk-webhook-signature' },
      encoding: 'base64',
      signed: ['timestamp', 'body'],
      timestamp: {
        from: { header: 'x-zendesk-webhook-signature-timestamp' },
        unit: 'iso8601',
        toleranceSeconds: null,
      },
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'x-zendesk-webhook-invocation-id' },
    setup:
      'Admin Center → Apps and integrations → Webhooks: Endpoint URL = the ingest URL; paste the webhook’s Signing secret here.',
  },
  jira: {
    label: 'Jira / Atlassian',
    verification: hexBody('x-hub-signature', 'sha256', 'sha256='),
    secretFrom: 'either',
    handshake: null,
    dedupKey: { header: 'x-atlassian-webhook-identifier' },
    setup: 'System → WebHooks: URL = the ingest URL, Secret = the signing secret.',
  },
  bitbucket: {
    label: 'Bitbucket Cloud',
    verification: hexBody('x-hub-signature', 'sha256', 'sha256='),
    secretFrom: 'either',
    handshake: null,
    dedupKey: { header: 'x-request-uuid' },
    setup: 'Repository settings → Webhooks: URL = the ingest URL, Secret = the signing secret.',
  },
  twitch: {
    label: 'Twitch EventSub',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'twitch-eventsub-message-signature' },
      encoding: 'hex',
      prefix: 'sha256=',
      signed: [{ header: 'twitch-eventsub-message-id' }, 'timestamp', 'body'],
      timestamp: { from: { header: 'twitch-eventsub-message-timestamp' }, unit: 'iso8601', toleranceSeconds: 600 },
    },
    secretFrom: 'either',
    minSecretLength: 10,
    handshake: {
      method: 'POST',
      when: { header: 'twitch-eventsub-message-type', equals: 'webhook_callback_verification' },
      challenge: { jsonPointer: '/challenge' },
      authenticated: true,
      answer: { text: true },
    },
    dedupKey: { header: 'twitch-eventsub-message-id' },
    setup:
      'Create the EventSub subscription with transport.callback = the ingest URL and transport.secret = the signing secret.',
  },
  discord: {
    label: 'Discord (Webhook Events)',
    verification: {
      kind: 'ed25519',
      signature: 'x-signature-ed25519',
      signed: ['timestamp', 'body'],
      timestamp: { from: { header: 'x-signature-timestamp' }, unit: 'seconds', toleranceSeconds: null },
    },
    secretFrom: 'public-key',
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/type', equals: 0, marker: '"type":0' },
      challenge: null,
      authenticated: true,
      answer: { empty: true },
    },
    dedupKey: null,
    setup:
      'Developer Portal → your app → Webhooks: Endpoint URL = the ingest URL; paste the app’s Public Key (hex) as public_key.',
  },
  woocommerce: {
    label: 'WooCommerce',
    verification: base64Body('x-wc-webhook-signature'),
    secretFrom: 'either',
    handshake: null,
    dedupKey: { header: 'x-wc-webhook-delivery-id' },
    setup: 'WooCommerce → Settings → Advanced → Webhooks: Delivery URL = the ingest URL, Secret = the signing secret.',
  },
  postmark: {
    label: 'Postmark',
    verification: { kind: 'token', header: 'authorization', scheme: 'Basic' },
    secretFrom: 'either',
    minSecretLength: 3,
    handshake: null,
    dedupKey: null,
    setup: 'Server → Webhooks: URL = the ingest URL, Basic auth credentials = the signing secret as user:password.',
  },
  mailchimp: {
    label: 'Mailchimp Transactional (Mandrill)',
    verification: {
      kind: 'hmac',
      algorithm: 'sha1',
      key: 'utf8',
      signature: { header: 'x-mandrill-signature' },
      encoding: 'base64',
      signed: ['url', 'sorted-form-params'],
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: null,
    setup: 'Settings → Webhooks → Add a webhook: Post to URL = the ingest URL; paste the webhook’s key here.',
  },
  airtable: {
    label: 'Airtable',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'base64',
      signature: { header: 'x-airtable-content-mac' },
      encoding: 'hex',
      prefix: 'hmac-sha256=',
      signed: ['body'],
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: null,
    setup: 'Create the webhook with notificationUrl = the ingest URL; paste the macSecretBase64 it returns here.',
  },
  notion: {
    label: 'Notion',
    verification: hexBody('x-notion-signature', 'sha256', 'sha256='),
    secretFrom: 'provider',
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/verification_token', marker: '"verification_token"' },
      challenge: null,
      authenticated: false,
      answer: { acceptAsEvent: true },
    },
    dedupKey: { json_pointer: '/id' },
    setup:
      'Integration settings → Webhooks: URL = the ingest URL; Notion posts a verification_token, kept as an event: read it in the events view, paste it in Notion to verify and here as the secret.',
  },
  vercel: {
    label: 'Vercel',
    verification: hexBody('x-vercel-signature', 'sha1'),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { json_pointer: '/id' },
    setup: 'Team Settings → Webhooks: Endpoint = the ingest URL; paste the secret shown once here.',
  },
  sentry: {
    label: 'Sentry',
    verification: hexBody('sentry-hook-signature'),
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'request-id' },
    setup:
      'Settings → Developer Settings → your integration: Webhook URL = the ingest URL; paste its Client Secret here.',
  },
  okta: {
    label: 'Okta (Event Hooks)',
    verification: { kind: 'token', header: 'authorization' },
    secretFrom: 'either',
    handshake: {
      method: 'GET',
      when: { header: 'x-okta-verification-challenge' },
      challenge: { header: 'x-okta-verification-challenge' },
      authenticated: true,
      answer: { json: { verification: 'challenge' } },
    },
    dedupKey: { json_pointer: '/eventId' },
    setup:
      'Workflow → Event Hooks: URL = the ingest URL, Authentication field = Authorization, Authentication secret = the signing secret; then Verify.',
  },
  plaid: {
    label: 'Plaid',
    verification: {
      kind: 'jwt',
      algorithm: 'ES256',
      header: 'plaid-verification',
      bodyHashClaim: 'request_body_sha256',
      toleranceSeconds: 300,
    },
    secretFrom: 'public-key',
    handshake: null,
    dedupKey: null,
    setup:
      'Set webhook = the ingest URL on the item; paste the JWK from /webhook_verification_key/get (for the kid in the JWT header) as public_key.',
  },
  x: {
    label: 'X (Account Activity API)',
    verification: base64Body('x-twitter-webhooks-signature', 'sha256='),
    secretFrom: 'provider',
    handshake: {
      method: 'GET',
      when: { query: 'crc_token' },
      challenge: { query: 'crc_token' },
      authenticated: false,
      answer: { json: { response_token: { hmac: 'base64', prefix: 'sha256=' } } },
    },
    dedupKey: null,
    setup: 'Register the ingest URL as the webhook; paste the app’s Consumer (API key) Secret here.',
  },
  box: {
    label: 'Box',
    verification: {
      kind: 'hmac',
      algorithm: 'sha256',
      key: 'utf8',
      signature: { header: 'box-signature-primary' },
      encoding: 'base64',
      signed: ['body', 'timestamp'],
      timestamp: { from: { header: 'box-delivery-timestamp' }, unit: 'iso8601', toleranceSeconds: 600 },
    },
    secretFrom: 'provider',
    handshake: null,
    dedupKey: { header: 'box-delivery-id' },
    setup:
      'Developer Console → your app → Webhooks: address = the ingest URL; paste the Primary signature key here (rotate to the secondary with rotate-signing-secret).',
  },
  netlify: {
    label: 'Netlify (deploy notifications)',
    verification: {
      kind: 'jwt',
      algorithm: 'HS256',
      header: 'x-webhook-signature',
      bodyHashClaim: 'sha256',
      issuer: 'netlify',
      toleranceSeconds: null,
    },
    secretFrom: 'either',
    handshake: null,
    dedupKey: null,
    setup:
      'Site configuration → Notifications → Outgoing webhook: URL = the ingest URL, JWS secret token = the signing secret.',
  },
} as const satisfies Record<SignatureScheme, Preset>;

export function presetOf(scheme: SignatureScheme): Preset {
  return presets[scheme];
}

/** The scheme's timestamp rule, where it signs one. */
export function timestampRuleOf(verification: Verification): TimestampRule | null {
  if (verification.kind === 'hmac') return verification.timestamp ?? null;
  if (verification.kind === 'ed25519' || verification.kind === 'ecdsa') return verification.timestamp;
  return null;
}

/** Whether the scheme signs a time that a tolerance can apply to. */
export function isTimestamped(scheme: SignatureScheme): boolean {
  const verification = presetOf(scheme).verification;
  return timestampRuleOf(verification) !== null || verification.kind === 'jwt';
}

/** The tolerance a scheme checks by default (null: none). */
export function defaultToleranceOf(scheme: SignatureScheme): number | null {
  const verification = presetOf(scheme).verification;
  if (verification.kind === 'jwt') return verification.toleranceSeconds;
  return timestampRuleOf(verification)?.toleranceSeconds ?? null;
}
