/**
 * Providers' public keys, in the forms they show them: Discord's Ed25519 key in hex, SendGrid's
 * ECDSA P-256 key as base64 of its DER (SPKI), Plaid's key as a JWK. Parsed once per process.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Verification } from './presets.ts';

export type PublicKeyForm = 'ed25519' | 'ecdsa' | 'jwk';

const parsed = new Map<string, KeyObject | null>();
const ed25519SpkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

function parse(form: PublicKeyForm, text: string): KeyObject | null {
  try {
    if (form === 'ed25519') {
      if (!/^[0-9a-f]{64}$/i.test(text)) return null;
      const der = Buffer.concat([ed25519SpkiPrefix, Buffer.from(text, 'hex')]);
      return createPublicKey({ key: der, format: 'der', type: 'spki' });
    }
    if (form === 'ecdsa') {
      const key = createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
      return key.asymmetricKeyType === 'ec' ? key : null;
    }
    const key = createPublicKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' });
    return key.asymmetricKeyType === 'ec' && key.type === 'public' ? key : null;
  } catch {
    return null;
  }
}

/** The key, or null when the text is not a key of that form. */
export function publicKeyOf(form: PublicKeyForm, text: string): KeyObject | null {
  const cacheKey = `${form}:${text}`;
  const hit = parsed.get(cacheKey);
  if (hit !== undefined) return hit;
  const key = parse(form, text);
  if (parsed.size > 1000) parsed.clear();
  parsed.set(cacheKey, key);
  return key;
}

export function publicKeyFormOf(verification: Verification): PublicKeyForm | null {
  if (verification.kind === 'ed25519' || verification.kind === 'ecdsa') return verification.kind;
  return verification.kind === 'jwt' && verification.algorithm === 'ES256' ? 'jwk' : null;
}

const described: Record<PublicKeyForm, string> = {
  ed25519: 'An Ed25519 public key in hex (64 characters)',
  ecdsa: 'An ECDSA public key as base64 of its DER encoding',
  jwk: 'An EC public key as a JWK (JSON)',
};

/** Why a public key cannot verify this scheme, or null when it can. */
export function publicKeyProblem(verification: Verification, text: string): string | null {
  const form = publicKeyFormOf(verification);
  if (!form) return 'This scheme takes no public key';
  return publicKeyOf(form, text) ? null : described[form];
}
