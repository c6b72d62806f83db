/**
 * The headers an envelope keeps (envelopeHeaders): names lowercased, values as received, every
 * credential left out by the one rule rejections use, and a bound on their size. The matrix is
 * written out: each header, and whether the envelope keeps it.
 */
import { describe, expect, it } from 'vitest';
import { secretHeadersOf } from '#shared/domain/connections/signature-headers.ts';
import { envelopeHeaders, envelopeHeadersMaxBytes } from '#shared/domain/ingest/envelope.ts';

/** A source signing with its own header (hmac-sha256), whose name says nothing of a secret. */
const ownHeaderSettings = { scheme: 'hmac-sha256' as const, header: 'X-Acme-Proof' };

const matrix: [header: string, value: string, kept: boolean][] = [
  ['Authorization', 'Bearer trb_ing_secret-token', false],
  ['Proxy-Authorization', 'Basic dXNlcjpwYXNz', false],
  ['Cookie', 'session=abc123', false],
  ['X-Hub-Signature-256', 'sha256=0123abcd', false],
  ['X-Hub-Signature', 'sha1=0123abcd', false],
  ['Stripe-Signature', 't=1,v1=abcd', false],
  ['X-Shopify-Hmac-Sha256', 'c2lnbmF0dXJl', false],
  ['X-Slack-Signature', 'v0=abcd', false],
  ['Webhook-Signature', 'v1,abcd', false],
  ['X-Twilio-Signature', 'abcd', false],
  ['X-Api-Key', 'key-123', false],
  ['X-Gitlab-Token', 'gl-secret', false],
  ['X-Acme-Proof', 'proof-of-the-secret', false],
  ['X-Tributary-Origin', 'the-edge-origin-secret', false],
  ['X-GitHub-Event', 'pull_request', true],
  ['X-GitHub-Delivery', '72d3162e-cc78-11e3-81ab-4c9367dc0958', true],
  ['X-GitHub-Hook-ID', '292430182', true],
  ['X-Shopify-Topic', 'orders/create', true],
  ['X-Slack-Request-Timestamp', '1531420618', true],
  ['X-Custom-Thing', 'Mixed Case Value; kept as sent', true],
  ['Content-Type', 'application/json', true],
  ['User-Agent', 'GitHub-Hookshot/044aadd', true],
];

describe('the headers an envelope keeps', () => {
  it('leaves out every credential, the signature headers of every preset and of the source, and keeps the rest as sent', () => {
    const kept = envelopeHeaders(
      Object.fromEntries(matrix.map(([name, value]) => [name, value])),
      secretHeadersOf(ownHeaderSettings),
    );
    expect(kept).toEqual(
      Object.fromEntries(matrix.filter(([, , keep]) => keep).map(([name, value]) => [name.toLowerCase(), value])),
    );
    const text = JSON.stringify(kept);
    for (const [, value, keep] of matrix) if (!keep) expect(text).not.toContain(value);
  });

  it('leaves out a source’s own signature header only for that source: it is no credential elsewhere', () => {
    expect(envelopeHeaders({ 'X-Acme-Proof': 'p' }, secretHeadersOf(null))).toEqual({ 'x-acme-proof': 'p' });
    expect(envelopeHeaders({ 'X-Acme-Proof': 'p' }, secretHeadersOf(ownHeaderSettings))).toEqual({});
  });

  it('joins a header sent under two spellings with a comma, as repeated headers arrive', () => {
    expect(envelopeHeaders({ 'X-Tag': 'a', 'x-tag': 'b,c' }, new Set())).toEqual({ 'x-tag': 'a,b,c' });
  });

  it('keeps headers in the order received while they fit the bound, and leaves out whole any that does not', () => {
    const big = 'v'.repeat(envelopeHeadersMaxBytes - 100);
    const kept = envelopeHeaders(
      { 'x-first': 'one', 'x-big': big, 'x-too-big': 'w'.repeat(200), 'x-small': 'two' },
      new Set(),
    );
    expect(kept).toEqual({ 'x-first': 'one', 'x-big': big, 'x-small': 'two' });
    const bytes = Object.entries(kept).reduce((sum, [name, value]) => sum + name.length + value.length, 0);
    expect(bytes).toBeLessThanOrEqual(envelopeHeadersMaxBytes);
  });

  it('keeps a header named like an object property as a header', () => {
    const kept = envelopeHeaders(JSON.parse('{"__proto__":"x","constructor":"y"}'), new Set());
    expect(JSON.stringify(kept)).toBe('{"__proto__":"x","constructor":"y"}');
  });
});
