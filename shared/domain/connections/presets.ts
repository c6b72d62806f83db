/**
 * Signature presets: how each webhook provider signs its requests, written down as data. A preset
 * names one of a few verification kinds (shared/domain/ingest/signatures.ts carries them out), the
 * headers and encodings that kind reads, its timestamp tolerance, the handshake the provider makes
 * before it sends events (shared/domain/ingest/handshakes.ts), and where the provider puts its own
 * event id (the default deduplication key) and event type. Adding a provider is adding a row here, and
 * its words in preset-texts.ts. The ingest function carries this table, so it holds only what a request
 * is checked by, and the two short facts the views read (event id and type).
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
      /** SHA-256 unless SHA-1. */
      algorithm?: 'sha1';
      /** How the secret becomes the key: as text (the default), base64-decoded, or Standard Webhooks' `whsec_` + base64. */
      key?: 'base64' | 'whsec';
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
  verification: Verification;
  /**
   * `provider` (the default): the provider issues the secret, to be pasted into Tributary; `either`:
   * the tenant may choose one, or Tributary generates one to paste into the provider; `public-key`:
   * the provider shows a public key instead.
   */
  secretFrom?: 'either' | 'public-key';
  /** Shortest secret accepted (default 16); some providers' secrets are shorter. */
  minSecretLength?: number;
  /** None when absent. */
  handshake?: Handshake;
  /** The provider's own event id: the default deduplication key (none: webhook-id, else Idempotency-Key). */
  dedupKey?: DedupKey;
  /**
   * A nonce the signature covers where it does not cover the body (Mailgun's token): taken once for
   * twice the timestamp's tolerance, whatever the deduplication settings (accept.ts replayClaimOf).
   */
  replayKey?: { json_pointer: string };
  /**
   * Where the provider says which kind of event a request is (GitHub's `X-GitHub-Event` header,
   * Stripe's body `type`): the events view shows and filters by it. Undeclared where it is not certain.
   */
  eventType?: EventField;
}

/** A value a provider puts in a header, or in its JSON body at a pointer. */
export type EventField = { header: string } | { json_pointer: string };

const hexBody = (header: string, algorithm: 'sha1' | 'sha256' = 'sha256', prefix?: string): HmacVerification => ({
  kind: 'hmac',
  ...(algorithm === 'sha1' ? { algorithm } : {}),
  signature: { header },
  encoding: 'hex',
  ...(prefix ? { prefix } : {}),
  signed: ['body'],
});
const base64Body = (header: string, prefix?: string): HmacVerification => ({
  kind: 'hmac',
  signature: { header },
  encoding: 'base64',
  ...(prefix ? { prefix } : {}),
  signed: ['body'],
});
/** Standard Webhooks, under the header prefix its senders use (`webhook-` or Svix's `svix-`). */
const standardWebhooks = (prefix: string): HmacVerification => ({
  kind: 'hmac',
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
  signature: { header, pair: 'v1', separator: ',' },
  encoding: 'hex',
  signed: ['timestamp', { text: '.' }, 'body'],
  timestamp: { from: { header, pair: 't', separator: ',' }, unit: 'seconds', toleranceSeconds },
});

/** `v0=<hex>` over `v0:<timestamp>:<body>` (Slack, Zoom). */
const versionZero = (header: string, timestampHeader: string): HmacVerification => ({
  kind: 'hmac',
  signature: { header },
  encoding: 'hex',
  prefix: 'v0=',
  signed: [{ text: 'v0:' }, 'timestamp', { text: ':' }, 'body'],
  timestamp: { from: { header: timestampHeader }, unit: 'seconds', toleranceSeconds: 300 },
});
/** A text/plain echo of a query parameter, asked without a signature (Dropbox, Microsoft Graph). */
const echoQuery = (method: 'GET' | 'POST', query: string): Handshake => ({
  method,
  when: { query },
  challenge: { query },
  authenticated: false,
  answer: { text: true },
});

export const presets = {
  'standard-webhooks': {
    eventType: { json_pointer: '/type' },
    verification: standardWebhooks('webhook'),
    secretFrom: 'either',
    dedupKey: { header: 'webhook-id' },
  },
  github: {
    eventType: { header: 'x-github-event' },
    verification: hexBody('x-hub-signature-256', 'sha256', 'sha256='),
    secretFrom: 'either',
    dedupKey: { header: 'x-github-delivery' },
  },
  stripe: {
    eventType: { json_pointer: '/type' },
    verification: stripeLike('stripe-signature', 300),
    dedupKey: { json_pointer: '/id' },
  },
  'hmac-sha256': {
    verification: { ...hexBody('x-signature', 'sha256', 'sha256='), prefixOptional: true },
    secretFrom: 'either',
  },
  slack: {
    eventType: { json_pointer: '/event/type' },
    verification: versionZero('x-slack-signature', 'x-slack-request-timestamp'),
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/type', equals: 'url_verification', marker: 'url_verification' },
      challenge: { jsonPointer: '/challenge' },
      authenticated: true,
      answer: { json: { challenge: 'challenge' } },
    },
    dedupKey: { json_pointer: '/event_id' },
  },
  meta: {
    verification: hexBody('x-hub-signature-256', 'sha256', 'sha256='),
    handshake: {
      method: 'GET',
      when: { query: 'hub.mode', equals: 'subscribe' },
      challenge: { query: 'hub.challenge' },
      authenticated: false,
      verifyTokenParam: 'hub.verify_token',
      answer: { text: true },
    },
  },
  zoom: {
    eventType: { json_pointer: '/event' },
    verification: versionZero('x-zm-signature', 'x-zm-request-timestamp'),
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/event', equals: 'endpoint.url_validation', marker: 'endpoint.url_validation' },
      challenge: { jsonPointer: '/payload/plainToken' },
      authenticated: true,
      answer: { json: { plainToken: 'challenge', encryptedToken: { hmac: 'hex' } } },
    },
  },
  'microsoft-graph': {
    verification: { kind: 'client-state', arrayPointer: '/value', field: 'clientState' },
    secretFrom: 'either',
    handshake: echoQuery('POST', 'validationToken'),
  },
  twilio: {
    verification: {
      kind: 'hmac',
      algorithm: 'sha1',
      signature: { header: 'x-twilio-signature' },
      encoding: 'base64',
      signed: ['url', 'sorted-form-params'],
      bodyHashParam: 'bodySHA256',
    },
    dedupKey: { header: 'i-twilio-idempotency-token' },
  },
  square: {
    eventType: { json_pointer: '/type' },
    verification: {
      kind: 'hmac',
      signature: { header: 'x-square-hmacsha256-signature' },
      encoding: 'base64',
      signed: ['url', 'body'],
    },
    dedupKey: { json_pointer: '/event_id' },
  },
  hubspot: {
    verification: {
      kind: 'hmac',
      signature: { header: 'x-hubspot-signature-v3' },
      encoding: 'base64',
      signed: ['method', 'url', 'body', 'timestamp'],
      timestamp: { from: { header: 'x-hubspot-request-timestamp' }, unit: 'milliseconds', toleranceSeconds: 300 },
    },
  },
  linear: {
    eventType: { json_pointer: '/type' },
    verification: {
      kind: 'hmac',
      signature: { header: 'linear-signature' },
      encoding: 'hex',
      signed: ['body'],
      timestamp: { from: { jsonPointer: '/webhookTimestamp' }, unit: 'milliseconds', toleranceSeconds: 60 },
    },
    dedupKey: { header: 'linear-delivery' },
  },
  paddle: {
    eventType: { json_pointer: '/event_type' },
    verification: {
      kind: 'hmac',
      signature: { header: 'paddle-signature', pair: 'h1', separator: ';' },
      encoding: 'hex',
      signed: ['timestamp', { text: ':' }, 'body'],
      timestamp: {
        from: { header: 'paddle-signature', pair: 'ts', separator: ';' },
        unit: 'seconds',
        toleranceSeconds: 5,
      },
    },
    dedupKey: { json_pointer: '/event_id' },
  },
  sendgrid: {
    verification: {
      kind: 'ecdsa',
      signature: 'x-twilio-email-event-webhook-signature',
      signed: ['timestamp', 'body'],
      timestamp: {
        from: { header: 'x-twilio-email-event-webhook-timestamp' },
        unit: 'seconds',
        toleranceSeconds: 300,
      },
    },
    secretFrom: 'public-key',
  },
  shopify: {
    eventType: { header: 'x-shopify-topic' },
    verification: base64Body('x-shopify-hmac-sha256'),
    dedupKey: { header: 'x-shopify-webhook-id' },
  },
  gitlab: {
    eventType: { header: 'x-gitlab-event' },
    verification: { kind: 'token', header: 'x-gitlab-token' },
    secretFrom: 'either',
    dedupKey: { header: 'x-gitlab-event-uuid' },
  },
  intercom: {
    eventType: { json_pointer: '/topic' },
    verification: hexBody('x-hub-signature', 'sha1', 'sha1='),
    dedupKey: { json_pointer: '/id' },
  },
  pagerduty: {
    eventType: { json_pointer: '/event/event_type' },
    verification: {
      kind: 'hmac',
      signature: { header: 'x-pagerduty-signature' },
      encoding: 'hex',
      prefix: 'v1=',
      listSeparator: ',',
      signed: ['body'],
    },
    dedupKey: { json_pointer: '/event/id' },
  },
  typeform: {
    eventType: { json_pointer: '/event_type' },
    verification: base64Body('typeform-signature', 'sha256='),
    secretFrom: 'either',
    dedupKey: { json_pointer: '/event_id' },
  },
  calendly: {
    eventType: { json_pointer: '/event' },
    verification: stripeLike('calendly-webhook-signature', 180),
    secretFrom: 'either',
  },
  mailgun: {
    eventType: { json_pointer: '/event-data/event' },
    verification: {
      kind: 'hmac',
      signature: { jsonPointer: '/signature/signature' },
      encoding: 'hex',
      signed: ['timestamp', { jsonPointer: '/signature/token' }],
      // Mailgun retries for 8 hours and says not to be strict with the time: 9 hours, and the token
      // taken once (its signature does not cover the event).
      timestamp: { from: { jsonPointer: '/signature/timestamp' }, unit: 'seconds', toleranceSeconds: 9 * 3600 },
    },
    dedupKey: { json_pointer: '/event-data/id' },
    replayKey: { json_pointer: '/signature/token' },
  },
  dropbox: {
    verification: hexBody('x-dropbox-signature'),
    minSecretLength: 8,
    handshake: echoQuery('GET', 'challenge'),
  },
  clerk: {
    eventType: { json_pointer: '/type' },
    verification: standardWebhooks('svix'),
    dedupKey: { header: 'svix-id' },
  },
  resend: {
    eventType: { json_pointer: '/type' },
    verification: standardWebhooks('svix'),
    dedupKey: { header: 'svix-id' },
  },
  svix: {
    verification: standardWebhooks('svix'),
    dedupKey: { header: 'svix-id' },
  },
  zendesk: {
    verification: {
      kind: 'hmac',
      signature: { header: 'x-zendesk-webhook-signature' },
      encoding: 'base64',
      signed: ['timestamp', 'body'],
      timestamp: {
        from: { header: 'x-zendesk-webhook-signature-timestamp' },
        unit: 'iso8601',
        toleranceSeconds: 300,
      },
    },
    dedupKey: { header: 'x-zendesk-webhook-invocation-id' },
  },
  jira: {
    eventType: { json_pointer: '/webhookEvent' },
    verification: hexBody('x-hub-signature', 'sha256', 'sha256='),
    secretFrom: 'either',
    dedupKey: { header: 'x-atlassian-webhook-identifier' },
  },
  bitbucket: {
    eventType: { header: 'x-event-key' },
    verification: hexBody('x-hub-signature', 'sha256', 'sha256='),
    secretFrom: 'either',
    dedupKey: { header: 'x-request-uuid' },
  },
  twitch: {
    eventType: { header: 'twitch-eventsub-subscription-type' },
    verification: {
      kind: 'hmac',
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
  },
  discord: {
    verification: {
      kind: 'ed25519',
      signature: 'x-signature-ed25519',
      signed: ['timestamp', 'body'],
      timestamp: { from: { header: 'x-signature-timestamp' }, unit: 'seconds', toleranceSeconds: 300 },
    },
    secretFrom: 'public-key',
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/type', equals: 0, marker: '"type":0' },
      challenge: null,
      authenticated: true,
      answer: { empty: true },
    },
  },
  woocommerce: {
    eventType: { header: 'x-wc-webhook-topic' },
    verification: base64Body('x-wc-webhook-signature'),
    secretFrom: 'either',
    dedupKey: { header: 'x-wc-webhook-delivery-id' },
  },
  postmark: {
    eventType: { json_pointer: '/RecordType' },
    verification: { kind: 'token', header: 'authorization', scheme: 'Basic' },
    secretFrom: 'either',
    minSecretLength: 3,
  },
  mailchimp: {
    verification: {
      kind: 'hmac',
      algorithm: 'sha1',
      signature: { header: 'x-mandrill-signature' },
      encoding: 'base64',
      signed: ['url', 'sorted-form-params'],
    },
  },
  airtable: {
    verification: {
      kind: 'hmac',
      key: 'base64',
      signature: { header: 'x-airtable-content-mac' },
      encoding: 'hex',
      prefix: 'hmac-sha256=',
      signed: ['body'],
    },
  },
  notion: {
    verification: hexBody('x-notion-signature', 'sha256', 'sha256='),
    handshake: {
      method: 'POST',
      when: { jsonPointer: '/verification_token', marker: '"verification_token"' },
      challenge: null,
      authenticated: false,
      answer: { acceptAsEvent: true },
    },
    dedupKey: { json_pointer: '/id' },
  },
  vercel: {
    eventType: { json_pointer: '/type' },
    verification: hexBody('x-vercel-signature', 'sha1'),
    dedupKey: { json_pointer: '/id' },
  },
  sentry: {
    eventType: { header: 'sentry-hook-resource' },
    verification: hexBody('sentry-hook-signature'),
    dedupKey: { header: 'request-id' },
  },
  okta: {
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
  },
  plaid: {
    verification: {
      kind: 'jwt',
      algorithm: 'ES256',
      header: 'plaid-verification',
      bodyHashClaim: 'request_body_sha256',
      toleranceSeconds: 300,
    },
    secretFrom: 'public-key',
  },
  x: {
    verification: base64Body('x-twitter-webhooks-signature', 'sha256='),
    handshake: {
      method: 'GET',
      when: { query: 'crc_token' },
      challenge: { query: 'crc_token' },
      authenticated: false,
      answer: { json: { response_token: { hmac: 'base64', prefix: 'sha256=' } } },
    },
  },
  box: {
    verification: {
      kind: 'hmac',
      signature: { header: 'box-signature-primary' },
      encoding: 'base64',
      signed: ['body', 'timestamp'],
      timestamp: { from: { header: 'box-delivery-timestamp' }, unit: 'iso8601', toleranceSeconds: 600 },
    },
    dedupKey: { header: 'box-delivery-id' },
  },
  netlify: {
    verification: {
      kind: 'jwt',
      algorithm: 'HS256',
      header: 'x-webhook-signature',
      bodyHashClaim: 'sha256',
      issuer: 'netlify',
      toleranceSeconds: null,
    },
    secretFrom: 'either',
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
