import { httpEdge } from '#shared/http/api-handler.ts';
import { acceptOver, ingestEdge } from './accept.ts';
import { ingestDeps } from './wiring-door.ts';

/**
 * GET /api/ingest/{source_id}: the handshakes providers make with a GET (Meta's hub.challenge,
 * Dropbox's challenge, X's CRC, Okta's verification), answered by the ingest use case like any
 * request of the source; a GET that is no handshake of its preset is 404.
 */
export const handler = httpEdge('GET /api/ingest/{source_id}', acceptOver(ingestDeps), ingestEdge);
