/**
 * Handshakes: what a provider asks of an endpoint before (and while) it sends events — Slack's
 * url_verification, Meta's hub.challenge, Zoom's endpoint.url_validation, Microsoft Graph's
 * validationToken, X's CRC, Twitch's callback verification, Dropbox's challenge, Okta's
 * verification, Discord's ping. Each preset describes its handshake as data
 * (shared/domain/connections/presets.ts): how to recognise it, where its challenge is, and what the
 * answer is built of. A handshake is answered, never stored as an event (Notion's verification token
 * excepted: it is what the tenant needs to read).
 */
import { createHmac } from 'node:crypto';
import type { AnswerValue, Handshake } from '../connections/presets.ts';
import { invalid } from '../errors.ts';
import { atPointer, textAtPointer } from '../json-pointer.ts';

export interface HandshakeRequest {
  method: string;
  headers(name: string): string | undefined;
  query(name: string): string | undefined;
  body: Buffer;
  json(): unknown;
}

/** What the ingest route answers to a handshake. */
export type HandshakeAnswer =
  | { status: 200; text: string }
  | { status: 200; json: Record<string, unknown> }
  | { status: 204 };

/**
 * The preset's handshake when this request is one. Cheap for every other request: a query parameter
 * or header looked up, or a byte search of the body for the handshake's marker before any parsing.
 */
export function handshakeOf(handshake: Handshake | null, request: HandshakeRequest): Handshake | null {
  if (!handshake || handshake.method !== request.method) return null;
  const { when } = handshake;
  if ('query' in when || 'header' in when) {
    const value = 'query' in when ? request.query(when.query) : request.headers(when.header);
    return value !== undefined && (when.equals === undefined || value === when.equals) ? handshake : null;
  }
  if (!request.body.includes(when.marker)) return null;
  const value = atPointer(request.json(), when.jsonPointer);
  const matches = 'equals' in when && when.equals !== undefined ? value === when.equals : typeof value === 'string';
  return matches ? handshake : null;
}

function challengeOf(handshake: Handshake, request: HandshakeRequest): string | null {
  const { challenge } = handshake;
  if (!challenge) return null;
  const value =
    'query' in challenge
      ? request.query(challenge.query)
      : 'header' in challenge
        ? request.headers(challenge.header)
        : textAtPointer(request.json(), challenge.jsonPointer);
  if (value === undefined || value === '' || value.length > 4096) {
    const where =
      'query' in challenge ? challenge.query : 'header' in challenge ? challenge.header : challenge.jsonPointer;
    throw invalid('The handshake carries no challenge', [
      { path: where, message: 'Required, at most 4096 characters' },
    ]);
  }
  return value;
}

/**
 * What a challenge may be when the provider sends its handshake unsigned and the answer is an HMAC of
 * it under the signing secret (X's CRC): a token, never anything an event body could be. Anyone may
 * send such a handshake, and X signs its events with the same key over the body alone, so an answer
 * to a JSON challenge would be a valid signature for that JSON as an event.
 */
export const unsignedChallengePattern = /^[A-Za-z0-9+/=_.~-]{1,256}$/;

/** Whether the handshake is sent unsigned and answered with an HMAC of its challenge (see above). */
export function signsUnsignedChallenges(handshake: Handshake | undefined): boolean {
  if (!handshake || handshake.authenticated || !('json' in handshake.answer)) return false;
  return Object.values(handshake.answer.json).some((value) => typeof value === 'object' && 'hmac' in value);
}

function answerValue(value: AnswerValue, challenge: string | null, secret: string | null): unknown {
  if (value === 'challenge') return challenge;
  if ('constant' in value) return value.constant;
  // Only a source with a secret reaches here: presets whose answer proves the secret are signed ones.
  const mac = createHmac('sha256', secret ?? '')
    .update(challenge ?? '')
    .digest(value.hmac);
  return `${value.prefix ?? ''}${mac}`;
}

/**
 * The answer to a recognised handshake (its verify token already checked). `secret` is the
 * source's newest signing secret, for answers that prove it (Zoom, X).
 */
export function answerHandshake(
  handshake: Handshake,
  request: HandshakeRequest,
  secret: string | null,
): HandshakeAnswer {
  const { answer } = handshake;
  if ('empty' in answer) return { status: 204 };
  const challenge = challengeOf(handshake, request);
  if (signsUnsignedChallenges(handshake) && !unsignedChallengePattern.test(challenge ?? ''))
    throw invalid('The handshake challenge is not a token', [
      { path: 'challenge', message: 'At most 256 letters, digits and + / = _ . ~ -' },
    ]);
  if ('text' in answer) return { status: 200, text: challenge ?? '' };
  if ('json' in answer) {
    return {
      status: 200,
      json: Object.fromEntries(
        Object.entries(answer.json).map(([name, value]) => [name, answerValue(value, challenge, secret)]),
      ),
    };
  }
  throw new Error('A handshake taken in as an event has no answer of its own');
}
