/**
 * Webhook signatures, verified over the raw request bytes with constant-time comparisons.
 *   standard-webhooks  webhook-id, webhook-timestamp, webhook-signature: "v1,<base64>" (space-separated list)
 *                      HMAC-SHA256(base64-decoded whsec_ secret, "<id>.<timestamp>.<body>")
 *   github             x-hub-signature-256: "sha256=<hex>"  HMAC-SHA256(secret, body)
 *   stripe             stripe-signature: "t=<timestamp>,v1=<hex>[,v1=…]"  HMAC-SHA256(secret, "<t>.<body>")
 *   hmac-sha256        a configured header: "<hex|base64>" (an optional "sha256=" prefix)  HMAC-SHA256(secret, body)
 * Timestamped schemes are refused outside the tolerance. Anything unknown fails closed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureSettings } from '../connections/security.ts';

export type SignatureFailure = 'MISSING_SIGNATURE' | 'INVALID_SIGNATURE' | 'STALE_TIMESTAMP';

export interface SignedRequest {
  headers: (name: string) => string | undefined;
  body: Buffer;
}

function hmac(key: Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

function same(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function decode(value: string, encoding: 'hex' | 'base64'): Buffer {
  if (encoding === 'hex')
    return /^[0-9a-f]+$/i.test(value) && value.length % 2 === 0 ? Buffer.from(value, 'hex') : Buffer.alloc(0);
  return Buffer.from(value, 'base64');
}

function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function withinTolerance(timestamp: string, toleranceSeconds: number, now: Date): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(now.getTime() / 1000 - Number(timestamp)) <= toleranceSeconds;
}

/** null when one of the secrets signed the request; otherwise why not. */
export function verifySignature(
  settings: SignatureSettings,
  secrets: string[],
  request: SignedRequest,
  now = new Date(),
): SignatureFailure | null {
  const tolerance = settings.tolerance_seconds ?? 300;
  switch (settings.scheme) {
    case 'standard-webhooks': {
      const id = request.headers('webhook-id');
      const timestamp = request.headers('webhook-timestamp');
      const signatures = request.headers('webhook-signature');
      if (!id || !timestamp || !signatures) return 'MISSING_SIGNATURE';
      if (!withinTolerance(timestamp, tolerance, now)) return 'STALE_TIMESTAMP';
      const given = signatures
        .split(' ')
        .filter((entry) => entry.startsWith('v1,'))
        .map((entry) => Buffer.from(entry.slice(3), 'base64'));
      const matches = secrets.some((secret) => {
        const expected = hmac(standardWebhooksKey(secret), `${id}.${timestamp}.`, request.body);
        return given.some((signature) => same(expected, signature));
      });
      return matches ? null : 'INVALID_SIGNATURE';
    }
    case 'github': {
      const header = request.headers('x-hub-signature-256');
      if (!header) return 'MISSING_SIGNATURE';
      if (!header.startsWith('sha256=')) return 'INVALID_SIGNATURE';
      const given = decode(header.slice('sha256='.length), 'hex');
      return secrets.some((secret) => same(hmac(Buffer.from(secret, 'utf8'), request.body), given))
        ? null
        : 'INVALID_SIGNATURE';
    }
    case 'stripe': {
      const header = request.headers('stripe-signature');
      if (!header) return 'MISSING_SIGNATURE';
      const pairs = header.split(',').map((pair) => pair.trim().split('='));
      const timestamp = pairs.find(([key]) => key === 't')?.[1];
      const given = pairs.filter(([key]) => key === 'v1').map(([, value]) => decode(value ?? '', 'hex'));
      if (!timestamp || given.length === 0) return 'INVALID_SIGNATURE';
      if (!withinTolerance(timestamp, tolerance, now)) return 'STALE_TIMESTAMP';
      const matches = secrets.some((secret) => {
        const expected = hmac(Buffer.from(secret, 'utf8'), `${timestamp}.`, request.body);
        return given.some((signature) => same(expected, signature));
      });
      return matches ? null : 'INVALID_SIGNATURE';
    }
    case 'hmac-sha256': {
      const header = settings.header ? request.headers(settings.header) : undefined;
      if (!header) return 'MISSING_SIGNATURE';
      const given = decode(header.replace(/^sha256=/, ''), settings.encoding ?? 'hex');
      return secrets.some((secret) => same(hmac(Buffer.from(secret, 'utf8'), request.body), given))
        ? null
        : 'INVALID_SIGNATURE';
    }
    default:
      return 'INVALID_SIGNATURE';
  }
}
