/** Routes — The webhook ingest endpoint. Part of the route table (shared/routes.ts). */
import {
  handshakeAnswer,
  handshakeChallenge,
  ingestAccepted,
  ingestParams,
  ingestQuery,
} from '../http/schemas/ingest.ts';
import type { RouteSpec } from './spec.ts';

export const ingestRoutes = {
  'POST /api/ingest/{source_id}': {
    entry: 'functions/ingest/accept.ts',
    auth: 'ingestToken',
    summary:
      'Accept a webhook: any body and content type; 202 once it is queued for writing, or 200/204 for a provider’s handshake (Slack, Zoom, Microsoft Graph, Twitch, Discord), stored as no event',
    tag: 'Ingest',
    params: ingestParams,
    query: ingestQuery,
    rawBody:
      'Any body with any content type, up to the ingest size limit (1 MiB by default). It is kept byte for byte, base64-encoded in the envelope, with the headers and query string.',
    responses: { 200: handshakeAnswer, 202: ingestAccepted, 204: null },
    access: {
      table: 'readWrite',
      // A deduplication key claimed by a request that was not queued is given back.
      deletesItems: true,
      queues: { ingest: 'send' },
      platformBucket: { claims: 'readWrite' },
      secretsKey: true,
    },
    throttle: 'ingest',
    function: { memoryMb: 512, timeoutSeconds: 10, tracesSdkCalls: true, settings: ['ingestMaxBytes'] },
  },
  'GET /api/ingest/{source_id}': {
    entry: 'functions/ingest/handshake.ts',
    auth: 'ingestToken',
    summary:
      'Answer a provider’s GET handshake (Meta’s hub.challenge, Dropbox’s challenge, X’s crc_token, Okta’s verification); any other GET is 404',
    tag: 'Ingest',
    params: ingestParams,
    query: ingestQuery,
    responses: { 200: handshakeChallenge },
    // It answers and refuses like the ingest route (refusals are counted and kept), and never queues.
    access: { table: 'readWrite', secretsKey: true },
    function: { memoryMb: 256, timeoutSeconds: 10 },
  },
} as const satisfies Record<string, RouteSpec>;
