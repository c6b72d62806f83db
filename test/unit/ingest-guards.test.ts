import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  allowed,
  allowlistOf,
  applySecurityUpdate,
  defaultSecurity,
  rotateSecret,
  type SignatureSettings,
} from '#shared/domain/connections/security.ts';
import { type SignedRequest, verifySignature } from '#shared/domain/ingest/signatures.ts';
import { putSecurityBody } from '#shared/http/schemas/connections.ts';

describe('the IP allowlist', () => {
  it('matches IPv4 and IPv6 networks and single addresses, including IPv4-mapped IPv6', () => {
    const list = allowlistOf(['192.0.2.0/24', '2001:db8::/32', '198.51.100.7']);
    expect(allowed(list, '192.0.2.255')).toBe(true);
    expect(allowed(list, '192.0.3.0')).toBe(false);
    expect(allowed(list, '2001:db8:ffff::1')).toBe(true);
    expect(allowed(list, '2001:db9::1')).toBe(false);
    expect(allowed(list, '198.51.100.7')).toBe(true);
    expect(allowed(list, '::ffff:198.51.100.7')).toBe(true);
    expect(allowed(list, 'not an address')).toBe(false);
  });

  it('refuses malformed entries', () => {
    for (const entry of [
      '10.0.0.0/33',
      '::/129',
      'example.com',
      '10.0.0.0/x',
      // Read as /0 (every address) or as another prefix by a loose number parse.
      '203.0.113.7/',
      '203.0.113.7/ 8',
      '1.2.3.4/0x10',
      '1.2.3.4/1e1',
      '10.0.0.0/8/x',
      '10.0.0.0/+8',
      '/8',
      '2001:db8::/',
      '10.0.0.0/0008',
    ])
      expect(() => allowlistOf([entry]), entry).toThrow();
    // The forms that stand: an address alone, a prefix of one to three digits.
    expect(allowed(allowlistOf(['203.0.113.7']), '203.0.113.8')).toBe(false);
    expect(allowed(allowlistOf(['0.0.0.0/0']), '203.0.113.8')).toBe(true);
    expect(allowed(allowlistOf(['203.0.113.0/024']), '203.0.113.8')).toBe(true);
  });
});

describe('signature verification', () => {
  const body = Buffer.from('{"a":1}');
  const signed = (request: { headers: (name: string) => string | undefined; body: Buffer }): SignedRequest => ({
    method: 'POST',
    url: 'https://ingest.example/api/ingest/s',
    query: () => undefined,
    json: () => undefined,
    ...request,
  });
  const settings = (scheme: string): SignatureSettings =>
    ({ scheme, header: 'x-sig', encoding: 'hex', tolerance_seconds: 300, secrets: [] }) as unknown as SignatureSettings;

  it('fails closed for a scheme it does not know', () => {
    expect(verifySignature(settings('acme-v9'), ['secret'], signed({ headers: () => 'anything', body }))).toBe(
      'INVALID_SIGNATURE',
    );
  });

  it('accepts a signature made with any of the valid secrets (rotation)', () => {
    const headers = (secret: string) => (name: string) =>
      name === 'x-sig' ? createHmac('sha256', secret).update(body).digest('hex') : undefined;
    expect(
      verifySignature(
        settings('hmac-sha256'),
        ['new-secret', 'old-secret'],
        signed({ headers: headers('old-secret'), body }),
      ),
    ).toBeNull();
    expect(
      verifySignature(settings('hmac-sha256'), ['new-secret'], signed({ headers: headers('old-secret'), body })),
    ).toBe('INVALID_SIGNATURE');
  });

  it('verifies over the raw bytes, so bodies that are not UTF-8 verify too', () => {
    const binary = Buffer.from([0xff, 0x00, 0xfe]);
    const signature = createHmac('sha256', 's').update(binary).digest('hex');
    expect(
      verifySignature(
        settings('hmac-sha256'),
        ['s'],
        signed({ headers: (name) => (name === 'x-sig' ? `sha256=${signature}` : undefined), body: binary }),
      ),
    ).toBeNull();
  });
});

describe('security settings', () => {
  const seal = async (secret: string) => `sealed:${secret}`;
  const now = new Date('2026-11-21T10:00:00Z');

  it('keeps the secrets of an unchanged scheme, and generates one for a new scheme', async () => {
    const first = await applySecurityUpdate(
      defaultSecurity,
      {
        auth_mode: 'signature',
        signature: { scheme: 'github' },
        dedup_window_seconds: 0,
        rate_limit: null,
        ip_allowlist: null,
      },
      seal,
      now,
    );
    expect(first.generatedSecret).toEqual(expect.any(String));
    const same = await applySecurityUpdate(
      first.security,
      {
        auth_mode: 'signature',
        signature: { scheme: 'github' },
        dedup_window_seconds: 60,
        rate_limit: null,
        ip_allowlist: null,
      },
      seal,
      now,
    );
    expect(same.generatedSecret).toBeNull();
    expect(same.security.signature?.secrets).toEqual(first.security.signature?.secrets);
  });

  it('takes a body of auth_mode alone, and a PUT that leaves a setting out turns it off', async () => {
    // Prepare: a source with every protection on.
    const guarded = await applySecurityUpdate(
      defaultSecurity,
      {
        auth_mode: 'signature',
        signature: { scheme: 'github', secret: 'a-secret-of-16-ch' },
        dedup_window_seconds: 600,
        dedup_key: { header: 'X-GitHub-Delivery' },
        rate_limit: { requests_per_second: 5, burst: 10 },
        ip_allowlist: ['192.30.252.0/22'],
      },
      seal,
      now,
    );
    const minimal = { auth_mode: 'bearer' };

    // Act
    const parsed = putSecurityBody.safeParse(minimal);
    const updated = await applySecurityUpdate(guarded.security, { auth_mode: 'bearer' }, seal, now);

    // Assess
    expect(parsed).toEqual({ success: true, data: minimal });
    expect(updated.security).toEqual({
      auth_mode: 'bearer',
      signature: null,
      dedup_window_seconds: 0,
      dedup_key: null,
      rate_limit: null,
      ip_allowlist: null,
    });
  });

  it('refuses what it refused before when a setting is given: a null auth_mode, an empty allowlist', () => {
    for (const body of [
      {},
      { auth_mode: null },
      { auth_mode: 'bearer', ip_allowlist: [] },
      { auth_mode: 'bearer', rate_limit: {} },
      // Below about one a day: 1e-200 is beyond what DynamoDB stores, 1e-13 a token interval past a safe integer.
      ...[0, -1, 1e-200, 1e-13, 0.000009, 10_001].map((requests_per_second) => ({
        auth_mode: 'bearer',
        rate_limit: { requests_per_second, burst: 1 },
      })),
    ])
      expect(putSecurityBody.safeParse(body).success, JSON.stringify(body)).toBe(false);
    for (const requests_per_second of [0.00001, 0.5, 10_000])
      expect(
        putSecurityBody.safeParse({ auth_mode: 'bearer', rate_limit: { requests_per_second, burst: 1 } }).success,
        String(requests_per_second),
      ).toBe(true);
  });

  it('gives previous secrets the grace time on rotation and drops the expired ones', async () => {
    const base = await applySecurityUpdate(
      defaultSecurity,
      {
        auth_mode: 'signature',
        signature: { scheme: 'stripe', secret: 'whsec_one_xxxxxxxxxxxxx' },
        dedup_window_seconds: 0,
        rate_limit: null,
        ip_allowlist: null,
      },
      seal,
      now,
    );
    const once = await rotateSecret(base.security, 'whsec_two_xxxxxxxxxxxxx', 3600, seal, now);
    expect(once.security.signature?.secrets.map((secret) => [secret.sealed, secret.expires_at])).toEqual([
      ['sealed:whsec_two_xxxxxxxxxxxxx', null],
      ['sealed:whsec_one_xxxxxxxxxxxxx', '2026-11-21T11:00:00.000Z'],
    ]);
    const later = await rotateSecret(
      once.security,
      'whsec_three_xxxxxxxxxxx',
      3600,
      seal,
      new Date('2026-11-21T12:00:00Z'),
    );
    expect(later.security.signature?.secrets.map((secret) => secret.sealed)).toEqual([
      'sealed:whsec_three_xxxxxxxxxxx',
      'sealed:whsec_two_xxxxxxxxxxxxx',
    ]);
  });
});
