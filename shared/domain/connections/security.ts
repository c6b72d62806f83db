/**
 * How a source authenticates and protects itself: bearer token, signature, or both; replay
 * windows; deduplication; a rate limit; an IP allowlist. Kept on the source item, which is what
 * ingest reads; signing secrets are held only sealed, and shown once.
 */
import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { conflict, invalid } from '../errors.ts';

export const authModes = ['bearer', 'signature', 'bearer_and_signature'] as const;
export type AuthMode = (typeof authModes)[number];
export const signatureSchemes = ['standard-webhooks', 'github', 'stripe', 'hmac-sha256'] as const;
export type SignatureScheme = (typeof signatureSchemes)[number];

export interface SealedSecret {
  sealed: string;
  created_at: string;
  /** Set on a previous secret when a new one replaces it: valid until then, so senders can switch. */
  expires_at: string | null;
}

export interface SignatureSettings {
  scheme: SignatureScheme;
  /** hmac-sha256 only: where the signature is and how it is encoded. */
  header: string | null;
  encoding: 'hex' | 'base64' | null;
  /** Timestamped schemes (standard-webhooks, stripe): how far a timestamp may be from now. */
  tolerance_seconds: number | null;
  secrets: SealedSecret[];
}

export interface SourceSecurity {
  auth_mode: AuthMode;
  signature: SignatureSettings | null;
  dedup_window_seconds: number;
  rate_limit: { requests_per_second: number; burst: number } | null;
  ip_allowlist: string[] | null;
}

export const defaultSecurity: SourceSecurity = {
  auth_mode: 'bearer',
  signature: null,
  dedup_window_seconds: 0,
  rate_limit: null,
  ip_allowlist: null,
};

export const defaultToleranceSeconds = 300;

/** Sealed signing secrets open only on the source they were sealed for. */
export const signingSecretContext = (sourceId: string) => `signing-secret:${sourceId}`;
export const defaultGraceSeconds = 86_400;

export const usesBearer = (security: SourceSecurity) => security.auth_mode !== 'signature';
export const usesSignature = (security: SourceSecurity) => security.auth_mode !== 'bearer';
export const isTimestamped = (scheme: SignatureScheme) => scheme === 'standard-webhooks' || scheme === 'stripe';

/** The settings as the API shows them: everything but the secrets, of which only the count and dates. */
export function publicSecurity(security: SourceSecurity) {
  return {
    auth_mode: security.auth_mode,
    signature: security.signature
      ? {
          scheme: security.signature.scheme,
          header: security.signature.header,
          encoding: security.signature.encoding,
          tolerance_seconds: security.signature.tolerance_seconds,
          secrets: security.signature.secrets.map((secret) => ({
            created_at: secret.created_at,
            expires_at: secret.expires_at,
          })),
        }
      : null,
    dedup_window_seconds: security.dedup_window_seconds,
    rate_limit: security.rate_limit,
    ip_allowlist: security.ip_allowlist,
  };
}

/** A new secret in the form the scheme's senders expect (Standard Webhooks: whsec_ + base64). */
export function generateSecret(scheme: SignatureScheme): string {
  const bytes = randomBytes(32);
  return scheme === 'standard-webhooks' ? `whsec_${bytes.toString('base64')}` : bytes.toString('base64url');
}

/** Parses a CIDR list into a matcher; every entry must be a valid IPv4 or IPv6 address or network. */
export function allowlistOf(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32))
      throw new Error(entry);
    list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

export function allowed(list: BlockList, sourceIp: string): boolean {
  const ip = sourceIp.replace(/^::ffff:/, '');
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

export interface SecurityUpdate {
  auth_mode: AuthMode;
  signature: {
    scheme: SignatureScheme;
    secret?: string | undefined;
    header?: string | undefined;
    encoding?: 'hex' | 'base64' | undefined;
    tolerance_seconds?: number | undefined;
  } | null;
  dedup_window_seconds: number;
  rate_limit: { requests_per_second: number; burst: number } | null;
  ip_allowlist: string[] | null;
}

/**
 * The settings a PUT asks for, checked as a whole.
 *  - A mode that needs a signature needs a scheme.
 *  - A secret given replaces the current ones; none given keeps them for the same scheme, or a new
 *    one is generated (and returned, once) for a new scheme.
 */
export async function applySecurityUpdate(
  current: SourceSecurity,
  update: SecurityUpdate,
  seal: (secret: string) => Promise<string>,
  now: Date,
): Promise<{ security: SourceSecurity; generatedSecret: string | null }> {
  if (update.auth_mode !== 'bearer' && !update.signature) {
    throw invalid('This authentication mode needs a signature scheme', [
      { path: 'signature', message: `Required for ${update.auth_mode}` },
    ]);
  }
  if (update.ip_allowlist) {
    for (const [index, entry] of update.ip_allowlist.entries()) {
      try {
        allowlistOf([entry]);
      } catch {
        throw invalid('The IP allowlist is not valid', [
          { path: `ip_allowlist.${index}`, message: 'Not an IPv4 or IPv6 address or CIDR network' },
        ]);
      }
    }
  }
  let signature: SignatureSettings | null = null;
  let generatedSecret: string | null = null;
  if (update.signature) {
    const { scheme } = update.signature;
    if (scheme !== 'hmac-sha256' && (update.signature.header || update.signature.encoding)) {
      throw invalid('header and encoding apply to hmac-sha256 only', [
        { path: 'signature', message: `Not for ${scheme}` },
      ]);
    }
    if (!isTimestamped(scheme) && update.signature.tolerance_seconds !== undefined) {
      throw invalid('tolerance_seconds applies to timestamped schemes only', [
        { path: 'signature.tolerance_seconds', message: `${scheme} signs no timestamp` },
      ]);
    }
    let secrets: SealedSecret[];
    if (update.signature.secret) {
      secrets = [{ sealed: await seal(update.signature.secret), created_at: now.toISOString(), expires_at: null }];
    } else if (current.signature?.scheme === scheme && current.signature.secrets.length > 0) {
      secrets = current.signature.secrets;
    } else {
      generatedSecret = generateSecret(scheme);
      secrets = [{ sealed: await seal(generatedSecret), created_at: now.toISOString(), expires_at: null }];
    }
    signature = {
      scheme,
      header: scheme === 'hmac-sha256' ? (update.signature.header ?? 'x-signature').toLowerCase() : null,
      encoding: scheme === 'hmac-sha256' ? (update.signature.encoding ?? 'hex') : null,
      tolerance_seconds: isTimestamped(scheme) ? (update.signature.tolerance_seconds ?? defaultToleranceSeconds) : null,
      secrets,
    };
  }
  return {
    security: {
      auth_mode: update.auth_mode,
      signature,
      dedup_window_seconds: update.dedup_window_seconds,
      rate_limit: update.rate_limit,
      ip_allowlist: update.ip_allowlist,
    },
    generatedSecret,
  };
}

/**
 * A new signing secret (given, or generated) becomes the first; the previous ones stay valid for
 * `graceSeconds` so senders can switch without a gap; secrets past their time are dropped.
 */
export async function rotateSecret(
  current: SourceSecurity,
  given: string | undefined,
  graceSeconds: number,
  seal: (secret: string) => Promise<string>,
  now: Date,
): Promise<{ security: SourceSecurity; secret: string }> {
  if (!current.signature) throw conflict('The source has no signature scheme; set one with PUT …/security first');
  const secret = given ?? generateSecret(current.signature.scheme);
  const expiry = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const previous = current.signature.secrets
    .filter((old) => !old.expires_at || old.expires_at > now.toISOString())
    .map((old) => ({ ...old, expires_at: old.expires_at && old.expires_at < expiry ? old.expires_at : expiry }));
  return {
    security: {
      ...current,
      signature: {
        ...current.signature,
        secrets: [{ sealed: await seal(secret), created_at: now.toISOString(), expires_at: null }, ...previous],
      },
    },
    secret,
  };
}
