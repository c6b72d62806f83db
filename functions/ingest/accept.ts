import { getSource } from '#shared/adapters/dynamo/connections.ts';
import { sourceCache, tenantCache } from '#shared/adapters/dynamo/ingest-cache.ts';
import { claimDedupKey, takeRateToken } from '#shared/adapters/dynamo/ingest-guards.ts';
import { recordRejection } from '#shared/adapters/dynamo/rejections.ts';
import { getTenant } from '#shared/adapters/dynamo/tenants.ts';
import { countQuietly } from '#shared/adapters/metrics.ts';
import { openSigningSecrets } from '#shared/adapters/signing-secrets.ts';
import { enqueueEnvelope } from '#shared/adapters/sqs/ingest-queue.ts';
import { intEnv } from '#shared/config.ts';
import { acceptIngest, type IngestDeps } from '#shared/domain/ingest/accept.ts';
import { safeHeaders } from '#shared/domain/monitoring/model.ts';
import { httpEdge, requestIdOf } from '#shared/http/api-handler.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { header, rawBody } from '#shared/http/request.ts';
import { accepted, toApiGatewayResult } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';

const deps: IngestDeps = {
  findSource: (sourceId: string) => sourceCache.get(sourceId, () => getSource(sourceId)),
  findTenant: (tenantId: string) => tenantCache.get(tenantId, () => getTenant(tenantId)),
  signingSecrets: (source) => openSigningSecrets(source),
  takeRateToken,
  claimDedupKey,
  enqueue: enqueueEnvelope,
  maxBodyBytes: intEnv('INGEST_MAX_BYTES', 1024 * 1024),
};

/**
 * POST /api/ingest/{source_id}: the raw request in, 202 with its message id once it is queued.
 * Every answer is counted per source; a refusal of an identified source is also recorded for the
 * tenant to see (GET /api/connections/{id}/rejections).
 */
export const handler = httpEdge('POST /api/ingest/{source_id}', async (event) => {
  const body = rawBody(event);
  const contentType = header(event, 'content-type') ?? null;
  const outcome = await acceptIngest(deps, {
    sourceId: event.pathParameters?.source_id ?? '',
    header: (name) => header(event, name),
    feed: event.queryStringParameters?.feed,
    sourceIp: event.requestContext.http.sourceIp,
    body,
  });
  const sourceId = outcome.source?.source_id ?? 'unknown';
  logger.appendKeys({ source_id: sourceId });
  if (outcome.accepted) {
    await countQuietly('ingestRequests', { source_id: sourceId, status: '202', code: 'ACCEPTED' });
    return toApiGatewayResult(accepted({ message_id: outcome.messageId }), requestIdOf(event));
  }
  const status = statusOfCode[outcome.error.code];
  await Promise.all([
    countQuietly('ingestRequests', { source_id: sourceId, status: String(status), code: outcome.error.code }),
    outcome.source
      ? recordRejection(outcome.source.source_id, {
          at: new Date().toISOString(),
          status,
          code: outcome.error.code,
          content_type: contentType,
          payload_size: body.length,
          headers: safeHeaders(event.headers ?? {}),
        }).catch((error: Error) => logger.warn('Could not record a rejection', { error: error.message }))
      : undefined,
  ]);
  throw outcome.error;
});
