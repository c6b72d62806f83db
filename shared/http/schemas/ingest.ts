/** Schemas of the ingest route: its parameters, its 202, and the answers to providers' handshakes. */
import * as z from 'zod';
import { id } from './common.ts';

export const ingestParams = z.strictObject({
  source_id: z.string().describe('The source id (a UUID); anything else is an unknown source (404)'),
});
export const ingestQuery = z
  .object({ feed: z.string().optional() })
  .catchall(z.string())
  .describe('feed names the feed; any other parameter is kept for the signature (and a handshake’s challenge)');
export const ingestAccepted = z.object({ message_id: id }).meta({ id: 'IngestAccepted' });
/** A POST handshake's answer: JSON (Slack, Zoom) or the challenge as text/plain (Microsoft Graph, Twitch). */
export const handshakeAnswer = {
  description: 'A provider’s handshake, answered and stored as no event',
  content: {
    'application/json': z
      .union([
        z.object({ challenge: z.string() }).describe('Slack url_verification'),
        z.object({ plainToken: z.string(), encryptedToken: z.string() }).describe('Zoom endpoint.url_validation'),
      ])
      .meta({ id: 'HandshakeAnswer' }),
    'text/plain': null,
  },
};
/** A GET handshake's answer: the challenge as text/plain (Meta, Dropbox) or JSON (X's CRC, Okta). */
export const handshakeChallenge = {
  description: 'A provider’s GET handshake, answered',
  content: {
    'text/plain': null,
    'application/json': z
      .union([
        z.object({ response_token: z.string() }).describe('X CRC: sha256= and the base64 HMAC of crc_token'),
        z.object({ verification: z.string() }).describe('Okta one-time verification'),
      ])
      .meta({ id: 'HandshakeChallenge' }),
  },
};
