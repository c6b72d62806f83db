import { acceptIngest, type IngestAnswer, type IngestDeps } from '#shared/domain/ingest/accept.ts';
import { httpEdge, type LambdaHandler, requestIdOf } from '#shared/http/api-handler.ts';
import { clientAddress } from '#shared/http/edge-origin.ts';
import { header, publicBaseUrl, rawBody } from '#shared/http/request.ts';
import { accepted, type HttpResult, noContent, ok, toApiGatewayResult } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';
import { ingestDeps } from './wiring-door.ts';

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

/**
 * Its time limit is the use case's, which refuses only what it has not queued (timeLeftMs): the edge
 * does not race it. Its answer waits at most a second for the instance's counter writes: senders time
 * out within seconds (Slack at 3, Shopify at 5, GitHub at 10), and waiting gains nothing for the
 * counts. A 202's count rides on its envelope's receipt, which the writer raises the figure to; a
 * refusal's stays pending in the instance for its next write.
 */
export const ingestEdge = { handlerKeepsTime: true, deferredWithinMs: 1_000 };

export const handler = httpEdge('POST /api/ingest/{source_id}', acceptOver(ingestDeps), ingestEdge);
