import { sourceCache, tenantCache } from '#shared/adapters/dynamo/ingest-cache.ts';
import { claimDedupKey, takeRateToken } from '#shared/adapters/dynamo/ingest-guards.ts';
import { recordRejection } from '#shared/adapters/dynamo/rejections.ts';
import { getSource } from '#shared/adapters/dynamo/sources.ts';
import { getTenant } from '#shared/adapters/dynamo/tenants.ts';
import { countAccepted, countRefused, withdrawAccepted } from '#shared/adapters/metrics.ts';
import { openSigningSecrets } from '#shared/adapters/signing-secrets.ts';
import { enqueueEnvelope } from '#shared/adapters/sqs/ingest-queue.ts';
import { intEnv } from '#shared/config.ts';
import { acceptIngest, type IngestAnswer, type IngestDeps } from '#shared/domain/ingest/accept.ts';
import { httpEdge, type LambdaHandler, requestIdOf } from '#shared/http/api-handler.ts';
import { clientAddress } from '#shared/http/edge-origin.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { header, publicBaseUrl, rawBody } from '#shared/http/request.ts';
import { accepted, type HttpResult, noContent, ok, toApiGatewayResult } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';

export const ingestDeps = {
  // The cache is allowed INGEST_CACHE_SECONDS of staleness: an eventually consistent read is fresh enough.
  findSource: (sourceId: string) => sourceCache.get(sourceId, () => getSource(sourceId, false)),
  findTenant: (tenantId: string) => tenantCache.get(tenantId, () => getTenant(tenantId, false)),
  signingSecrets: (source) => openSigningSecrets(source),
  takeRateToken,
  claimDedupKey,
  enqueue: enqueueEnvelope,
  maxBodyBytes: intEnv('INGEST_MAX_BYTES', 1024 * 1024),
  countAccepted,
  withdrawAccepted,
  countRefused,
  recordRejection: (sourceId, rejection) =>
    recordRejection(sourceId, rejection).catch((error: Error) =>
      logger.warn('Could not record a rejection', { source_id: sourceId, error: error.message }),
    ),
  statusOf: (code) => statusOfCode[code],
} satisfies IngestDeps;

/** The answer: 202 with the message id, or the handshake's own answer (text, JSON or no content). */
export function ingestResult(outcome: IngestAnswer): HttpResult {
  if (outcome.kind === 'accepted') return accepted({ message_id: outcome.messageId });
  const { answer } = outcome;
  if (answer.status === 204) return noContent();
  if ('text' in answer)
    // Dropbox asks for nosniff: the challenge is echoed, and must never be read as markup.
    return {
      status: 200,
      headers: { 'x-content-type-options': 'nosniff' },
      raw: { contentType: 'text/plain', content: answer.text },
    };
  return ok(answer.json);
}

/**
 * POST (and, for the handshakes providers make with it, GET) /api/ingest/{source_id}: the raw
 * request in, 202 with its message id once it is queued, or a provider's handshake answered; a
 * refusal is counted and kept for its source (GET /api/connections/{id}/rejections) by the use
 * case, and answered by the edge.
 */
export function acceptOver(ports: IngestDeps): LambdaHandler {
  return async (event, context) => {
    const outcome = await acceptIngest(ports, {
      sourceId: event.pathParameters?.source_id ?? '',
      method: event.requestContext.http.method === 'GET' ? 'GET' : 'POST',
      header: (name) => header(event, name),
      headers: event.headers ?? {},
      feed: event.queryStringParameters?.feed,
      query: event.queryStringParameters ?? {},
      rawQuery: event.rawQueryString,
      baseUrl: publicBaseUrl(event),
      // The viewer's address when the request proved it came through the edge, else API Gateway's.
      sourceIp: clientAddress(event),
      body: rawBody(event),
      timeLeftMs: context.getRemainingTimeInMillis(),
    });
    logger.appendKeys({ source_id: outcome.sourceId });
    return toApiGatewayResult(ingestResult(outcome), requestIdOf(event));
  };
}

/** Its time limit is the use case's, which refuses only what it has not queued (timeLeftMs): the edge does not race it. */
export const ingestEdge = { handlerKeepsTime: true };

export const handler = httpEdge('POST /api/ingest/{source_id}', acceptOver(ingestDeps), ingestEdge);
