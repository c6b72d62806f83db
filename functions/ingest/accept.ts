import { getSource } from '#shared/adapters/dynamo/connections.ts';
import { sourceCache, tenantCache } from '#shared/adapters/dynamo/ingest-cache.ts';
import { getTenant } from '#shared/adapters/dynamo/tenants.ts';
import { enqueueEnvelope } from '#shared/adapters/sqs/ingest-queue.ts';
import { intEnv } from '#shared/config.ts';
import { acceptIngest } from '#shared/domain/ingest/accept.ts';
import { httpEdge, requestIdOf } from '#shared/http/api-handler.ts';
import { header, rawBody } from '#shared/http/request.ts';
import { accepted, toApiGatewayResult } from '#shared/http/responses.ts';

const deps = {
  findSource: (sourceId: string) => sourceCache.get(sourceId, () => getSource(sourceId)),
  findTenant: (tenantId: string) => tenantCache.get(tenantId, () => getTenant(tenantId)),
  enqueue: enqueueEnvelope,
  maxBodyBytes: intEnv('INGEST_MAX_BYTES', 1024 * 1024),
};

/** POST /api/ingest/{source_id}: the raw request in, 202 with its message id once it is queued. */
export const handler = httpEdge('POST /api/ingest/{source_id}', async (event) => {
  const { messageId } = await acceptIngest(deps, {
    sourceId: event.pathParameters?.source_id ?? '',
    authorization: header(event, 'authorization'),
    feed: event.queryStringParameters?.feed,
    contentType: header(event, 'content-type') ?? null,
    body: rawBody(event),
  });
  return toApiGatewayResult(accepted({ message_id: messageId }), requestIdOf(event));
});
