/**
 * The presets in words, for the people who set a sender up (the console, the docs): which headers
 * carry what, the handshake, the deduplication key. Plain data in, text out: it runs in the browser.
 */
import type { Carrier, DedupKey, Handshake, Preset, SignedPart, Verification } from './presets.ts';

function carrierText(carrier: Carrier): string {
  if ('jsonPointer' in carrier) return `body ${carrier.jsonPointer}`;
  return 'pair' in carrier ? `${carrier.header} (${carrier.pair}=)` : carrier.header;
}

function partText(part: SignedPart): string {
  if (typeof part === 'string') return part === 'sorted-form-params' ? 'sorted form parameters' : part;
  if ('text' in part) return `"${part.text}"`;
  if ('header' in part) return part.header;
  return `body ${part.jsonPointer}`;
}

/** Which headers (or body fields) carry the signature and its time, and what is signed. */
export function signatureText(verification: Verification): string {
  switch (verification.kind) {
    case 'hmac': {
      const time = verification.timestamp ? `; time in ${carrierText(verification.timestamp.from)}` : '';
      const algorithm = verification.algorithm === 'sha1' ? 'HMAC-SHA1' : 'HMAC-SHA256';
      return `${carrierText(verification.signature)}: ${verification.prefix ?? ''}${verification.encoding} ${algorithm} of ${verification.signed.map(partText).join(' + ')}${time}`;
    }
    case 'token':
      return verification.scheme
        ? `${verification.header}: ${verification.scheme} credentials equal to the secret`
        : `${verification.header}: the secret itself`;
    case 'client-state':
      return `every ${verification.arrayPointer}[].${verification.field} in the body equals the secret`;
    case 'ed25519':
    case 'ecdsa':
      return `${verification.signature}: ${verification.kind === 'ed25519' ? 'Ed25519 (hex)' : 'ECDSA P-256 (base64 DER)'} of ${verification.signed.map(partText).join(' + ')}; time in ${carrierText(verification.timestamp.from)}`;
    case 'jwt':
      return `${verification.header}: ${verification.algorithm} JWT whose ${verification.bodyHashClaim} claim is the body's SHA-256`;
  }
}

export function handshakeText(handshake: Handshake | undefined): string {
  if (!handshake) return 'none';
  const { when, answer } = handshake;
  const asked =
    'query' in when
      ? `${handshake.method} ?${when.query}${when.equals ? `=${when.equals}` : ''}`
      : 'header' in when
        ? `${handshake.method} with ${when.header}${when.equals ? `: ${when.equals}` : ''}`
        : `${handshake.method} whose ${when.jsonPointer} is ${when.equals === undefined ? 'set' : JSON.stringify(when.equals)}`;
  if ('acceptAsEvent' in answer) return `${asked}: kept as an event, to read the token from`;
  const answered =
    'empty' in answer
      ? '204'
      : 'text' in answer
        ? 'the challenge as text/plain'
        : `JSON ${JSON.stringify(Object.keys(answer.json))}`;
  const checked = handshake.verifyTokenParam ? `, when ${handshake.verifyTokenParam} is the verify token` : '';
  return `${asked} → ${answered}${checked}${handshake.authenticated ? ' (signed)' : ''}`;
}

export function dedupText(key: DedupKey | undefined): string {
  if (!key) return 'webhook-id, else Idempotency-Key';
  return 'header' in key ? `header ${key.header}` : `body ${key.json_pointer}`;
}

/** What the tenant gives Tributary: the provider's secret, a key of its own choosing, or a public key. */
export function keyText(preset: Preset): string {
  if (preset.secretFrom === 'public-key') return 'public_key (from the provider)';
  if (!preset.secretFrom) return 'secret (from the provider)';
  return 'secret (yours, or generated)';
}
