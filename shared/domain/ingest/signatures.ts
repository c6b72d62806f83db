/**
 * Webhook signatures, verified over the raw request bytes with constant-time comparisons. A
 * connection's scheme names a preset (shared/domain/connections/presets.ts); the preset names one of
 * the kinds below and the headers, encodings and signed parts it reads:
 *   hmac          an HMAC (SHA-1 or SHA-256) of signed parts (body, timestamp, URL, method, headers,
 *                 sorted form parameters), hex or base64, in a header, a `k=v` pair or the JSON body
 *   token         a shared value sent as is (optionally as HTTP Basic credentials)
 *   client-state  every notification of a JSON body carries the shared value (Microsoft Graph)
 *   ed25519       a hex Ed25519 signature of timestamp + body, with a hex public key (Discord)
 *   ecdsa         a base64 DER ECDSA P-256 signature of timestamp + body, with a base64 DER key (SendGrid)
 *   jwt           a JWT whose claims hold the body's SHA-256: ES256 with a JWK (Plaid), HS256 with the secret (Netlify)
 * A timestamp outside the tolerance is stale. Anything missing, malformed or unknown fails closed.
 */
import { createHash, createHmac, timingSafeEqual, verify } from 'node:crypto';
import {
  type Carrier,
  presetOf,
  type SignedPart,
  type TimestampRule,
  type Verification,
} from '../connections/presets.ts';
import { publicKeyOf } from '../connections/public-keys.ts';
import type { SignatureSettings } from '../connections/security.ts';
import { atPointer, textAtPointer } from '../json-pointer.ts';

export type SignatureFailure = 'MISSING_SIGNATURE' | 'INVALID_SIGNATURE' | 'STALE_TIMESTAMP';

export interface SignedRequest {
  method: string;
  headers: (name: string) => string | undefined;
  body: Buffer;
  /** What URL-signing schemes sign: the connection's ingest URL plus the query string as received. */
  url: string;
  query: (name: string) => string | undefined;
  /** The body parsed as JSON, once, for the schemes that read it (undefined when it is not JSON). */
  json: () => unknown;
}

function same(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Equal texts, compared in constant time whatever their lengths. */
export function sameText(expected: string, given: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(given)) && expected === given;
}

function decode(value: string, encoding: 'hex' | 'base64'): Buffer {
  if (encoding === 'hex')
    return /^[0-9a-f]+$/i.test(value) && value.length % 2 === 0 ? Buffer.from(value, 'hex') : Buffer.alloc(0);
  return Buffer.from(value, 'base64');
}

function keyOf(secret: string, form: 'base64' | 'whsec' | undefined): Buffer {
  if (form === undefined) return Buffer.from(secret, 'utf8');
  return Buffer.from(
    form === 'whsec' && secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret,
    'base64',
  );
}

/** Every value a carrier holds (a `k=v` header may repeat its key: Stripe's v1 during a secret roll). */
function carried(carrier: Carrier, request: SignedRequest): string[] {
  if ('jsonPointer' in carrier) {
    const value = textAtPointer(request.json(), carrier.jsonPointer);
    return value === undefined ? [] : [value];
  }
  const value = request.headers(carrier.header);
  if (value === undefined || value === '') return [];
  if (!('pair' in carrier)) return [value];
  return value
    .split(carrier.separator)
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${carrier.pair}=`))
    .map((pair) => pair.slice(carrier.pair.length + 1));
}

/** null when the timestamp is well formed and (with a tolerance) near enough to now. */
function timestampFailure(
  value: string,
  rule: TimestampRule,
  toleranceSeconds: number | null,
  now: Date,
): SignatureFailure | null {
  let ms: number;
  if (rule.unit === 'iso8601') ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  else if (/^\d{1,15}$/.test(value)) ms = rule.unit === 'seconds' ? Number(value) * 1000 : Number(value);
  else ms = Number.NaN;
  if (!Number.isFinite(ms)) return 'STALE_TIMESTAMP';
  if (toleranceSeconds !== null && Math.abs(now.getTime() - ms) > toleranceSeconds * 1000) return 'STALE_TIMESTAMP';
  return null;
}

/** Twilio and Mandrill: each form parameter's name then its values (distinct, sorted), names sorted. */
function sortedFormParams(body: Buffer): string {
  const values = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const set = values.get(name) ?? new Set<string>();
    set.add(value);
    values.set(name, set);
  }
  return [...values.keys()]
    .sort()
    .map((name) =>
      [...(values.get(name) as Set<string>)]
        .sort()
        .map((value) => name + value)
        .join(''),
    )
    .join('');
}

/** The pieces a scheme signs, in order (the body is not copied), or null when a part it needs is absent. */
function signedPieces(
  parts: readonly SignedPart[],
  request: SignedRequest,
  timestamp: string | undefined,
  formParams: boolean,
): Buffer[] | null {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let piece: string | Buffer | undefined;
    if (part === 'body') piece = request.body;
    else if (part === 'timestamp') piece = timestamp;
    else if (part === 'url') piece = request.url;
    else if (part === 'method') piece = request.method;
    else if (part === 'sorted-form-params') piece = formParams ? sortedFormParams(request.body) : '';
    else if ('text' in part) piece = part.text;
    else if ('header' in part) piece = request.headers(part.header);
    else piece = textAtPointer(request.json(), part.jsonPointer);
    if (piece === undefined) return null;
    pieces.push(typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
  }
  return pieces;
}

/** The timestamp a scheme signs, checked: its value, or why the request fails. */
function signedTimestamp(
  rule: TimestampRule | undefined,
  settings: SignatureSettings,
  request: SignedRequest,
  now: Date,
): { value: string | undefined } | SignatureFailure {
  if (!rule) return { value: undefined };
  const [value] = carried(rule.from, request);
  if (value === undefined) return 'MISSING_SIGNATURE';
  return timestampFailure(value, rule, settings.tolerance_seconds ?? rule.toleranceSeconds, now) ?? { value };
}

function verifyHmac(
  verification: Extract<Verification, { kind: 'hmac' }>,
  settings: SignatureSettings,
  secrets: string[],
  request: SignedRequest,
  now: Date,
): SignatureFailure | null {
  // The generic scheme names its own header and encoding.
  const signature =
    settings.scheme === 'hmac-sha256' && settings.header ? { header: settings.header } : verification.signature;
  const encoding = settings.scheme === 'hmac-sha256' && settings.encoding ? settings.encoding : verification.encoding;
  const values = carried(signature, request);
  if (values.length === 0) return 'MISSING_SIGNATURE';
  const timestamp = signedTimestamp(verification.timestamp, settings, request, now);
  if (typeof timestamp === 'string') return timestamp;
  const { prefix = '', listSeparator, prefixOptional } = verification;
  const given = values
    .flatMap((value) => (listSeparator ? value.split(listSeparator) : [value]))
    .map((entry) => entry.trim())
    .flatMap((entry) => {
      if (entry.startsWith(prefix)) return [entry.slice(prefix.length)];
      return prefixOptional ? [entry] : [];
    })
    .map((entry) => decode(entry, encoding));
  let formParams = true;
  if (verification.bodyHashParam) {
    // Twilio signs a JSON body's hash into the URL, and then no form parameters.
    const bodyHash = request.query(verification.bodyHashParam);
    if (bodyHash !== undefined) {
      if (!sameText(createHash('sha256').update(request.body).digest('hex'), bodyHash.toLowerCase()))
        return 'INVALID_SIGNATURE';
      formParams = false;
    }
  }
  const pieces = signedPieces(verification.signed, request, timestamp.value, formParams);
  if (!pieces || given.length === 0) return 'INVALID_SIGNATURE';
  const matches = secrets.some((secret) => {
    const mac = createHmac(verification.algorithm ?? 'sha256', keyOf(secret, verification.key));
    for (const piece of pieces) mac.update(piece);
    const expected = mac.digest();
    return given.some((candidate) => same(expected, candidate));
  });
  return matches ? null : 'INVALID_SIGNATURE';
}

function verifyToken(
  verification: Extract<Verification, { kind: 'token' }>,
  secrets: string[],
  request: SignedRequest,
): SignatureFailure | null {
  const value = request.headers(verification.header);
  if (!value) return 'MISSING_SIGNATURE';
  let given = value;
  if (verification.scheme === 'Basic') {
    const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
    if (!match) return 'INVALID_SIGNATURE';
    given = Buffer.from(match[1] as string, 'base64').toString('utf8');
  }
  return secrets.some((secret) => sameText(secret, given)) ? null : 'INVALID_SIGNATURE';
}

function verifyClientState(
  verification: Extract<Verification, { kind: 'client-state' }>,
  secrets: string[],
  request: SignedRequest,
): SignatureFailure | null {
  const notifications = atPointer(request.json(), verification.arrayPointer);
  if (!Array.isArray(notifications) || notifications.length === 0) return 'MISSING_SIGNATURE';
  const allSigned = notifications.every((notification) => {
    const state = textAtPointer(notification, `/${verification.field}`);
    return state !== undefined && secrets.some((secret) => sameText(secret, state));
  });
  return allSigned ? null : 'INVALID_SIGNATURE';
}

function verifyPublicKey(
  verification: Extract<Verification, { kind: 'ed25519' | 'ecdsa' }>,
  settings: SignatureSettings,
  request: SignedRequest,
  now: Date,
): SignatureFailure | null {
  const signature = request.headers(verification.signature);
  if (!signature) return 'MISSING_SIGNATURE';
  const timestamp = signedTimestamp(verification.timestamp, settings, request, now);
  if (typeof timestamp === 'string') return timestamp;
  const pieces = signedPieces(verification.signed, request, timestamp.value, false);
  const message = pieces && Buffer.concat(pieces);
  const key = settings.public_key ? publicKeyOf(verification.kind, settings.public_key) : null;
  if (!message || !key) return 'INVALID_SIGNATURE';
  try {
    const valid =
      verification.kind === 'ed25519'
        ? verify(null, message, key, decode(signature, 'hex'))
        : verify('sha256', message, key, Buffer.from(signature, 'base64'));
    return valid ? null : 'INVALID_SIGNATURE';
  } catch {
    return 'INVALID_SIGNATURE';
  }
}

function jsonPart(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A compact JWS of the preset's one algorithm (never the token's own choice), whose claims pin the body. */
function verifyJwt(
  verification: Extract<Verification, { kind: 'jwt' }>,
  settings: SignatureSettings,
  secrets: string[],
  request: SignedRequest,
  now: Date,
): SignatureFailure | null {
  const token = request.headers(verification.header);
  if (!token) return 'MISSING_SIGNATURE';
  const [head = '', payload = '', signature = ''] = token.trim().split('.');
  const header = jsonPart(head);
  const claims = jsonPart(payload);
  if (!header || !claims || header.alg !== verification.algorithm || token.split('.').length !== 3)
    return 'INVALID_SIGNATURE';
  const signingInput = Buffer.from(`${head}.${payload}`, 'ascii');
  const given = Buffer.from(signature, 'base64url');
  let valid: boolean;
  if (verification.algorithm === 'HS256') {
    valid = secrets.some((secret) => same(createHmac('sha256', secret).update(signingInput).digest(), given));
  } else {
    const key = settings.public_key ? publicKeyOf('jwk', settings.public_key) : null;
    try {
      valid = key !== null && verify('sha256', signingInput, { key, dsaEncoding: 'ieee-p1363' }, given);
    } catch {
      valid = false;
    }
  }
  if (!valid) return 'INVALID_SIGNATURE';
  if (verification.issuer !== undefined && claims.iss !== verification.issuer) return 'INVALID_SIGNATURE';
  const bodyHash = claims[verification.bodyHashClaim];
  if (
    typeof bodyHash !== 'string' ||
    !sameText(createHash('sha256').update(request.body).digest('hex'), bodyHash.toLowerCase())
  )
    return 'INVALID_SIGNATURE';
  const tolerance = settings.tolerance_seconds ?? verification.toleranceSeconds;
  if (tolerance !== null) {
    if (typeof claims.iat !== 'number' || Math.abs(now.getTime() / 1000 - claims.iat) > tolerance)
      return 'STALE_TIMESTAMP';
  }
  return null;
}

/** null when the request is signed as the connection's scheme signs (by one of its secrets); otherwise why not. */
export function verifySignature(
  settings: SignatureSettings,
  secrets: string[],
  request: SignedRequest,
  now = new Date(),
): SignatureFailure | null {
  const verification = presetOf(settings.scheme)?.verification;
  switch (verification?.kind) {
    case 'hmac':
      return verifyHmac(verification, settings, secrets, request, now);
    case 'token':
      return verifyToken(verification, secrets, request);
    case 'client-state':
      return verifyClientState(verification, secrets, request);
    case 'ed25519':
    case 'ecdsa':
      return verifyPublicKey(verification, settings, request, now);
    case 'jwt':
      return verifyJwt(verification, settings, secrets, request, now);
    default:
      return 'INVALID_SIGNATURE';
  }
}
