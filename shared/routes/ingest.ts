/** Routes — The webhook ingest endpoint. Part of the route table (shared/routes.ts). */
import { ingestAccepted, ingestParams, ingestQuery } from '../http/schemas/connections.ts';
import type { RouteSpec } from './spec.ts';

export const ingestRoutes = {
  'POST /api/ingest/{source_id}': {
    entry: 'functions/ingest/accept.ts',
    auth: 'ingestToken',
    summary: 'Accept a webhook: any body and content type; 202 once it is queued for writing',
    tag: 'Ingest',
    params: ingestParams,
    query: ingestQuery,
    rawBody:
      'Any body with any content type, up to the ingest size limit (1 MiB by default). It is kept byte for byte, base64-encoded in the envelope, with the headers and query string.',
    responses: { 202: ingestAccepted },
    access: {
      table: 'readWrite',
      queues: { ingest: 'send' },
      platformBucket: { claims: 'readWrite' },
      secretsKey: true,
    },
    throttle: 'ingest',
    function: { memoryMb: 512, timeoutSeconds: 10, tracesSdkCalls: true, settings: ['ingestMaxBytes'] },
  },
} as const satisfies Record<string, RouteSpec>;
