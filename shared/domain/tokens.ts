import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Credentials the service issues (API keys, ingest tokens). They are shown once, stored only as a
 * SHA-256 hash, and carry a recognisable prefix so that a leaked one is easy to spot in a log or a
 * secret scanner. 32 random bytes make a brute-force search of the hash pointless, so an unsalted
 * fast hash is the right tool here (unlike passwords, which use scrypt).
 */

export const tokenPrefixes = {
  apiKey: 'trb_key_',
  ingestToken: 'trb_ing_',
} as const;

export type TokenKind = keyof typeof tokenPrefixes;

export interface IssuedToken {
  /** The secret, shown to the caller exactly once. */
  token: string;
  hash: string;
  /** Enough of the token to recognise it in a list, never enough to use it. */
  displayPrefix: string;
}

export function issueToken(kind: TokenKind): IssuedToken {
  const token = tokenPrefixes[kind] + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), displayPrefix: displayPrefix(token) };
}

/** The random part of every issued token: 32 bytes, base64url, unpadded. */
const randomPart = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether `value` has the shape of a token of this kind as issueToken makes them (its prefix and 43
 * base64url characters): anything else cannot be one, and is refused without a lookup.
 */
export function isWellFormedToken(kind: TokenKind, value: string | null | undefined): value is string {
  const prefix = tokenPrefixes[kind];
  return typeof value === 'string' && value.startsWith(prefix) && randomPart.test(value.slice(prefix.length));
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function displayPrefix(token: string): string {
  const kindPrefix = Object.values(tokenPrefixes).find((prefix) => token.startsWith(prefix)) ?? '';
  return token.slice(0, kindPrefix.length + 4);
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
