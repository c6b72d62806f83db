/**
 * How a source authenticates and protects itself: bearer token, signature, or both; replay
 * windows; deduplication; a rate limit; an IP allowlist. Kept on the source item, which is what
 * ingest reads; signing secrets are held only sealed, and shown once.
 */
import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { conflict, invalid } from '../errors.ts';
import { jsonPointerPattern } from '../json-pointer.ts';
import { hashToken } from '../tokens.ts';
import { presetTexts } from './preset-texts.ts';
import { type DedupKey, defaultToleranceOf, isTimestamped, presetOf } from './presets.ts';
import { publicKeyProblem } from './public-keys.ts';
import { type AuthMode, authModes, type SignatureScheme, signatureSchemes } from './security-names.ts';
import type { SealedSecret, SignatureSettings, SourceSecurity } from './source-security.ts';

export {
  defaultSecurity,
  type SealedSecret,
  type SignatureSettings,
  type SourceSecurity,
} from './source-security.ts';
export { type AuthMode, authModes, type DedupKey, isTimestamped, type SignatureScheme, signatureSchemes };

/** Sealed signing secrets open only on the source they were sealed for. */
export const signingSecretContext = (sourceId: string) => `signing-secret:${sourceId}`;
export const defaultGraceSeconds = 86_400;

export const usesBearer = (security: SourceSecurity) => security.auth_mode !== 'signature';
export const usesSignature = (security: SourceSecurity) => security.auth_mode !== 'bearer';

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
          public_key: security.signature.public_key ?? null,
          verify_token_set: Boolean(security.signature.verify_token_hash),
          secrets: security.signature.secrets.map((secret) => ({
            created_at: secret.created_at,
            expires_at: secret.expires_at,
          })),
        }
      : null,
    dedup_window_seconds: security.dedup_window_seconds,
    dedup_key: security.dedup_key ?? null,
    rate_limit: security.rate_limit,
    ip_allowlist: security.ip_allowlist,
  };
}

/** A new secret in the form the scheme's senders expect (Standard Webhooks: whsec_ + base64; Basic: user:password). */
export function generateSecret(scheme: SignatureScheme): string {
  const bytes = randomBytes(32);
  const form = presetOf(scheme).verification;
  if (form.kind === 'hmac' && form.key === 'whsec') return `whsec_${bytes.toString('base64')}`;
  if (form.kind === 'token' && form.scheme === 'Basic') return `tributary:${bytes.toString('base64url')}`;
  return bytes.toString('base64url');
}

const normalisedDedupKey = (key: DedupKey): DedupKey =>
  'header' in key ? { header: key.header.toLowerCase() } : { json_pointer: key.json_pointer };

type SignatureUpdate = NonNullable<SecurityUpdate['signature']>;

/**
 * The signature settings a PUT asks for, checked against the scheme's preset:
 *  - header and encoding belong to the generic hmac-sha256 scheme, a tolerance to timestamped
 *    schemes, a public key to public-key schemes (and is required there), a verify token to
 *    schemes whose handshake checks one (and is required there);
 *  - a secret given replaces the current ones; none given keeps them for the same scheme; a new
 *    scheme whose provider issues the secret needs it, any other gets one generated (returned once).
 */
async function signatureOf(
  current: SignatureSettings | null,
  update: SignatureUpdate,
  seal: (secret: string) => Promise<string>,
  now: Date,
): Promise<{ signature: SignatureSettings; generatedSecret: string | null }> {
  const { scheme } = update;
  const preset = presetOf(scheme);
  const { label } = presetTexts[scheme];
  const sameScheme = current?.scheme === scheme;
  const refuse = (path: string, message: string, why: string) =>
    invalid(message, [{ path: `signature.${path}`, message: why }]);
  if (scheme !== 'hmac-sha256' && (update.header || update.encoding))
    throw refuse('header', 'header and encoding apply to hmac-sha256 only', `Not for ${scheme}`);
  if (!isTimestamped(scheme) && update.tolerance_seconds !== undefined)
    throw refuse(
      'tolerance_seconds',
      'tolerance_seconds applies to timestamped schemes only',
      `${scheme} signs no timestamp`,
    );
  const verifyTokenParam = preset.handshake?.verifyTokenParam;
  if (update.verify_token !== undefined && !verifyTokenParam)
    throw refuse(
      'verify_token',
      'verify_token applies to schemes whose handshake checks one (meta)',
      `Not for ${scheme}`,
    );
  const verifyTokenHash = update.verify_token
    ? hashToken(update.verify_token)
    : sameScheme
      ? (current?.verify_token_hash ?? null)
      : null;
  if (verifyTokenParam && !verifyTokenHash)
    throw refuse('verify_token', `${label} checks a verify token in its handshake`, 'Required');

  let secrets: SealedSecret[] = [];
  let publicKey: string | null = null;
  let generatedSecret: string | null = null;
  if (preset.secretFrom === 'public-key') {
    if (update.secret) throw refuse('secret', `${label} signs with a key pair`, 'Give public_key instead');
    publicKey = update.public_key ?? (sameScheme ? (current?.public_key ?? null) : null);
    const problem = publicKey === null ? 'Required' : publicKeyProblem(preset.verification, publicKey);
    if (problem) throw refuse('public_key', `${label} needs the provider's public key`, problem);
  } else {
    if (update.public_key) throw refuse('public_key', `${label} signs with a shared secret`, 'Give secret instead');
    const minLength = preset.minSecretLength ?? 16;
    if (update.secret !== undefined && update.secret.length < minLength)
      throw refuse('secret', 'The signing secret is too short', `At least ${minLength} characters`);
    if (update.secret) {
      secrets = [{ sealed: await seal(update.secret), created_at: now.toISOString(), expires_at: null }];
    } else if (sameScheme && current && current.secrets.length > 0) {
      secrets = current.secrets;
    } else if (!preset.secretFrom) {
      throw refuse('secret', `${label} issues the signing secret: paste it here`, 'Required');
    } else {
      generatedSecret = generateSecret(scheme);
      secrets = [{ sealed: await seal(generatedSecret), created_at: now.toISOString(), expires_at: null }];
    }
  }
  return {
    signature: {
      scheme,
      header: scheme === 'hmac-sha256' ? (update.header ?? 'x-signature').toLowerCase() : null,
      encoding: scheme === 'hmac-sha256' ? (update.encoding ?? 'hex') : null,
      tolerance_seconds: update.tolerance_seconds ?? defaultToleranceOf(scheme),
      secrets,
      public_key: publicKey,
      verify_token_hash: verifyTokenHash,
    },
    generatedSecret,
  };
}

/**
 * Parses a CIDR list into a matcher; every entry must be a valid IPv4 or IPv6 address, or one with a prefix length of
 * one to three decimal digits. Nothing looser: `Number()` reads "" and " 8" and "0x10" as numbers, and a trailing "/"
 * taken as /0 would let every address in.
 */
export function allowlistOf(entries: string[], invalid: 'throw' | 'matches nothing' = 'throw'): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [, address = '', bits] = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry) ?? [];
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (!family || prefix > (family === 6 ? 128 : 32)) {
      if (invalid === 'throw') throw new Error(entry);
      continue;
    }
    list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

export function allowed(list: BlockList, sourceIp: string): boolean {
  const ip = sourceIp.replace(/^::ffff:/, '');
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/** What a PUT sets: the whole of the settings, each one left out being off. */
export interface SecurityUpdate {
  auth_mode: AuthMode;
  signature?:
    | {
        scheme: SignatureScheme;
        secret?: string | undefined;
        header?: string | undefined;
        encoding?: 'hex' | 'base64' | undefined;
        tolerance_seconds?: number | undefined;
        public_key?: string | undefined;
        verify_token?: string | undefined;
      }
    | null
    | undefined;
  dedup_window_seconds?: number | undefined;
  dedup_key?: DedupKey | null | undefined;
  rate_limit?: { requests_per_second: number; burst: number } | null | undefined;
  ip_allowlist?: string[] | null | undefined;
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
  const { signature, generatedSecret } = update.signature
    ? await signatureOf(current.signature, update.signature, seal, now)
    : { signature: null, generatedSecret: null };
  if (
    update.dedup_key &&
    'json_pointer' in update.dedup_key &&
    !jsonPointerPattern.test(update.dedup_key.json_pointer)
  ) {
    throw invalid('The deduplication key is not valid', [
      { path: 'dedup_key.json_pointer', message: 'Not a JSON pointer (RFC 6901): empty, or /name/0/…' },
    ]);
  }
  return {
    security: {
      auth_mode: update.auth_mode,
      signature,
      dedup_window_seconds: update.dedup_window_seconds ?? 0,
      dedup_key: update.dedup_key ? normalisedDedupKey(update.dedup_key) : null,
      rate_limit: update.rate_limit ?? null,
      ip_allowlist: update.ip_allowlist ?? null,
    },
    generatedSecret,
  };
}

/**
 * Secrets still in their grace time beside the current one. Each is kept on the source item, which
 * every ingest cache miss reads: a bound keeps it small (a few KB) however often a source rotates.
 */
export const maxPreviousSecrets = 4;

/**
 * A new signing secret (given, or generated) becomes the first; the previous ones stay valid for
 * `graceSeconds` so senders can switch without a gap; secrets past their time are dropped. A rotation
 * that would keep more than maxPreviousSecrets in their grace time is refused (409), never made by
 * ending one early: a sender may still sign with it.
 */
export async function rotateSecret(
  current: SourceSecurity,
  given: string | undefined,
  graceSeconds: number,
  seal: (secret: string) => Promise<string>,
  now: Date,
): Promise<{ security: SourceSecurity; secret: string }> {
  if (!current.signature) throw conflict('The source has no signature scheme; set one with PUT …/security first');
  const preset = presetOf(current.signature.scheme);
  const { label } = presetTexts[current.signature.scheme];
  if (preset.secretFrom === 'public-key')
    throw conflict('The source verifies with the provider’s public key; set a new one with PUT …/security');
  if (!preset.secretFrom && !given)
    throw invalid(`${label} issues the signing secret: give its new one`, [{ path: 'secret', message: 'Required' }]);
  // The scheme's own least, as a PUT …/security takes it: Dropbox's app secrets are 15 characters.
  const minLength = preset.minSecretLength ?? 16;
  if (given !== undefined && given.length < minLength)
    throw invalid('The signing secret is too short', [{ path: 'secret', message: `At least ${minLength} characters` }]);
  const secret = given ?? generateSecret(current.signature.scheme);
  const expiry = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const inGrace = current.signature.secrets.filter((old) => !old.expires_at || old.expires_at > now.toISOString());
  // A grace of 0 ends every previous secret now: none is kept.
  const previous = inGrace
    .map((old) => ({ ...old, expires_at: old.expires_at && old.expires_at < expiry ? old.expires_at : expiry }))
    .filter((old) => old.expires_at > now.toISOString());
  if (previous.length > maxPreviousSecrets) {
    const soonest = inGrace
      .map((old) => old.expires_at)
      .filter((at) => at !== null)
      .sort()[0];
    throw conflict(
      `A source keeps at most ${maxPreviousSecrets} previous signing secrets in their grace time, and this one has ` +
        `${previous.length - 1}; the first of them ends at ${soonest}. Rotate after then, or with grace_seconds 0 ` +
        'to end every previous secret now.',
    );
  }
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
